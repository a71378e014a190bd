import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { buildExport, isExportComment, slugify } from '../../src/export/build-manifest.js';
import { formatManifest } from '../../src/format/format-manifest.js';
import { validateAgainst } from '../../src/schema/validate.js';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { envPolicyOf } from '../../src/secrets/env-policy.js';
import { interpolateString } from '../../src/manifest/interpolate.js';
import type { Agent, Phone } from '../../src/schema/types.gen.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { TrustedSecrets } from '../../src/secrets/trusted.js';

function agent(id: string, name: string, config: Record<string, unknown>): Agent {
  return { id, name, config, created_at: 1 } as Agent;
}

describe('slugify', () => {
  test.each([
    ['Front desk', 'front-desk'],
    ['Appointment booking (staging)', 'appointment-booking-staging'],
    ['  Café  Réception!! ', 'cafe-reception'],
    ['24/7 Support', '24-7-support'],
    ['???', 'agent'],
    [undefined, 'agent'],
  ])('%s → %s', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });
});

describe('buildExport', () => {
  const frontDesk = agent('ag_1', 'Front desk', {
    prompt: 'You are Ava.\nBe brief.',
    first_message: 'Hello, costs are ${env:NOT_A_REF} today',
    voice: { provider: 'elevenlabs', voice_id: 'rachel' },
    llm: { model: 'gpt-4o', temperature: 0.4 },
    session_data_webhook: { url: 'https://hooks.example.com/end', headers: { 'x-hook-token': 'live-secret-1' } },
    tools: [{ name: 'find_slots', webhook: 'https://x.test', header: { authorization: 'live-secret-2' }, response_mode: 'strict' }],
    mystery_field: 1,
  });
  const twin = agent('ag_2', 'Front desk', { prompt: 'Line one\r\nLine two', language: 'en-US' });
  const phones: Phone[] = [
    { id: '+15551230001', agent_id: 'ag_1' },
    { id: '+15551230002', agent_id: 'ag_other' },
    { id: 'sip:desk@example.com', agent_id: 'ag_2' },
    { id: '+15551230003' },
  ];
  const result = buildExport({ agents: [frontDesk, twin], phones, command: 'voxform export --agent ag_1 --agent ag_2' });
  const manifest = parse(result.manifest) as {
    agents: Record<string, { id: string; name: string; config: Record<string, unknown> }>;
    phones: Record<string, unknown>;
    region?: string;
  };

  test('the manifest is valid, formatted, and names agents by slug, made unique', () => {
    expect(validateAgainst('Manifest', manifest)).toEqual([]);
    expect(formatManifest(result.manifest, 'voxform.yaml').changed).toBe(false);
    expect(Object.keys(manifest.agents)).toEqual(['front-desk', 'front-desk-2']);
    expect(result.localNames).toEqual(new Map([['ag_1', 'front-desk'], ['ag_2', 'front-desk-2']]));
    expect(manifest.region).toBeUndefined();
  });

  test('read-only and unknown fields are left out and noted in a comment above the agent', () => {
    const config = manifest.agents['front-desk']?.config ?? {};
    expect(config.voice).toEqual({ voice_id: 'rachel' });
    expect(config.llm).toEqual({ temperature: 0.4 });
    expect((config.tools as Array<Record<string, unknown>>)[0]).not.toHaveProperty('response_mode');
    expect(config).not.toHaveProperty('mystery_field');
    expect(result.manifest).toContain(
      '  # read-only on the service, not managed here: voice.provider=elevenlabs, llm.model=gpt-4o, tools[0].response_mode=strict, mystery_field=1\n  front-desk:\n',
    );
    expect(result.readOnly.get('front-desk-2')).toEqual([]);
  });

  test('a field the schema does not know is named without its text, which may be a secret; a number or a boolean is shown', () => {
    const extras = agent('ag_x', 'Extras', {
      webhook_secret: 'UNKNOWN-TOPLEVEL-SECRET-1',
      voice: { provider: 'elevenlabs', voice_id: 'rachel', api_token: 'UNKNOWN-VOICE-SECRET-2', retries: 3 },
      session_data_webhook: { url: 'https://hooks.example.com/end', signing_secret: 'UNKNOWN-HOOK-SECRET-3', signed: true },
    });
    const out = buildExport({ agents: [extras], phones: [], command: 'voxform export' });
    expect(out.manifest).not.toContain('UNKNOWN-');
    expect(out.manifest).toContain(
      '# read-only on the service, not managed here: webhook_secret, voice.provider=elevenlabs, voice.api_token, voice.retries=3, session_data_webhook.signing_secret, session_data_webhook.signed=true\n',
    );
  });

  test('hidden characters of read-only values and unknown keys are escaped in the comment, as fmt escapes them in values', () => {
    const hidden = agent('ag_h', 'Hidden', { llm: { model: 'gpt-4o\u202e\u2028x' }, ['odd\u200bkey']: 1 });
    const out = buildExport({ agents: [hidden], phones: [], command: 'voxform export' });
    expect(out.manifest).not.toMatch(/[\u202e\u2028\u200b]/);
    expect(out.manifest).toContain('# read-only on the service, not managed here: llm.model="gpt-4o\\u202e\\u2028x", odd\\u200bkey=1\n');
  });

  test('secrets become ${env:…} references, named after where they go, and are never written', () => {
    expect(result.manifest).not.toContain('live-secret');
    expect(result.secrets).toEqual([
      { name: 'FRONT_DESK_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN', path: 'agents.front-desk.config.session_data_webhook.headers["x-hook-token"]' },
      { name: 'FRONT_DESK_TOOLS_FIND_SLOTS_AUTHORIZATION', path: 'agents.front-desk.config.tools[0].header.authorization' },
    ]);
    const config = manifest.agents['front-desk']?.config ?? {};
    expect(config.session_data_webhook).toEqual({ url: 'https://hooks.example.com/end', headers: { 'x-hook-token': '${env:FRONT_DESK_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN}' } });
    expect(result.manifest).toContain('#   FRONT_DESK_TOOLS_FIND_SLOTS_AUTHORIZATION  (agents.front-desk.config.tools[0].header.authorization)');
  });

  test('query values and user info of URLs become ${env:…} references too, as written (still encoded)', () => {
    const withUrls = agent('ag_3', 'Hooks', {
      session_data_webhook: { url: 'https://hooks.example.com/end?token=q%2Bsecret-1&mode=full&flag', headers: {} },
      extra_prompt_webhook: { url: 'https://bot:p%40ss-secret-2@hooks.example.com/pre' },
      tools: [{ name: 'lookup', webhook: 'https://tok-secret-3@api.example.com/find#frag' }],
      first_message: 'See https://example.com/?a=b for more',
    });
    const out = buildExport({ agents: [withUrls], phones: [], command: 'voxform export --agent ag_3' });
    for (const secret of ['q%2Bsecret-1', 'bot:', 'p%40ss-secret-2', 'tok-secret-3', 'full']) expect(out.manifest).not.toContain(secret);
    const config = (parse(out.manifest) as { agents: Record<string, { config: Record<string, { url?: string; webhook?: string }> }> }).agents.hooks?.config ?? {};
    expect(config.session_data_webhook?.url).toBe('https://hooks.example.com/end?token=${env:HOOKS_SESSION_DATA_WEBHOOK_URL_TOKEN}&mode=${env:HOOKS_SESSION_DATA_WEBHOOK_URL_MODE}&flag');
    expect(config.extra_prompt_webhook?.url).toBe('https://${env:HOOKS_EXTRA_PROMPT_WEBHOOK_URL_USER}:${env:HOOKS_EXTRA_PROMPT_WEBHOOK_URL_PASSWORD}@hooks.example.com/pre');
    expect(out.secrets.map((s) => s.name)).toEqual([
      'HOOKS_SESSION_DATA_WEBHOOK_URL_TOKEN',
      'HOOKS_SESSION_DATA_WEBHOOK_URL_MODE',
      'HOOKS_EXTRA_PROMPT_WEBHOOK_URL_USER',
      'HOOKS_EXTRA_PROMPT_WEBHOOK_URL_PASSWORD',
      'HOOKS_TOOLS_LOOKUP_WEBHOOK_USER',
    ]);
    // `full` and `bot` are too short to hide in text: the first plan warns of them (env_value_short), so export says so up front.
    expect(out.secrets.filter((secret) => secret.short).map((secret) => secret.name)).toEqual(['HOOKS_SESSION_DATA_WEBHOOK_URL_MODE', 'HOOKS_EXTRA_PROMPT_WEBHOOK_URL_USER']);
    expect(out.secrets[0]?.path).toBe('agents.hooks.config.session_data_webhook.url (token in the URL)');
    expect(out.manifest).toContain('#   HOOKS_SESSION_DATA_WEBHOOK_URL_TOKEN  (agents.hooks.config.session_data_webhook.url (token in the URL))');
    // A sentence with a URL in it is text, not a URL.
    expect(out.manifest).toContain('See https://example.com/?a=b for more');
  });

  test('the user name of a URL is a secret as much as its password: both become references (docs/security.md §5)', () => {
    const withUsers = agent('ag_4', 'Users', {
      tools: [
        { name: 'empty_password', webhook: 'https://sk_live_abcdef123456:@api.example.com/t' },
        { name: 'key_as_user', webhook: 'https://apikey-9f8e7d6c5b:x@host.example.com/a' },
        { name: 'at_in_user', webhook: 'https://a@b:SECRETPW@host.example.com/b' },
      ],
    });
    const out = buildExport({ agents: [withUsers], phones: [], command: 'voxform export --agent ag_4' });
    for (const secret of ['sk_live_abcdef123456', 'apikey-9f8e7d6c5b', 'a@b', 'SECRETPW']) expect(out.manifest).not.toContain(secret);
    const tools = configOf(out, 'users').tools as Array<{ webhook: string }>;
    expect(tools.map((tool) => tool.webhook)).toEqual([
      'https://${env:USERS_TOOLS_EMPTY_PASSWORD_WEBHOOK_USER}:${env:USERS_TOOLS_EMPTY_PASSWORD_WEBHOOK_PASSWORD}@api.example.com/t',
      'https://${env:USERS_TOOLS_KEY_AS_USER_WEBHOOK_USER}:${env:USERS_TOOLS_KEY_AS_USER_WEBHOOK_PASSWORD}@host.example.com/a',
      'https://${env:USERS_TOOLS_AT_IN_USER_WEBHOOK_USER}:${env:USERS_TOOLS_AT_IN_USER_WEBHOOK_PASSWORD}@host.example.com/b',
    ]);
    expect(out.secrets.find((secret) => secret.name === 'USERS_TOOLS_KEY_AS_USER_WEBHOOK_USER')?.path).toBe('agents.users.config.tools[1].webhook (user in the URL)');
  });

  test('a value export makes a reference of is that reference wherever else it stands, a short one only as a whole value', () => {
    const shared = agent('ag_5', 'Shared', {
      prompt: 'Send tok-SHARED-123456 as the token.',
      first_message: 'Your code is tok-SHARED-123456.',
      voice: { voice_id: 'rachel', settings: { note: 'key QUERYSECRET99 here', mode: 'acme', label: 'acme corp' } },
      session_data_webhook: { url: 'https://hooks.example.com/end?key=QUERYSECRET99', headers: { 'x-org': 'acme' } },
      tools: [{ name: 'find', webhook: 'https://api.example.com/find', header: { authorization: 'tok-SHARED-123456' } }],
    });
    const other = agent('ag_6', 'Other', { first_message: 'Also tok-SHARED-123456 here' });
    const out = buildExport({ agents: [shared, other], phones: [], command: 'voxform export' });
    expect(out.manifest).not.toContain('tok-SHARED-123456');
    expect(out.manifest).not.toContain('QUERYSECRET99');
    expect(out.prompts).toEqual([]);
    const config = configOf(out, 'shared');
    expect(config.prompt).toBe('Send ${env:SHARED_TOOLS_FIND_AUTHORIZATION} as the token.');
    expect(config.first_message).toBe('Your code is ${env:SHARED_TOOLS_FIND_AUTHORIZATION}.');
    // `acme` is under 6 characters: searched for only where it is the whole value, as the plan does.
    expect((config.voice as { settings: unknown }).settings).toEqual({
      note: 'key ${env:SHARED_SESSION_DATA_WEBHOOK_URL_KEY} here',
      mode: '${env:SHARED_SESSION_DATA_WEBHOOK_X_ORG}',
      label: 'acme corp',
    });
    expect(configOf(out, 'other').first_message).toBe('Also ${env:SHARED_TOOLS_FIND_AUTHORIZATION} here');
    expect(out.secrets.map((secret) => secret.name)).toEqual(['SHARED_SESSION_DATA_WEBHOOK_URL_KEY', 'SHARED_SESSION_DATA_WEBHOOK_X_ORG', 'SHARED_TOOLS_FIND_AUTHORIZATION']);
    // These are secrets to set, not values an apply took from the environment.
    expect(out.references).toEqual([]);
  });

  test('a __proto__ key of a free-form map stays an own key, and its header reads the variable listed (docs/security.md §3)', () => {
    const config = JSON.parse(
      '{"custom_vocabulary":{"keywords":{"__proto__":2,"other":1}},"voice":{"voice_id":"rachel","settings":{"__proto__":"x"}},' +
        '"tools":[{"name":"find","header":{"__proto__":"proto-header-secret-1","authorization":"tok-abcdef-1"}}]}',
    ) as Record<string, unknown>;
    const out = buildExport({ agents: [agent('ag_7', 'Proto', config)], phones: [], command: 'voxform export' });
    expect(out.manifest).not.toContain('proto-header-secret-1');
    const written = configOf(out, 'proto') as { custom_vocabulary: object; voice: { settings: object }; tools: Array<{ header: object }> };
    expect(Object.entries((written.custom_vocabulary as { keywords: object }).keywords)).toEqual([['__proto__', 2], ['other', 1]]);
    expect(Object.entries(written.voice.settings)).toEqual([['__proto__', 'x']]);
    expect(Object.entries(written.tools[0]?.header ?? {})).toEqual([
      ['__proto__', '${env:PROTO_TOOLS_FIND_PROTO}'],
      ['authorization', '${env:PROTO_TOOLS_FIND_AUTHORIZATION}'],
    ]);
    expect(out.secrets.map((secret) => secret.name)).toEqual(['PROTO_TOOLS_FIND_PROTO', 'PROTO_TOOLS_FIND_AUTHORIZATION']);
  });

  test('text that looks like a reference is escaped, so it loads back as written', () => {
    expect(manifest.agents['front-desk']?.config.first_message).toBe('Hello, costs are $${env:NOT_A_REF} today');
  });

  test('prompts go to prompts/<name>.md with one final newline (the loader drops it); CRLF prompts stay inline', () => {
    expect(result.prompts).toEqual([{ path: 'prompts/front-desk.md', content: 'You are Ava.\nBe brief.\n' }]);
    expect(manifest.agents['front-desk']?.config.prompt).toEqual({ file: 'prompts/front-desk.md' });
    expect(result.manifest).toContain('prompt: { file: prompts/front-desk.md }');
    expect(manifest.agents['front-desk-2']?.config.prompt).toBe('Line one\r\nLine two');
  });

  test('phone bindings of exported agents, by local name; others left out; non-E.164 reported', () => {
    expect(manifest.phones).toEqual({ '+15551230001': { agent: 'front-desk' } });
    expect(result.phones).toEqual(['+15551230001']);
    expect(result.skippedPhones).toEqual(['sip:desk@example.com']);
  });

  test('a name or message holding a character a reader cannot see is written escaped, as fmt writes it', () => {
    const out = buildExport({ agents: [agent('ag_h', 'Desk', { first_message: 'Hi\u202e there\u200b' })], phones: [], command: 'voxform export' });
    expect(out.manifest).not.toMatch(/[\u202e\u200b]/u);
    expect(out.manifest).toContain('first_message: "Hi\\u202e there\\u200b"');
    expect(configOf(out, 'desk').first_message).toBe('Hi\u202e there\u200b');
    expect(formatManifest(out.manifest, 'voxform.yaml').changed).toBe(false);
  });

  test.each([null, 5, undefined])('an agent whose name the service sent as %s is exported as one without a name', (name) => {
    const out = buildExport({ agents: [{ ...agent('ag_n', '', { prompt: 'Hi' }), name } as unknown as Agent], phones: [], command: 'voxform export' });
    const exported = parse(out.manifest) as { agents: Record<string, { id: string; name?: unknown }> };
    expect(exported.agents.agent).toMatchObject({ id: 'ag_n' });
    expect(exported.agents.agent).not.toHaveProperty('name');
    expect(validateAgainst('Manifest', exported)).toEqual([]);
  });

  test('an EU export says so', () => {
    const eu = buildExport({ agents: [twin], phones: [], region: 'eu', command: 'voxform export' });
    expect(parse(eu.manifest)).toMatchObject({ version: 1, region: 'eu' });
    expect(eu.manifest).not.toContain('phones:');
  });
});

/** What the loader reads from a string the export wrote (src/manifest/interpolate.ts), references left unresolved. */
function loadBack(text: string): string {
  const diagnostics = new DiagnosticList();
  const seen = new Set<string>();
  const value = interpolateString(text, undefined, { env: new Proxy({}, { get: (_t, name) => (seen.add(String(name)), undefined) }), diagnostics, onSecret: () => undefined }).value;
  expect(seen).toEqual(new Set());
  return value;
}

function configOf(out: ReturnType<typeof buildExport>, local: string): Record<string, unknown> {
  return (parse(out.manifest) as { agents: Record<string, { config: Record<string, unknown> }> }).agents[local]?.config ?? {};
}

describe('buildExport: values that must load back as they are live', () => {
  test.each([
    'cost is ${env:PRICE',
    'cost is $${env:PRICE',
    'Costs: $${env:X} and ${env:Y}',
    'a ${env:A${env:B} b',
    '$$${env:X}}',
    '${env:} and ${env:PRICE:-1}',
    'no reference here {env:X}',
  ])('text %j', (text) => {
    const out = buildExport({ agents: [agent('ag_t', 'T', { first_message: text })], phones: [], command: 'voxform export' });
    expect(loadBack(configOf(out, 't').first_message as string)).toBe(text);
  });

  test('a URL with a secret and reference-like text becomes one reference, holding the whole URL', () => {
    const url = 'https://h.example.com/${env:a?x=1}&t=2';
    const out = buildExport({ agents: [agent('ag_u', 'U', { session_data_webhook: { url } })], phones: [], command: 'voxform export' });
    expect(out.manifest).not.toContain('t=2');
    expect(configOf(out, 'u').session_data_webhook).toEqual({ url: '${env:U_SESSION_DATA_WEBHOOK_URL}' });
    expect(out.secrets).toEqual([{ name: 'U_SESSION_DATA_WEBHOOK_URL', path: 'agents.u.config.session_data_webhook.url' }]);
  });

  test('a prompt that a file would not keep exactly (a byte-order mark, a lone surrogate) stays inline', () => {
    for (const prompt of ['\ufeffHello BOM prompt', 'half a pair: \ud800 here']) {
      const out = buildExport({ agents: [agent('ag_p', 'P', { prompt })], phones: [], command: 'voxform export' });
      expect(out.prompts).toEqual([]);
      expect(configOf(out, 'p').prompt).toBe(prompt);
    }
  });

  test('secrets that are not text are never written: the field holding them is left out and noted', () => {
    const crm = agent('ag_c', 'CRM desk', {
      first_message: 'Hi',
      app_functions: [{ name: 'crm', credentials: { api_key: 'crm-live-1', pin: 987654, deep: { on: true, list: [31337] } } }],
      session_data_webhook: { url: 'https://hooks.example.com/end', headers: { 'x-num': 4242424, 'x-token': 'hook-live-2' } },
      tools: [{ name: 'find', header: { authorization: 'tool-live-3' } }],
    });
    const out = buildExport({ agents: [crm], phones: [], command: 'voxform export' });
    for (const secret of ['crm-live-1', '987654', 'true', '31337', '4242424', 'hook-live-2', 'tool-live-3']) expect(out.manifest).not.toContain(secret);
    const config = configOf(out, 'crm-desk');
    expect(config).not.toHaveProperty('app_functions');
    expect(config.session_data_webhook).toEqual({ url: 'https://hooks.example.com/end' });
    expect(config.tools).toEqual([{ name: 'find', header: { authorization: '${env:CRM_DESK_TOOLS_FIND_AUTHORIZATION}' } }]);
    expect(out.withheld.get('crm-desk')).toEqual([
      { field: 'app_functions', places: ['app_functions[0].credentials.pin', 'app_functions[0].credentials.deep.on', 'app_functions[0].credentials.deep.list[0]'] },
      { field: 'session_data_webhook.headers', places: ['session_data_webhook.headers["x-num"]'] },
    ]);
    expect(out.manifest).toContain('  # not managed here: app_functions holds secrets that are not text (app_functions[0].credentials.pin, ');
    expect(out.secrets.map((s) => s.name)).toEqual(['CRM_DESK_TOOLS_FIND_AUTHORIZATION']);
    expect(validateAgainst('Manifest', parse(out.manifest))).toEqual([]);
  });

  test('variable names are ones the loader reads: never VOXFORM_*', () => {
    const demo = agent('ag_v', 'Voxform demo', { session_data_webhook: { url: 'https://h.example.com/end?token=t1', headers: { 'x-hook-token': 'hook-live-4' } } });
    const out = buildExport({ agents: [demo], phones: [], command: 'voxform export' });
    expect(out.secrets.map((s) => s.name)).toEqual(['AGENT_VOXFORM_DEMO_SESSION_DATA_WEBHOOK_URL_TOKEN', 'AGENT_VOXFORM_DEMO_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN']);
    for (const { name } of out.secrets) expect(envPolicyOf({}).check(name)).toBe('allowed');
  });
});

describe('buildExport: values an apply took from the environment are never written in clear', () => {
  const PROMO = 'planted-promo-777';
  /**
   * The trusted evidence of an operator whose environment holds the values, with a deploy ledger; an
   * earlier apply (of another agent) read each variable of `read`, by default every one set here.
   */
  function deployed(env: Record<string, string>, ledger: Record<string, string[]> = {}, names: Record<string, string> = {}, read = Object.keys(env)): TrustedSecrets {
    const trusted = new TrustedSecrets(env, new SecretRegistry(), 'service');
    const ids = [...new Set([...Object.keys(ledger), ...Object.keys(names)])];
    const earlier = { id: 'ag_earlier', maskedPaths: ['first_message'], config: { first_message: read.map((name) => `\${env:${name}}`).join(' ') } };
    trusted.noteLedger([{ agents: { ...Object.fromEntries(ids.map((id) => [id, { id, name: names[id], maskedPaths: ledger[id] ?? [] }])), earlier } }]);
    return trusted;
  }
  /** What the exported text loads as, with `env`. */
  function loadWith(text: string, env: Record<string, string>): string {
    return interpolateString(text, undefined, { env, diagnostics: new DiagnosticList(), onSecret: () => undefined }).value;
  }

  test('a value of a variable set here becomes the reference that put it there, in the config, the prompt and the name', () => {
    const promo = agent('ag_p', `Promo ${PROMO}`, { prompt: `Offer ${PROMO} to callers.`, first_message: `Hello, use code ${PROMO} today, not \${env:X}.` });
    const env = { PROMO_CODE: PROMO };
    const out = buildExport({ agents: [promo], phones: [], command: 'voxform export', deployed: deployed(env) });
    expect(out.manifest).not.toContain(PROMO);
    // A prompt file is not interpolated: the prompt stays inline, as a reference.
    expect(out.prompts).toEqual([]);
    const config = configOf(out, 'promo-promo-code');
    expect(config.first_message).toBe('Hello, use code ${env:PROMO_CODE} today, not $${env:X}.');
    expect(loadWith(config.first_message as string, env)).toBe(promo.config?.first_message);
    expect(loadWith(config.prompt as string, env)).toBe(`Offer ${PROMO} to callers.`);
    expect((parse(out.manifest) as { agents: Record<string, { name: string }> }).agents['promo-promo-code']?.name).toBe('Promo ${env:PROMO_CODE}');
    expect(out.references).toEqual([
      { name: 'PROMO_CODE', path: 'agents.promo-promo-code.config.prompt' },
      { name: 'PROMO_CODE', path: 'agents.promo-promo-code.config.first_message' },
      { name: 'PROMO_CODE', path: 'agents.promo-promo-code.name' },
    ]);
    expect(out.secrets).toEqual([]);
    expect(out.manifest).toContain('#   PROMO_CODE  (agents.promo-promo-code.config.first_message)');
  });

  test('a value of a variable set here that no apply read (the ledger names it nowhere) is written as it is, never as a reference', () => {
    const local = agent('ag_t', 'Local', { timezone: 'America/Chicago', language: 'en-US', first_message: 'yes' });
    const env = { TZ: 'America/Chicago', LANGUAGE: 'en-US', IS_SANDBOX: 'yes' };
    const out = buildExport({ agents: [local], phones: [], command: 'voxform export', deployed: deployed(env, {}, {}, []) });
    expect(configOf(out, 'local')).toMatchObject({ timezone: 'America/Chicago', language: 'en-US', first_message: 'yes' });
    expect(out.references).toEqual([]);
    expect(out.manifest).not.toContain('${env:');
    // Once an apply read TZ, its value is the reference that put it there.
    const applied = buildExport({ agents: [local], phones: [], command: 'voxform export', deployed: deployed(env, {}, {}, ['TZ']) });
    expect(configOf(applied, 'local')).toMatchObject({ timezone: '${env:TZ}', language: 'en-US', first_message: 'yes' });
  });

  test('reference-like text that would run into a written-back value: the whole text is one reference, named after its place', () => {
    const promo = agent('ag_r', 'Run', { first_message: `a \${env:${PROMO}` });
    const out = buildExport({ agents: [promo], phones: [], command: 'voxform export', deployed: deployed({ PROMO_CODE: PROMO }) });
    expect(out.manifest).not.toContain(PROMO);
    expect(configOf(out, 'run').first_message).toBe('${env:RUN_FIRST_MESSAGE}');
    expect(out.references).toEqual([]);
  });

  test('a secret place whose value is a variable set here reads it again under its own name', () => {
    const hook = agent('ag_h', 'Hook', { session_data_webhook: { url: `https://hooks.example.com/${PROMO}/end?token=tok-123456&mode=full`, headers: { 'x-hook-token': 'hook-token-4711' } } });
    const env = { HOOK_TOKEN: 'hook-token-4711', URL_TOKEN: 'tok-123456', PROMO_CODE: PROMO };
    const out = buildExport({ agents: [hook], phones: [], command: 'voxform export', deployed: deployed(env) });
    for (const value of Object.values(env)) expect(out.manifest).not.toContain(value);
    expect(configOf(out, 'hook').session_data_webhook).toEqual({
      url: 'https://hooks.example.com/${env:PROMO_CODE}/end?token=${env:URL_TOKEN}&mode=${env:HOOK_SESSION_DATA_WEBHOOK_URL_MODE}',
      headers: { 'x-hook-token': '${env:HOOK_TOKEN}' },
    });
    expect(out.secrets.map((s) => s.name)).toEqual(['HOOK_SESSION_DATA_WEBHOOK_URL_MODE']);
  });

  test('a value that runs from one part of a URL into the next: the whole URL is one reference', () => {
    const spanning = 'end?token=abc';
    const hook = agent('ag_s', 'Span', { session_data_webhook: { url: `https://hooks.example.com/${spanning}123` } });
    const out = buildExport({ agents: [hook], phones: [], command: 'voxform export', deployed: deployed({ SPANNING: spanning }) });
    expect(out.manifest).not.toContain('end?token');
    expect(configOf(out, 'span').session_data_webhook).toEqual({ url: '${env:SPAN_SESSION_DATA_WEBHOOK_URL}' });
  });

  test('a place the deploy ledger recorded, whose variable is not set here: a reference named after the place, listed to set', () => {
    const promo = agent('ag_l', 'Ledger', { prompt: `Offer ${PROMO}.`, first_message: `Use ${PROMO} today.`, language: 'en-US' });
    const out = buildExport({ agents: [promo], phones: [], command: 'voxform export', deployed: deployed({}, { ag_l: ['prompt', 'first_message'] }) });
    expect(out.manifest).not.toContain(PROMO);
    expect(out.prompts).toEqual([]);
    const config = configOf(out, 'ledger');
    expect([config.prompt, config.first_message, config.language]).toEqual(['${env:LEDGER_PROMPT}', '${env:LEDGER_FIRST_MESSAGE}', 'en-US']);
    expect(out.secrets).toEqual([
      { name: 'LEDGER_PROMPT', path: 'agents.ledger.config.prompt' },
      { name: 'LEDGER_FIRST_MESSAGE', path: 'agents.ledger.config.first_message' },
    ]);
  });

  test('a name the ledger recorded as filled from the environment, its variable not set here: a reference, and nothing named after its value', () => {
    const staging = agent('ag_n', `Staging ${PROMO}`, {
      prompt: 'You are Ava.',
      tools: [{ name: `lookup-${PROMO}`, webhook: 'https://x.test', header: { authorization: 'tool-token-1' } }],
      session_data_webhook: { url: 'https://h.example.com/end', headers: { 'x-hook-token': 'hook-token-1' } },
    });
    const trusted = deployed({}, { ag_n: ['tools.0.name'] }, { ag_n: 'Staging ${env:PROMO}' });
    const phones = [{ id: '+15551230001', agent_id: 'ag_n' } as Phone];
    const out = buildExport({ agents: [staging], phones, command: 'voxform export', deployed: trusted });
    expect(JSON.stringify(out)).not.toContain('planted');
    expect(out.localNames.get('ag_n')).toBe('agent-ag-n');
    expect((parse(out.manifest) as { agents: Record<string, { name: string }> }).agents['agent-ag-n']?.name).toBe('${env:AGENT_AG_N_NAME}');
    expect(out.prompts.map((p) => p.path)).toEqual(['prompts/agent-ag-n.md']);
    expect(out.secrets.map((s) => s.name)).toEqual(['AGENT_AG_N_TOOLS_0_NAME', 'AGENT_AG_N_TOOLS_0_AUTHORIZATION', 'AGENT_AG_N_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN', 'AGENT_AG_N_NAME']);
  });

  test('two variables holding one value: each place is written as the reference the ledger recorded there, the latest apply first; else the first by name', () => {
    const TOKEN = 'planted-secret-123456';
    const hooks = agent('ag_2', `Sales ${TOKEN}`, {
      session_data_webhook: { url: 'https://h.example.com/end', headers: { 'x-hook-token': TOKEN } },
      extra_prompt_webhook: { url: 'https://h.example.com/pre', headers: { authorization: `Bearer ${TOKEN}` } },
      first_message: `Code ${TOKEN}.`,
    });
    const env = { HOOK_TOKEN: TOKEN, SALES_X_HOOK_TOKEN: TOKEN };
    const applied = (token: string, authorization: string) => ({
      agents: {
        ag_2: {
          id: 'ag_2',
          name: 'Sales ${env:SALES_X_HOOK_TOKEN}',
          maskedPaths: ['session_data_webhook.headers.x-hook-token', 'extra_prompt_webhook.headers.authorization'],
          config: { session_data_webhook: { headers: { 'x-hook-token': token } }, extra_prompt_webhook: { headers: { authorization: authorization } } },
        },
        // Another apply read both variables, in a place of this agent the ledger did not record: nothing settles it there.
        earlier: { id: 'ag_earlier', maskedPaths: ['first_message'], config: { first_message: '${env:SALES_X_HOOK_TOKEN} ${env:HOOK_TOKEN}' } },
      },
    });
    const trusted = new TrustedSecrets(env, new SecretRegistry(), 'service');
    // The applies read SALES_X_HOOK_TOKEN for the header, then HOOK_TOKEN, then SALES_X_HOOK_TOKEN again: the latest decides.
    const sales = applied('${env:SALES_X_HOOK_TOKEN}', 'Bearer ${env:HOOK_TOKEN}');
    trusted.noteLedger([sales, applied('${env:HOOK_TOKEN}', 'Bearer ${env:HOOK_TOKEN}'), sales]);
    const out = buildExport({ agents: [hooks], phones: [], command: 'voxform export', deployed: trusted });
    expect(out.manifest).not.toContain(TOKEN);
    const config = configOf(out, 'sales-sales-x-hook-token');
    expect(config.session_data_webhook).toEqual({ url: 'https://h.example.com/end', headers: { 'x-hook-token': '${env:SALES_X_HOOK_TOKEN}' } });
    expect(config.extra_prompt_webhook).toEqual({ url: 'https://h.example.com/pre', headers: { authorization: 'Bearer ${env:HOOK_TOKEN}' } });
    expect(config.first_message).toBe('Code ${env:HOOK_TOKEN}.');
    expect((parse(out.manifest) as { agents: Record<string, { name: string }> }).agents['sales-sales-x-hook-token']?.name).toBe('Sales ${env:SALES_X_HOOK_TOKEN}');
  });

  test('a name the ledger recorded as filled from the environment, its variable set here: written as it was applied', () => {
    const staging = agent('ag_n', `Staging ${PROMO}`, { prompt: 'You are Ava.' });
    const asApplied = buildExport({ agents: [staging], phones: [], command: 'voxform export', deployed: deployed({ PROMO }, {}, { ag_n: 'Staging ${env:PROMO}' }) });
    expect((parse(asApplied.manifest) as { agents: Record<string, { name: string }> }).agents['staging-promo']?.name).toBe('Staging ${env:PROMO}');
    // Under another name than the apply read, part of the name could be a value no variable here holds.
    const other = buildExport({ agents: [staging], phones: [], command: 'voxform export', deployed: deployed({ OTHER: PROMO }, {}, { ag_n: 'Staging ${env:PROMO}' }) });
    expect(other.localNames.get('ag_n')).toBe('agent-ag-n');
  });
});

describe('isExportComment', () => {
  test('takes the line export writes for a secret of a URL part, which ends in its own parenthesis', () => {
    expect(isExportComment('AGENTS_A_TOOLS_0_URL_QUERY  (agents.a.config.tools[0].url (query in the URL))')).toBe(true);
    expect(isExportComment('TOKEN  (agents.a.config.session_data_webhook.headers.x-token)')).toBe(true);
    expect(isExportComment('a comment someone wrote (agents.a)')).toBe(false);
  });
});
