/** Every built-in rule: a manifest it flags and one it does not (the pack's rules, table-driven). */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_RULES } from '../../src/policy/rules/index.js';
import { EMAIL, passesLuhn } from '../../src/policy/rules/personal-data.js';
import { MARKDOWN } from '../../src/policy/rules/speech.js';
import { useTempDirs } from '../helpers/cli.js';
import { oneAgent, policyOf } from './helpers.js';

const tempDir = useTempDirs();

const TOOL = (extra: string) => `tools:\n  - name: lookup\n    description: Looks up an order by its number.\n    webhook: https://api.example.com/orders\n    header: { authorization: "Bearer \${env:TOOL_TOKEN:-tool-token-123}" }\n${extra}`;
const HOOK = 'session_data_webhook: { url: "https://hooks.example.com/end", headers: { authorization: "Bearer ${env:HOOK:-hook-token-123}" } }';
const CAMPAIGN = `phones:\n  "+15551230001": { agent: a }\ncampaigns:\n  c: { id: cmp_1, name: Recall, caller: "+15551230001" }\n`;
const LONG_PROMPT = Array.from({ length: 4_200 }, (_, i) => `word${i % 10}`).join(' ');

type Fixture = Record<string, string>;
const manifest = (config: string, rest = ''): Fixture => ({ 'voxform.yaml': oneAgent(config, rest) });

const CASES: Array<{ rule: string; flagged: Fixture; clean: Fixture }> = [
  { rule: 'pii-phone-number', flagged: manifest('first_message: Call Jane on 555-201-3344 anytime.'), clean: manifest('first_message: Call us anytime.') },
  { rule: 'pii-email-address', flagged: manifest('prompt: Write to jane.doe@example.com when asked.'), clean: manifest('prompt: Offer to send details by text message.') },
  { rule: 'pii-card-number', flagged: manifest('prompt: "The card on file is 4111 1111 1111 1111."'), clean: manifest('prompt: "Order 4111 1111 1111 1112 shipped."') },
  { rule: 'pii-national-id', flagged: manifest('prompt: "The patient SSN is 123-45-6789."'), clean: manifest('prompt: "Ticket 000-12-3456 is open."') },
  { rule: 'speech-markdown', flagged: manifest('first_message: "Hi, **welcome** to Acme!"'), clean: manifest('first_message: Hi, welcome to Acme!') },
  { rule: 'speech-url', flagged: manifest('first_message: Visit https://acme.example today.'), clean: manifest('first_message: Visit our website today.') },
  { rule: 'speech-emoji', flagged: manifest('first_message: "Hi there 👋"'), clean: manifest('first_message: Hi there.') },
  { rule: 'speech-symbols', flagged: manifest('first_message: "Welcome to Smith & Sons."'), clean: manifest('first_message: Welcome to Smith and Sons.') },
  { rule: 'speech-abbreviations', flagged: manifest('first_message: We can book a check-up, e.g. on Monday.'), clean: manifest('first_message: We can book a check-up, for example on Monday.') },
  {
    rule: 'speech-first-message-length',
    flagged: manifest(`first_message: ${Array.from({ length: 31 }, () => 'hello').join(' ')}`),
    clean: manifest('first_message: Thanks for calling Acme Dental, this is Ava. How can I help?'),
  },
  {
    rule: 'security-plain-http',
    flagged: manifest('session_data_webhook: { url: "http://hooks.example.com/end", headers: { authorization: "${env:HOOK:-hook-token-123}" } }'),
    clean: manifest('session_data_webhook: { url: "http://127.0.0.1:8080/end", headers: { authorization: "${env:HOOK:-hook-token-123}" } }'),
  },
  {
    rule: 'security-literal-credential',
    flagged: manifest('session_data_webhook: { url: "https://hooks.example.com/end", headers: { x-hook-token: "literal-token-123" } }'),
    clean: manifest(HOOK),
  },
  { rule: 'security-url-credential', flagged: manifest(TOOL('').replace('/orders', '/orders?api_key=abc')), clean: manifest(TOOL('').replace('/orders', '/orders?day=1')) },
  { rule: 'security-webhook-auth', flagged: manifest('session_data_webhook: https://hooks.example.com/end'), clean: manifest(HOOK) },
  { rule: 'security-tool-auth', flagged: manifest(TOOL('').replace(/ {4}header: .*\n/, '')), clean: manifest(TOOL('')) },
  {
    rule: 'behaviour-transfer-target',
    flagged: manifest('prompt: If the caller asks for a person, transfer them.'),
    clean: manifest('prompt: If the caller asks for a person, transfer them.\nflow: { call_transfer: { phone: "+15551239999" } }'),
  },
  { rule: 'behaviour-tool-description', flagged: manifest(TOOL('').replace(/ {4}description: .*\n/, '')), clean: manifest(TOOL('')) },
  {
    rule: 'behaviour-parameter-description',
    flagged: manifest(TOOL('    params: [{ name: order, type: string, required: true }]')),
    clean: manifest(TOOL('    params: [{ name: order, type: string, required: true, description: "The order number" }]')),
  },
  { rule: 'behaviour-empty-prompt', flagged: manifest('prompt: "   "'), clean: manifest('prompt: Be brief and kind.') },
  { rule: 'behaviour-temperature', flagged: manifest('llm: { temperature: 1.4 }'), clean: manifest('llm: { temperature: 0.4 }') },
  { rule: 'behaviour-response-delay', flagged: manifest('flow: { response_delay: 3000 }'), clean: manifest('flow: { response_delay: 300 }') },
  { rule: 'behaviour-max-duration', flagged: manifest('session_timeout: { max_duration: 30000 }'), clean: manifest('session_timeout: { max_duration: 900000 }') },
  { rule: 'behaviour-idle-time', flagged: manifest('flow: { inactivity_handling: { idle_time: 1000 } }'), clean: manifest('flow: { inactivity_handling: { idle_time: 10000 } }') },
  { rule: 'behaviour-tool-timeout', flagged: manifest(TOOL('    timeout: 30000')), clean: manifest(TOOL('    timeout: 5000')) },
  { rule: 'campaign-voicemail', flagged: manifest('first_message: Hello.', CAMPAIGN), clean: manifest('flow: { voicemail: { message: Please call us back. Thank you! } }', CAMPAIGN) },
  {
    rule: 'campaign-caller-agent',
    flagged: manifest('first_message: Hello.', 'phones:\n  "+15551230001": {}\ncampaigns:\n  c: { id: cmp_1, name: Recall, caller: "+15551230001" }\n'),
    clean: manifest('flow: { voicemail: { message: Please call us back. } }', CAMPAIGN),
  },
  { rule: 'cost-prompt-tokens', flagged: manifest(`prompt: ${LONG_PROMPT}`), clean: manifest('prompt: Be brief and kind.') },
];

describe('the built-in pack', () => {
  it('has at least 25 rules, each with an id, a level, a summary and a fix hint, and a case below', () => {
    expect(BUILT_IN_RULES.length).toBeGreaterThanOrEqual(25);
    for (const rule of BUILT_IN_RULES) {
      expect(rule.id).toMatch(/^[a-z]+(?:-[a-z0-9]+)+$/);
      expect(['mandatory', 'advisory']).toContain(rule.level);
      expect(rule.summary.length).toBeGreaterThan(10);
      expect(rule.hint.length).toBeGreaterThan(10);
    }
    expect(CASES.map((c) => c.rule).sort()).toEqual(BUILT_IN_RULES.map((rule) => rule.id).sort());
  });

  it.each(CASES)('$rule flags its fixture and not the clean one', async ({ rule, flagged, clean }) => {
    const bad = await policyOf(await tempDir(flagged));
    const found = bad.findings.filter((finding) => finding.rule === rule);
    expect(found, JSON.stringify(bad.findings.map((f) => f.rule))).toHaveLength(1);
    expect(found[0]?.location.file).toBe('voxform.yaml');
    expect(found[0]?.location.line).toBeGreaterThan(1);
    const good = await policyOf(await tempDir(clean));
    expect(good.findings.map((finding) => finding.rule)).not.toContain(rule);
  });
});

describe('places and messages', () => {
  it('points a finding in a prompt file at its line and column there', async () => {
    const dir = await tempDir({
      'voxform.yaml': oneAgent('prompt: { file: prompts/a.md }'),
      'prompts/a.md': 'You are kind.\r\n\r\nFor records, call 555-201-3344.\r\n',
    });
    const [finding] = (await policyOf(dir)).findings;
    expect(finding).toMatchObject({ rule: 'pii-phone-number', resource: 'agent.a', location: { file: 'prompts/a.md', line: 3, col: 19 } });
  });

  it('checks an agent with more spoken texts than a call takes arguments, and finds personal data in the last', async () => {
    const messages = Array.from({ length: 150_000 }, (_, i) => `      - Please hold, transfer ${i}.`);
    messages.push('      - Or call 555-201-3344.');
    const dir = await tempDir({ 'voxform.yaml': oneAgent(`prompt: You are kind.\nflow:\n  call_transfer:\n    phone: "+15552000000"\n    messages:\n${messages.join('\n')}`) });
    const findings = (await policyOf(dir)).findings.filter((finding) => finding.rule === 'pii-phone-number');
    expect(findings).toHaveLength(1);
  });

  it('finds personal data in a knowledge file description', async () => {
    const dir = await tempDir({
      'voxform.yaml': 'version: 1\nknowledge:\n  faq: { file: faq.md, description: Ask jane.doe@example.com for prices }\n',
      'faq.md': 'Prices.',
    });
    expect((await policyOf(dir)).findings).toMatchObject([{ rule: 'pii-email-address', resource: 'knowledge.faq', location: { file: 'voxform.yaml', line: 3 } }]);
  });

  it('points a finding in a knowledge file description at the text found, not at the knowledge key', async () => {
    const dir = await tempDir({
      'voxform.yaml': 'version: 1\nknowledge:\n  faq:\n    file: faq.md\n    description: Ask jane.doe@example.com for prices\n  notes:\n    file: faq.md\n    description: >-\n      Ask jane.doe@example.com\n',
      'faq.md': 'Prices.',
    });
    const located = (await policyOf(dir)).findings.map((f) => `${f.resource} ${f.location.file}:${f.location.line}:${f.location.col}`);
    // Written as it reads: the character found; folded: the value.
    expect(located).toEqual(['knowledge.faq voxform.yaml:5:22', 'knowledge.notes voxform.yaml:8:18']);
  });

  it('points a finding in a literal block of a manifest saved with CRLF line ends at the character found, as with LF', async () => {
    const lines = ['version: 1', 'agents:', '  a:', '    id: ag_1', '    config:', '      prompt: |', '        You are kind.', '        For records, call 555-201-3344.', ''];
    const dir = await tempDir({ 'voxform.yaml': lines.join('\r\n') });
    const [finding] = (await policyOf(dir)).findings;
    expect(finding).toMatchObject({ rule: 'pii-phone-number', location: { file: 'voxform.yaml', line: 8, col: 27 } });
  });

  it('a value that is not secret, written as it is in a header and a URL query (as env_value_short advises), breaks no built-in rule', async () => {
    const literal = 'session_data_webhook: { url: "https://hooks.example.com/end?mode=full", headers: { authorization: "Bearer ${env:HOOK:-hook-token-123}", x-env: prod } }';
    const dir = await tempDir({ 'voxform.yaml': oneAgent(literal) });
    expect((await policyOf(dir)).findings).toEqual([]);
  });

  it('never quotes a literal credential or a personal datum', async () => {
    const dir = await tempDir({
      'voxform.yaml': oneAgent('first_message: Call 555-201-3344.\nsession_data_webhook: { url: "https://hooks.example.com/end", headers: { authorization: "literal-secret-9f8e" } }'),
    });
    const text = JSON.stringify((await policyOf(dir)).findings);
    expect(text).toContain('security-literal-credential');
    expect(text).not.toContain('literal-secret-9f8e');
    expect(text).not.toContain('201-3344');
  });

  it.each([
    ['pii-card-number', 'Card 4111\u00a01111\u00a01111\u00a01111 on file.'],
    ['pii-card-number', 'Card 4111\u20071111\u20071111\u20071111 on file.'],
    ['pii-card-number', 'Card 4111\u20131111\u20131111\u20131111 on file.'],
    ['pii-phone-number', 'Call (555) 123\u20114567 anytime.'],
    ['pii-phone-number', 'Call 555\u2013123\u20134567 anytime.'],
    ['pii-national-id', 'SSN 123\u201145\u20116789 on file.'],
  ])('%s finds a number grouped as pasted from a document: %j', async (rule, text) => {
    const report = await policyOf(await tempDir(manifest(`first_message: ${JSON.stringify(text)}`)));
    expect(report.findings.map((finding) => finding.rule)).toContain(rule);
  });

  it.each([
    ['Test card: 4111 1111 1111 1111 123', 1],
    ['Card 4111 1111 1111 1111 12/28.', 1],
    ['Table 7 4111111111111111 ok.', 1],
    ['Cards 4111 1111 1111 1111 and 5555-5555-5555-4444 on file.', 2],
    ['Order 41111111111111111234 shipped.', 0],
    ['Order 4111 1111 1111 1112 123 shipped.', 0],
  ])('pii-card-number finds a card number among other digits only at its groups\' edges: %j → %i', async (text, count) => {
    const report = await policyOf(await tempDir(manifest(`prompt: ${JSON.stringify(text)}`)));
    const cards = report.findings.filter((finding) => finding.rule === 'pii-card-number');
    expect(cards.map((finding) => finding.message)).toEqual(count === 0 ? [] : [`prompt holds ${count === 1 ? 'a payment card number' : `${count} payment card numbers`}`]);
  });

  it.each([
    ['Hello from 🇺🇸, press 1️⃣ or #️⃣.', 'first_message holds 3 emoji'],
    ['Hi 👋🏽 from the 👨‍👩‍👧 team ❤️', 'first_message holds 3 emoji'],
    ['Acme™ © ® 2024', undefined],
  ])('speech-emoji counts each emoji as drawn, and no symbol written as text: %j', async (text, message) => {
    const report = await policyOf(await tempDir(manifest(`first_message: ${JSON.stringify(text)}`)));
    expect(report.findings.filter((finding) => finding.rule === 'speech-emoji').map((finding) => finding.message)).toEqual(message === undefined ? [] : [message]);
  });

  it('a header is a credential header by the words of its name, not by letters inside a word', async () => {
    const hook = (headers: string) => `      session_data_webhook: { url: "https://hooks.example.com/end", headers: { ${headers} } }`;
    const manifest = [
      'version: 1',
      'agents:',
      '  a:',
      '    id: ag_a',
      '    config:',
      hook('x-keyword: hello, x-author: bob, x-authors: bo, x-api-key: k1, X-Hook-Token: t1, x_client_secret: s1, Cookie: c1, X-AccessToken: a1'),
      '  b:',
      '    id: ag_b',
      '    config:',
      hook('x-author: "${env:AUTHOR:-bob}"'),
      '',
    ].join('\n');
    const report = await policyOf(await tempDir({ 'voxform.yaml': manifest }));
    const found = report.findings.filter((f) => f.rule.startsWith('security-')).map((f) => `${f.rule} ${f.resource}: ${f.message}`);
    expect(found).toEqual([
      'security-literal-credential agent.a: session_data_webhook header "x-api-key" is written literally instead of read from ${env:…}',
      'security-literal-credential agent.a: session_data_webhook header "X-Hook-Token" is written literally instead of read from ${env:…}',
      'security-literal-credential agent.a: session_data_webhook header "x_client_secret" is written literally instead of read from ${env:…}',
      'security-literal-credential agent.a: session_data_webhook header "Cookie" is written literally instead of read from ${env:…}',
      'security-literal-credential agent.a: session_data_webhook header "X-AccessToken" is written literally instead of read from ${env:…}',
      'security-webhook-auth agent.b: session_data_webhook sends no authentication header: anyone who learns its URL can post to it',
    ]);
  });

  it.each([
    ['pii-email-address', 'Use the image logo@2x.png on the page.', false],
    ['pii-email-address', 'Write to josé@example.com when asked.', true],
    ['pii-phone-number', 'Version 1.234.567.8901 is live.', false],
    ['pii-phone-number', 'Call Dr Lee on 555-201-3344x12 anytime.', true],
  ])('%s in %j: %s', async (rule, text, flagged) => {
    const report = await policyOf(await tempDir(manifest(`prompt: ${JSON.stringify(text)}`)));
    expect(report.findings.some((finding) => finding.rule === rule)).toBe(flagged);
  });

  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['79927398713', true],
  ])('Luhn %s → %s', (digits, passes) => {
    expect(passesLuhn(digits)).toBe(passes);
  });
});

// A pattern that may scan to the end of a run from each of its characters takes time growing with
// the square of the run: a pull request's prompt of one long run would hold CI for hours. Each part
// of these patterns is bounded, so no match (and no attempt) reaches past a short window.
describe('built-in patterns look no further than a short window from where they start', () => {
  const matches = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].map((match) => match[0]);

  it('an e-mail address: at most 64 characters before the @', () => {
    expect(matches(EMAIL, `${'a'.repeat(5_000)}@example.com`)).toEqual([`${'a'.repeat(64)}@example.com`]);
    expect(matches(EMAIL, 'mail jo.doe+x@mail.example.co.uk please')).toEqual(['jo.doe+x@mail.example.co.uk']);
  });

  it('a Markdown link: its text holds no [, and a list item starts on its own line', () => {
    expect(matches(MARKDOWN, `${'['.repeat(5_000)}link](https://x.example)`)).toEqual(['[link](https://x.example)']);
    expect(matches(MARKDOWN, `${'\n'.repeat(5_000)}- item`)).toEqual(['- i']);
    expect(matches(MARKDOWN, 'See [the docs](https://x.example/a) or **call**.')).toEqual(['[the docs](https://x.example/a)', '**call**']);
  });
});
