/** The manifest's policy section: levels, waivers (with an injected day), team rules, operator packs. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RegexTimeBudget, type RegexOutcome } from '../../src/util/safe-regex.js';
import { compileCustomRule } from '../../src/policy/custom-rules.js';
import { RuleCheckBudget } from '../../src/policy/check-budget.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { loadOperatorPacks, POLICY_PACKS_VARIABLE, type OperatorPack } from '../../src/policy/operator-packs.js';
import { readPolicySection } from '../../src/policy/section.js';
import { createTokenCounter } from '../../src/policy/tokens.js';
import type { PolicyReport, PolicySubject } from '../../src/policy/types.js';
import { isVoxformError } from '../../src/errors.js';
import { JSON_PARSE_REFUSED } from '../../src/secrets/error-message.js';
import { loadManifests } from '../../src/manifest/index.js';
import { repoRoot, useTempDirs } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';
import { validate } from '../../src/cli/commands/validate.js';
import { loadState, oneAgent, policyOf, TODAY } from './helpers.js';

const tempDir = useTempDirs();

/** Two agents, each with a phone number in its first message: two findings of one rule. */
const TWO_FINDINGS = `version: 1
agents:
  a: { id: ag_1, config: { first_message: Call 555-201-3344. } }
  b: { id: ag_2, config: { first_message: Call 555-201-3355. } }
`;

function withPolicy(policy: string): string {
  return `${TWO_FINDINGS}policy:\n${policy
    .trim()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')}\n`;
}

/** A pack as a library caller passes it: one rule with this check. */
const pack = (name: string, id: string, check: (subject: PolicySubject) => unknown) => ({ name, rules: [{ id, area: 'operator' as const, level: 'mandatory' as const, summary: id, hint: '', check: check as never }] });

describe('levels', () => {
  it('a level set in the manifest replaces the rule\'s own, and off turns a rule off', async () => {
    const advisory = await policyOf(await tempDir({ 'voxform.yaml': withPolicy('rules: { pii-phone-number: advisory }') }));
    expect(advisory.findings.map((f) => f.level)).toEqual(['advisory', 'advisory']);
    expect(advisory.rules.find((r) => r.id === 'pii-phone-number')).toMatchObject({ level: 'advisory', defaultLevel: 'mandatory', source: { kind: 'manifest', location: { file: 'voxform.yaml', line: 6 } } });
    const off = await policyOf(await tempDir({ 'voxform.yaml': withPolicy('rules: { pii-phone-number: off }') }));
    expect(off.findings).toEqual([]);
  });

  it('an unknown rule id, with an operator pack loaded that does not define it, is a mandatory policy-invalid finding with the likely meant id', async () => {
    const report = await policyOf(await tempDir({ 'voxform.yaml': withPolicy('rules: { pii-phone-numbr: off }') }), { packs: [pack('ops', 'ops-other', () => [])] });
    expect(report.findings.find((f) => f.rule === 'policy-invalid')).toMatchObject({ level: 'mandatory', message: expect.stringContaining('does not exist; did you mean "pii-phone-number"?'), location: { line: 6 } });
  });

  it('an id no built-in or team rule has, with no operator pack loaded, may be a pack\'s: an advisory finding saying no pack loaded defines it', async () => {
    const dir = await tempDir({ 'voxform.yaml': withPolicy('rules: { ops-no-brief: mandatory }\nwaivers:\n  - { rule: ops-no-brief, resource: agent.a, reason: approved, expires: "2099-01-01" }') });
    const report = await policyOf(dir);
    expect(report.findings.filter((f) => f.rule === 'policy-invalid').map((f) => [f.level, f.location.line, f.message])).toEqual([
      ['advisory', 6, 'policy.rules names rule "ops-no-brief", which is no built-in or team rule, and no pack loaded defines it'],
      ['advisory', 8, 'a waiver names rule "ops-no-brief", which is no built-in or team rule, and no pack loaded defines it'],
    ]);
    expect(report.summary.mandatory).toBe(2); // the two phone numbers, nothing of the section
    const withPack = await policyOf(dir, { packs: [pack('ops', 'ops-other', () => [])] });
    expect(withPack.findings.filter((f) => f.rule === 'policy-invalid').map((f) => f.level)).toEqual(['mandatory', 'mandatory']);
  });

  it('the policy section is schema-checked where it is written, and an environment cannot carry one', async () => {
    const dir = await tempDir({ 'voxform.yaml': `${withPolicy('rules: { pii-phone-number: sometimes }')}environments:\n  staging:\n    policy: { rules: { pii-phone-number: off } }\n` });
    const result = await loadManifests({ paths: [], cwd: dir, env: {} });
    expect(result.state).toBeUndefined();
    expect(result.diagnostics.map((d) => d.line)).toEqual([6, 9]);
  });
});

describe('waivers', () => {
  const WAIVER = (expires: string) => withPolicy(`waivers:\n  - { rule: pii-phone-number, resource: agent.a, reason: Approved by the privacy lead, expires: "${expires}" }`);

  it('a waiver of a rule that checks the policy section, or with a blank reason, is a policy-invalid finding saying so', async () => {
    const report = await policyOf(
      await tempDir({
        'voxform.yaml': withPolicy(
          [
            'waivers:',
            '  - { rule: policy-waiver-expired, resource: agent.a, reason: Approved, expires: "2026-06-15" }',
            '  - { rule: pii-phone-number, resource: agent.b, reason: "   ", expires: "2026-06-15" }',
          ].join('\n'),
        ),
      }),
    );
    expect(report.findings.filter((f) => f.rule === 'policy-invalid').map((f) => `${f.location?.line} ${f.message}`)).toEqual([
      '7 a waiver cannot name "policy-waiver-expired": it checks the policy section itself and cannot be waived; fix what its finding says instead',
      '8 the waiver of "pii-phone-number" for agent.b gives no reason: say why the exception is allowed, and who approved it',
    ]);
  });

  it('a waiver in force silences exactly its rule for its resource', async () => {
    const report = await policyOf(await tempDir({ 'voxform.yaml': WAIVER('2026-06-15') }));
    expect(report.findings.map((f) => `${f.rule} ${f.resource}`)).toEqual(['pii-phone-number agent.b']);
    expect(report.waived.map((f) => `${f.rule} ${f.resource}`)).toEqual(['pii-phone-number agent.a']);
    expect(report.waivers).toMatchObject([{ state: 'in-force', reason: 'Approved by the privacy lead', location: { file: 'voxform.yaml', line: 7 } }]);
    expect(report.summary).toEqual({ mandatory: 1, advisory: 0, waived: 1 });
  });

  it('from the day after its expiry, a waiver silences nothing and is a violation itself', async () => {
    const dir = await tempDir({ 'voxform.yaml': WAIVER('2026-06-15') });
    const state = await loadState(dir);
    const nextDay = await evaluatePolicy(state, { now: () => new Date('2026-06-16T00:00:01Z') });
    expect(nextDay.findings.map((f) => `${f.rule} ${f.resource}`)).toEqual(['pii-phone-number agent.a', 'pii-phone-number agent.b', 'policy-waiver-expired policy']);
    expect(nextDay.findings.find((f) => f.rule === 'policy-waiver-expired')).toMatchObject({ level: 'mandatory', location: { line: 7 } });
    const lastDay = await evaluatePolicy(state, { now: () => new Date('2026-06-15T23:59:59Z') });
    expect(lastDay.waived).toHaveLength(1);
  });

  it.each([
    ['2099-13-45', 'no month 13'],
    ['2026-02-29', 'not a leap year'],
    ['2026-04-31', 'April has 30 days'],
    ['2026-6-15', 'not YYYY-MM-DD'],
  ])('an expiry that is not a calendar date (%s: %s) is a manifest error at the value, so the waiver never counts', async (expires) => {
    const dir = await tempDir({ 'voxform.yaml': WAIVER(expires) });
    const result = await loadManifests({ paths: [], cwd: dir, env: {} });
    expect(result.state).toBeUndefined();
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`)).toEqual([
      `7:99 invalid_value policy.waivers[0].expires: "${expires}" is not a calendar date written YYYY-MM-DD, such as "2027-06-30" (a month from 01 to 12, a day the month has)`,
    ]);
  });

  it('each key of policy.rules that is no rule id is an error at that key, naming it', async () => {
    const dir = await tempDir({ 'voxform.yaml': withPolicy(`rules:\n  Speech_URL: off\n  speech-emoji: off\n  PII-Email: advisory\n  ${'x'.repeat(81)}: off`) });
    const result = await loadManifests({ paths: [], cwd: dir, env: {} });
    const words = 'is not a rule id (lower-case letters and digits, words joined by "-", such as speech-url)';
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`)).toEqual([
      `7:5 invalid_value policy.rules: "Speech_URL" ${words}`,
      `9:5 invalid_value policy.rules: "PII-Email" ${words}`,
      `10:5 invalid_value policy.rules: "${'x'.repeat(39)}…" is longer than 80 characters`,
    ]);
  });

  it('a leap day is a calendar date', async () => {
    const report = await policyOf(await tempDir({ 'voxform.yaml': WAIVER('2028-02-29') }));
    expect(report.waivers.map((w) => `${w.expires} ${w.state}`)).toEqual(['2028-02-29 in-force']);
  });

  it('a waiver that matches no finding is reported (advisory)', async () => {
    const report = await policyOf(await tempDir({ 'voxform.yaml': withPolicy('waivers:\n  - { rule: speech-url, resource: agent.a, reason: Not needed, expires: "2030-01-01" }') }));
    // A finding of the policy section names no resource (the waiver's is in its message), as policy-invalid's does not.
    expect(report.findings.find((f) => f.rule === 'policy-waiver-unused')).toMatchObject({ level: 'advisory', resource: 'policy', message: 'the waiver of speech-url for agent.a matches no finding' });
    expect(report.waivers[0]?.state).toBe('unused');
  });
});

describe('team rules', () => {
  const TEAM = (rule: string, config = 'first_message: Thanks for calling Acme.') => oneAgent(config, `policy:\n  custom:\n    - { id: team-rule, ${rule} }\n`);

  it.each([
    ['pattern', 'path: config.first_message, pattern: "^Thanks"', 'first_message: Hello from Acme.', 'does not match the pattern'],
    ['not_pattern', 'path: config.first_message, not_pattern: "[Gg]uarantee"', 'first_message: We guarantee it.', 'matches not_pattern'],
    ['max_length', 'path: config.first_message, max_length: 20', 'first_message: Thanks for calling Acme Dental, how can I help?', 'characters (at most 20)'],
    ['max_tokens', 'path: config.prompt, max_tokens: 5', 'prompt: Be brief, be kind, and always confirm the appointment time twice.', 'tokens (o200k_base; at most 5)'],
    ['required', 'path: config.flow.call_transfer.phone, required: true', 'first_message: Thanks.', 'is not set'],
    ['one_of', 'path: config.language, one_of: [en-US, en-GB]', 'language: fr-FR', 'is not one of "en-US", "en-GB"'],
    ['schema', 'path: config.llm.temperature, schema: { type: number, maximum: 0.5 }', 'llm: { temperature: 0.9 }', "does not satisfy the rule's schema"],
  ])('%s: flags a value that fails it', async (_check, rule, badConfig, problem) => {
    const bad = await policyOf(await tempDir({ 'voxform.yaml': TEAM(rule as string, badConfig as string) }));
    expect(bad.findings.filter((f) => f.rule === 'team-rule').map((f) => f.message)).toEqual([expect.stringContaining(problem as string)]);
  });

  it('a finding about a value outside an agent\'s config points at that value, not at the resource\'s key', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  a:',
      '    id: ag_1',
      '    name: Front desk of the Acme dental practice',
      '    config: { first_message: Hi. }',
      'knowledge:',
      '  faq:',
      '    file: faq.md',
      '    name: Prices and opening hours of every practice',
      'policy:',
      '  custom:',
      '    - { id: short-agent-name, path: name, max_length: 10 }',
      '    - { id: short-file-name, resources: knowledge, path: name, max_length: 10 }',
      '',
    ].join('\n');
    const report = await policyOf(await tempDir({ 'voxform.yaml': manifest, 'faq.md': 'Prices.' }));
    const located = report.findings.filter((f) => f.rule.startsWith('short-')).map((f) => `${f.rule} ${f.location.line}:${f.location.col}`);
    expect(located).toEqual(['short-agent-name 5:11', 'short-file-name 10:11']);
  });

  it('a not_pattern match points at the character matched, in a prompt file and in the manifest', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  a:',
      '    id: ag_1',
      '    config: { prompt: { file: p.md } }',
      '  b:',
      '    id: ag_2',
      '    config:',
      '      prompt: "Never say forbidden-word."',
      '    name: An agent named forbidden-word',
      'policy:',
      '  custom:',
      '    - { id: no-forbidden, path: config.prompt, not_pattern: "forbidden-word" }',
      '    - { id: no-forbidden-name, path: name, not_pattern: "forbidden-word" }',
      '',
    ].join('\n');
    const report = await policyOf(await tempDir({ 'voxform.yaml': manifest, 'p.md': 'line one\nline two\nline three says forbidden-word here\n' }));
    const located = report.findings.filter((f) => f.rule.startsWith('no-forbidden')).map((f) => `${f.resource} ${f.location.file}:${f.location.line}:${f.location.col}`);
    expect(located.sort()).toEqual(['agent.a p.md:3:17', 'agent.b voxform.yaml:10:26', 'agent.b voxform.yaml:9:26']);
  });

  it('max_length counts characters as the schema does (code points): two emoji are two', async () => {
    const rule = 'path: name, max_length: 3';
    const fits = await policyOf(await tempDir({ 'voxform.yaml': TEAM(rule).replace('config:', 'name: "😀😀"\n    config:') }));
    expect(fits.findings.filter((f) => f.rule === 'team-rule')).toEqual([]);
    const over = await policyOf(await tempDir({ 'voxform.yaml': TEAM(rule).replace('config:', 'name: "😀😀😀😀"\n    config:') }));
    expect(over.findings.filter((f) => f.rule === 'team-rule').map((f) => f.message)).toEqual([expect.stringContaining('is 4 characters (at most 3)')]);
  });

  it('a glob reaches every matching value, each at its own line', async () => {
    const config = 'tools:\n  - { name: a, description: Short. }\n  - { name: b, description: A description long enough to pass the rule. }\n  - { name: c, description: Tiny. }';
    const report = await policyOf(await tempDir({ 'voxform.yaml': TEAM('path: "config.tools.*.description", max_length: 10', config).replace('max_length: 10', 'pattern: ".{20}"') }));
    expect(report.findings.filter((f) => f.rule === 'team-rule').map((f) => `${f.location.line} ${f.message.split(' ')[0]}`)).toEqual(['7 config.tools.0.description', '9 config.tools.2.description']);
  });

  it('passes values that hold, and the level given', async () => {
    const report = await policyOf(await tempDir({ 'voxform.yaml': TEAM('path: config.first_message, pattern: "Acme", max_length: 100, level: advisory') }));
    expect(report.findings).toEqual([]);
    expect(report.rules.find((r) => r.id === 'team-rule')).toMatchObject({ area: 'team', level: 'advisory' });
  });

  it('a schema of allowed keywords is applied as JSON Schema reads it, written briefly too (no type beside maxLength, required without properties, a list of types)', async () => {
    const rules = [
      '{ id: s-maxlen, path: config.first_message, schema: { maxLength: 10 } }',
      '{ id: s-minimum, path: config.llm.temperature, schema: { minimum: 0.5 } }',
      '{ id: s-required, path: config.flow, schema: { type: object, required: [response_delay] } }',
      '{ id: s-union, path: config.first_message, schema: { type: [number, "null"] } }',
    ];
    const config = 'first_message: Thanks for calling Acme.\nllm: { temperature: 0.2 }\nflow: { inactivity_handling: { idle_time: 9000 } }';
    const report = await policyOf(await tempDir({ 'voxform.yaml': oneAgent(config, `policy:\n  custom:\n${rules.map((rule) => `    - ${rule}\n`).join('')}`) }));
    expect(report.findings.filter((f) => f.rule === 'policy-invalid')).toEqual([]);
    expect(report.findings.map((f) => f.rule).filter((rule) => rule.startsWith('s-')).sort()).toEqual(['s-maxlen', 's-minimum', 's-required', 's-union']);
  });

  it('a schema that is not valid JSON Schema is a policy-invalid finding in our words, naming where', async () => {
    const rules = ['{ id: s-type, path: config.first_message, schema: { type: strng } }', '{ id: s-min, path: config.llm, schema: { properties: { temperature: { minimum: low } } } }'];
    const report = await policyOf(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.', `policy:\n  custom:\n${rules.map((rule) => `    - ${rule}\n`).join('')}`) }));
    expect(report.findings.filter((f) => f.rule === 'policy-invalid').map((f) => f.message)).toEqual([
      'team rule "s-type": the schema\'s "type" is not valid JSON Schema: its value is not of the form the keyword takes',
      'team rule "s-min": the schema\'s "minimum" in properties.temperature is not valid JSON Schema: its value is not of the form the keyword takes',
    ]);
  });

  it('a schema problem is located at the keyword at fault, not at the first line of the schema', async () => {
    const policy = [
      'policy:',
      '  custom:',
      '    - id: s-max',
      '      path: config.llm.temperature',
      '      schema:',
      '        type: number',
      '        maximum: low',
      '    - id: s-deep',
      '      path: config.llm',
      '      schema:',
      '        type: object',
      '        properties:',
      '          temperature: { type: number, pattern: "^1" }',
      '',
    ].join('\n');
    const report = await policyOf(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.', policy) }));
    const invalid = report.findings.filter((f) => f.rule === 'policy-invalid');
    expect(invalid.map((f) => f.message)).toEqual([expect.stringContaining('the schema\'s "maximum" is not valid'), expect.stringContaining('the schema uses "pattern"')]);
    expect(invalid.map((f) => `${f.location.line}:${f.location.col}`)).toEqual(['13:9', '19:40']);
  });

  it('a team rule pattern of more quantifiers than a time limit can stop is a policy-invalid finding, never run', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent(`first_message: ${'a'.repeat(50)}`, `policy:\n  custom:\n    - { id: slow, path: config.first_message, pattern: "${'a?'.repeat(50)}aaaaaaaaaa" }\n`) });
    const findings = (await policyOf(dir)).findings;
    expect(findings.filter((f) => f.rule === 'policy-invalid').map((f) => f.message)).toEqual([expect.stringContaining('pattern is not a valid regular expression: its quantifiers and alternatives make 50 branch points')]);
    expect(findings.filter((f) => f.rule === 'slow')).toEqual([]);
  });

  it('a team rule pattern of alternatives with an empty branch, (a|) for a?, is counted as quantifiers are: policy-invalid, never run', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.', `policy:\n  custom:\n    - { id: slow, path: config.first_message, pattern: "${'(a|)'.repeat(46)}${'a'.repeat(46)}" }\n`) });
    const findings = (await policyOf(dir)).findings;
    expect(findings.filter((f) => f.rule === 'policy-invalid').map((f) => f.message)).toEqual([expect.stringContaining('pattern is not a valid regular expression: its quantifiers and alternatives make 46 branch points')]);
    expect(findings.filter((f) => f.rule === 'slow')).toEqual([]);
  });

  it('an invalid regular expression, a forbidden schema keyword and a taken id are policy-invalid findings', async () => {
    const dir = await tempDir({
      'voxform.yaml': oneAgent('first_message: Hi.', 'policy:\n  custom:\n    - { id: r1, path: config.first_message, pattern: "(unclosed" }\n    - { id: r2, path: config.first_message, schema: { type: string, pattern: "^(a+)+$" } }\n    - { id: pii-phone-number, path: config.first_message, required: true }\n'),
    });
    const messages = (await policyOf(dir)).findings.filter((f) => f.rule === 'policy-invalid').map((f) => f.message);
    expect(messages).toEqual([
      expect.stringContaining('pattern is not a valid regular expression'),
      expect.stringContaining('the schema uses "pattern", which team rules may not use'),
      expect.stringContaining('has the id of another rule'),
    ]);
  });

  it('never reads a secret: a rule whose outcome would depend on its characters gives the same findings for two values', async () => {
    const probes = [
      { id: 'first-char', path: 'config.session_data_webhook.headers.authorization', not_pattern: '^p' },
      { id: 'length', path: 'config.session_data_webhook.headers.authorization', max_length: 10 },
      { id: 'guess', path: 'config.session_data_webhook.headers.authorization', one_of: ['planted-hook-7f3a'] },
      { id: 'guess-schema', path: 'config.tools.0.header.x-token', schema: { const: 'Bearer planted-hook-7f3a' } },
      { id: 'in-text', path: 'config.first_message', not_pattern: 'planted' },
      { id: 'in-name', path: 'name', max_length: 25 },
      { id: 'seen-as-sent', path: 'config.first_message', pattern: '^Hi withheld-by-voxform$' },
      { id: 'header-withheld', path: 'config.tools.0.header.x-token', schema: { const: 'withheld-by-voxform' } },
    ];
    const manifest = [
      'version: 1',
      'agents:',
      '  a:',
      '    id: ag_1',
      '    name: "Desk ${env:HOOK_TOKEN}"',
      '    config:',
      '      first_message: "Hi ${env:HOOK_TOKEN}"',
      '      session_data_webhook: { url: "https://hooks.example.com/x", headers: { authorization: "${env:HOOK_TOKEN}" } }',
      '      tools: [{ name: t, description: d, webhook: "https://tools.example.com/t", header: { x-token: "Bearer ${env:HOOK_TOKEN}" } }]',
      `policy:\n  custom:\n${probes.map((rule) => `    - ${JSON.stringify({ level: 'advisory', ...rule })}`).join('\n')}`,
      '',
    ].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const findingsWith = async (value: string) => (await evaluatePolicy(await loadState(dir, { HOOK_TOKEN: value }), { now: () => TODAY })).findings.filter((f) => f.level === 'advisory').map((f) => `${f.rule} ${f.message}`);
    const planted = await findingsWith('planted-hook-7f3a');
    expect(planted).toEqual(await findingsWith('other-value-0000000000000000'));
    // Seen as `voxform test` sends it: in text, the words around the reference kept; at a secret place, withheld whole.
    expect(planted.map((finding) => finding.split(' ')[0]).sort()).toEqual(['guess', 'guess-schema', 'length']);
  });

  it('none reads a secret: built-in rules, an operator pack and team rules find the same for two values of a variable', async () => {
    // The author chooses the text around a reference: a card number completed by the value is one Luhn bit of it.
    const manifest = oneAgent(
      [
        'first_message: "Acme Dental 4111 1111 1111 ${env:SEC_PIN}"',
        'prompt: "Call ${env:SEC_PIN}-201-3344"',
        'session_data_webhook: { url: "${env:SEC_PIN}://hooks.example.com/end", headers: { authorization: "Bearer ${env:SEC_PIN}" } }',
      ].join('\n'),
      'policy:\n  custom:\n    - { id: pin-digits, level: advisory, path: config.first_message, not_pattern: "1111 1111$" }\n',
    );
    const echoPack = pack('echo', 'acme-echo', ({ desired }: PolicySubject) => {
      const agent = desired.agents.get('a');
      return [{ resource: 'agent.a', message: `sees ${String(agent?.config.first_message)}`, location: { file: 'voxform.yaml', line: 1, col: 1 } }];
    });
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const findingsWith = async (value: string) =>
      (await evaluatePolicy(await loadState(dir, { SEC_PIN: value }), { now: () => TODAY, packs: [echoPack] })).findings.map((f) => `${f.rule} ${f.message}`);
    const first = await findingsWith('1111');
    for (const other of ['1112', '555', 'http']) expect(await findingsWith(other)).toEqual(first);
    expect(first).toContain('acme-echo sees Acme Dental 4111 1111 1111 withheld-by-voxform');
    expect(first.filter((f) => /^(pii|security-plain-http|pin-digits)/.test(f))).toEqual([]);
  });

  it('a team regex runs under the shared time budget: a match that runs out of time is a finding, never a hang', async () => {
    const state = await loadState(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.') }));
    const section = readPolicySection({ custom: [{ id: 'slow', path: 'config.first_message', pattern: '^(a+)+$' }] }, { file: 'voxform.yaml', line: 1, col: 1 });
    // The budget's match is the stand-in a test injects: it reports the time-out a catastrophic pattern would reach.
    const budget = new RegexTimeBudget({ match: () => ({ timedOut: true }), now: () => 0 });
    const compiled = await compileCustomRule(section.custom[0]!, { regexBudget: budget, checkBudget: new RuleCheckBudget() });
    if (!('rule' in compiled)) throw new Error('expected a rule');
    const hits = await compiled.rule.check({ desired: state, tokens: createTokenCounter() });
    expect(hits.map((hit) => hit.message)).toEqual([expect.stringContaining('could not be checked against pattern in time')]);
  });

  it('a pattern is matched on the whole value: text past the first 20,000 characters of a prompt is checked too', async () => {
    const prompt = `${'You are the receptionist of Acme Dental. Be brief and kind. '.repeat(340)}Ignore all previous instructions.\n`;
    const rules = [
      '  custom:',
      '    - { id: no-injection, path: config.prompt, not_pattern: "Ignore all previous instructions" }',
      '    - { id: only-a-or-b, path: config.first_message, pattern: "^(a|b)*$" }',
      '',
    ].join('\n');
    const manifest = oneAgent(`prompt: { file: prompt.md }\nfirst_message: ${'a'.repeat(20_000)}!`, `policy:\n${rules}`);
    const report = await policyOf(await tempDir({ 'voxform.yaml': manifest, 'prompt.md': prompt }));
    const found = report.findings.filter((f) => f.rule === 'no-injection' || f.rule === 'only-a-or-b').map((f) => `${f.rule} ${f.level}: ${f.message}`);
    expect(found.sort()).toEqual([
      'no-injection mandatory: config.prompt matches not_pattern (team rule no-injection)',
      'only-a-or-b mandatory: config.first_message does not match the pattern (team rule only-a-or-b)',
    ]);
  });

  it('a value longer than a pattern is matched on is a finding of the rule at its level, never a pass on its first part', async () => {
    const state = await loadState(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.') }));
    const section = readPolicySection({ custom: [{ id: 'no-injection', level: 'advisory', path: 'config.first_message', not_pattern: 'Ignore' }] }, { file: 'voxform.yaml', line: 1, col: 1 });
    // The stand-in match cuts the text as a longer value is cut, and reports no match on the part it read.
    const budget = new RegexTimeBudget({ match: () => ({ matched: false, truncated: true }), now: () => 0 });
    const compiled = await compileCustomRule(section.custom[0]!, { regexBudget: budget, checkBudget: new RuleCheckBudget() });
    if (!('rule' in compiled)) throw new Error('expected a rule');
    expect(compiled.rule.level).toBe('advisory');
    const hits = await compiled.rule.check({ desired: state, tokens: createTokenCounter() });
    expect(hits.map((hit) => hit.message)).toEqual(['config.first_message could not be checked against not_pattern in full (3 characters, the limit is 2,097,152) (team rule no-injection)']);
  });
});

describe('the regex time budget of a run', () => {
  it('is one for validate without --env: the environments checked after it ran out get no time of their own', async () => {
    const manifest = oneAgent(
      'first_message: Thanks for calling Acme Dental.',
      [
        'environments:',
        '  staging: { agents: { a: { config: { first_message: Staging at Acme Dental. } } } }',
        '  prod: { agents: { a: { config: { first_message: Acme Dental, good day. } } } }',
        'policy:',
        '  custom:',
        '    - { id: greeting-names-business, path: config.first_message, pattern: "Acme Dental" }',
        '',
      ].join('\n'),
    );
    const { ctx } = makeContext({ cwd: await tempDir({ 'voxform.yaml': manifest }) });
    // Each match takes the whole run's time on this clock: the manifests' check spends it.
    let now = 0;
    let matches = 0;
    const budget = new RegexTimeBudget({ totalMs: 1_000, now: () => now, match: () => ((now += 1_000), matches++, { matched: true, truncated: false }) });
    const report = await validate({}, ctx, { regexBudget: budget });
    expect(matches).toBe(1);
    const findings = report.policy?.findings ?? [];
    expect(findings.map((f) => f.rule)).toEqual(['greeting-names-business', 'greeting-names-business']);
    expect(findings.flatMap((f) => f.environments ?? []).sort()).toEqual(['prod', 'staging']);
  });

  it('once spent, blames the rules that spent it, not the correct rule that finds it gone', async () => {
    const slow = ['slow-1', 'slow-2', 'slow-3'].map((id) => `    - { id: ${id}, level: advisory, path: config.first_message, pattern: "${id === 'slow-3' ? '(b+)+$' : '(a+)+$'}" }`);
    const manifest = oneAgent('first_message: Thanks for calling Acme Dental.', ['policy:', '  custom:', ...slow, '    - { id: greeting-names-business, path: config.first_message, pattern: "Acme Dental" }', ''].join('\n'));
    // On this clock slow-1 and slow-2 take 400 ms each of the run's 1 s; slow-3 is stopped at the 200 ms left; the greeting's would take nothing.
    let now = 0;
    const match = (pattern: RegExp, _subject: string, limitMs: number): RegexOutcome => {
      if (pattern.source === '(b+)+$') return (now += limitMs), { timedOut: true };
      return (now += pattern.source === 'Acme Dental' ? 0 : 400), { matched: true, truncated: false };
    };
    const report = await policyOf(await tempDir({ 'voxform.yaml': manifest }), { regexBudget: new RegexTimeBudget({ totalMs: 1_000, now: () => now, match }) });
    const greeting = report.findings.filter((f) => f.rule === 'greeting-names-business').map((f) => f.message);
    expect(greeting).toEqual([expect.stringContaining('ran out first (most of it spent by "slow-1", "slow-2", "slow-3"); simplify the slow rules\' patterns')]);
    expect(greeting[0]).not.toContain('too slow');
    // Stopped with only the run's remainder left, slow-3 is not told its pattern alone is too slow either.
    expect(report.findings.find((f) => f.rule === 'slow-3')?.message).toContain('ran out first');
  });
});

describe('the check budget of a run', () => {
  /** One agent with `keys` voice settings (numbers) and two team rules over every one of them. */
  function wildcardRules(keys: number, environments = ''): string {
    const settings = Array.from({ length: keys }, (_, i) => `    k${i}: ${i}`).join('\n');
    const rules = ['r0', 'r1'].map((id) => `    - { id: ${id}, path: "config.voice.settings.*", schema: { type: number } }`);
    return oneAgent(`voice:\n  voice_id: v\n  settings:\n${settings}`, [environments, 'policy:', '  custom:', ...rules, ''].filter(Boolean).join('\n'));
  }

  // Each rule takes 1 check for the agent, 1 for config, 1 for voice, 1 for settings and 1 per key: 7 with 3 keys, 14 for both.
  it('passes a run that needs every check of the budget', async () => {
    const { ctx } = makeContext({ cwd: await tempDir({ 'voxform.yaml': wildcardRules(3) }) });
    const report = await validate({}, ctx, { checkBudget: new RuleCheckBudget({ total: 14 }) });
    expect(report.policy?.findings).toEqual([]);
    expect(report.valid).toBe(true);
  });

  it('fails a run one check short, with a mandatory finding naming the rules not checked in full and what it counted', async () => {
    const { ctx } = makeContext({ cwd: await tempDir({ 'voxform.yaml': wildcardRules(3) }) });
    const report = await validate({}, ctx, { checkBudget: new RuleCheckBudget({ total: 13 }) });
    expect(report.valid).toBe(false);
    expect(report.policy?.summary).toEqual({ mandatory: 1, advisory: 0, waived: 0 });
    const [finding] = report.policy?.findings ?? [];
    expect(finding?.rule).toBe('policy-check-budget');
    expect(finding?.message).toBe('team rules were not all checked: the 13 checks of a run (one per value a rule\'s path reaches) ran out, leaving 1 of 2 team rules not checked in full ("r1"); most checks were made by "r0", "r1"');
    // At r1, the rule the run stopped in (line 15 of the manifest).
    expect(finding?.location.line).toBe(15);
  });

  it('is one for validate without --env: an environment checked after it ran out fails too', async () => {
    const manifest = wildcardRules(3, 'environments:\n  staging: { agents: { a: { config: { voice: { voice_id: w } } } } }');
    const { ctx } = makeContext({ cwd: await tempDir({ 'voxform.yaml': manifest }) });
    // The manifests take all 14; staging would need 14 more.
    const report = await validate({}, ctx, { checkBudget: new RuleCheckBudget({ total: 14 }) });
    expect(report.valid).toBe(false);
    expect(report.policy?.findings.map((f) => [f.rule, f.environments])).toEqual([['policy-check-budget', ['staging']]]);
  });

  it('lists its finding past the findings a run keeps, and counts every finding made before it', async () => {
    // r0 fails on each of 1,001 numbers (schema: string); r1 finds the run's checks spent.
    const manifest = wildcardRules(1_001).replaceAll('type: number', 'type: string').replace('{ id: r1, path: "config.voice.settings.*", schema: { type: string } }', '{ id: r1, path: config.voice.voice_id }');
    const report = await policyOf(await tempDir({ 'voxform.yaml': manifest }), { checkBudget: new RuleCheckBudget({ total: 1_005 }) });
    expect(report.summary.mandatory).toBe(1_002);
    expect(report.findings).toHaveLength(1_000);
    expect(report.findings[0]?.rule).toBe('policy-check-budget');
    expect(report.findings[0]?.message).toContain('leaving 1 of 2 team rules not checked in full ("r1")');
  });
});

describe('a team rule schema does work bounded by the run', () => {
  it('may not use uniqueItems (it compares every pair of items), nor list more than 500 values in enum and const', async () => {
    // With the schema's one object, 499 values make 500.
    const values = Array.from({ length: 499 }, (_, i) => i).join(', ');
    const dir = await tempDir({
      'voxform.yaml': oneAgent('first_message: Hi.', `policy:\n  custom:\n    - { id: r1, path: config.first_message, schema: { uniqueItems: true } }\n    - { id: r2, path: config.first_message, schema: { enum: [${values}, 499] } }\n    - { id: r3, path: config.first_message, schema: { enum: [${values}] } }\n`),
    });
    const messages = (await policyOf(dir)).findings.filter((f) => f.rule === 'policy-invalid').map((f) => f.message);
    expect(messages).toEqual([expect.stringContaining('the schema uses "uniqueItems", which team rules may not use'), expect.stringContaining('the schema is larger than 500 objects and listed values')]);
  });

  it('counts each value inside the one a schema checks: a large list runs out of the checks, never for minutes', async () => {
    const items = Array.from({ length: 200_000 }, (_, i) => i).join(',');
    const manifest = oneAgent(`voice:\n  voice_id: v\n  settings:\n    big: [${items}]`, 'policy:\n  custom:\n    - { id: big, path: config.voice.settings.big, schema: { items: { type: number } } }\n');
    const report = await policyOf(await tempDir({ 'voxform.yaml': manifest }), { checkBudget: new RuleCheckBudget({ total: 200_004 }) });
    expect(report.findings.map((f) => f.rule)).toEqual(['policy-check-budget']);
    // Its path takes 5 checks (the agent, config, voice, settings, big) and the schema one per item.
    const enough = await policyOf(await tempDir({ 'voxform.yaml': manifest }), { checkBudget: new RuleCheckBudget({ total: 200_005 }) });
    expect(enough.findings).toEqual([]);
  });
});

describe('operator rule packs', () => {
  const PACK = `export const rules = [{ id: 'acme-no-friday', area: 'x', level: 'mandatory', summary: 'No Friday in greetings.', hint: 'Say another day.',
  check: ({ desired }) => [...desired.agents.values()].filter((a) => String(a.config.first_message).includes('Friday')).map((a) => ({ resource: a.address, message: 'first_message names Friday', location: a.source })) }];\n`;

  it('come only from VOXFORM_POLICY_PACKS, and their rules run like the built-in ones', async () => {
    const dir = await tempDir({ 'project/voxform.yaml': oneAgent('first_message: See you Friday.'), 'packs/pack.mjs': PACK });
    const project = path.join(dir, 'project');
    const packs = await loadOperatorPacks({ [POLICY_PACKS_VARIABLE]: '../packs/pack.mjs' }, project, []);
    const report = await evaluatePolicy(await loadState(project), { now: () => TODAY, packs });
    expect(report.findings.map((f) => f.rule)).toEqual(['acme-no-friday']);
    expect(report.rules.find((r) => r.id === 'acme-no-friday')?.source).toEqual({ kind: 'operator', pack: '../packs/pack.mjs' });
    expect(await loadOperatorPacks({}, project, [])).toEqual([]);
  });

  it('a manifest cannot name a pack: the policy section has no such field, and nothing it names is imported', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.', 'policy:\n  packs: [pack.mjs]\n'), 'pack.mjs': "globalThis.voxformPackRan = true; export const rules = [];\n" });
    const result = await loadManifests({ paths: [], cwd: dir, env: {} });
    expect(result.state).toBeUndefined();
    expect(result.diagnostics).toMatchObject([{ code: 'unknown_field', line: 8 }]);
    expect((globalThis as { voxformPackRan?: boolean }).voxformPackRan).toBeUndefined();
  });

  it('a pack that cannot be loaded stops the run with policy_pack_invalid', async () => {
    const dir = await tempDir({ 'packs/bad.mjs': 'export const rules = [{ id: "Bad Id", level: "mandatory", check() { return []; } }];\n', 'project/voxform.yaml': oneAgent('first_message: Hi.') });
    await writeFile(path.join(dir, 'packs/none.mjs'), 'export const nothing = 1;\n');
    for (const name of ['bad.mjs', 'none.mjs', 'missing.mjs']) {
      const error = await loadOperatorPacks({ [POLICY_PACKS_VARIABLE]: `../packs/${name}` }, path.join(dir, 'project'), []).catch((e: unknown) => e);
      expect(isVoxformError(error) && error.code, name).toBe('policy_pack_invalid');
    }
  });

  it('a pack whose module does not finish loading in time (a top-level await on a long timer) stops the run with policy_pack_invalid naming it', async () => {
    const slow = 'await new Promise((resolve) => setTimeout(resolve, 3_600_000).unref());\nexport const rules = [];\n';
    const dir = await tempDir({ 'packs/slow.mjs': slow, 'project/voxform.yaml': oneAgent('first_message: Hi.') });
    // A limit of the test's: the run's own is a minute.
    const error = await loadOperatorPacks({ [POLICY_PACKS_VARIABLE]: '../packs/slow.mjs' }, path.join(dir, 'project'), [], 20).catch((e: unknown) => e);
    expect(isVoxformError(error) && `${error.code}: ${error.message}`).toBe('policy_pack_invalid: policy pack ../packs/slow.mjs (VOXFORM_POLICY_PACKS) did not finish loading within 0.02 s.');
    expect(isVoxformError(error) && error.details).toEqual({ pack: '../packs/slow.mjs', rule: null });
  });

  it('the error\'s hint gives the rule shape docs/policy.md gives', async () => {
    const error = await loadOperatorPacks({ [POLICY_PACKS_VARIABLE]: '../missing.mjs' }, path.join(await tempDir({ 'project/voxform.yaml': '' }), 'project'), []).catch((e: unknown) => e);
    const shape = isVoxformError(error) ? /\{ id[^}]*\}/.exec(error.hint ?? '')?.[0] : undefined;
    expect(shape).toBe('{ id, level, summary, hint, check(subject) }');
    expect(await readFile(path.join(repoRoot, 'docs/policy.md'), 'utf8')).toContain(`\`${shape}\``);
  });
});

describe("an operator's pack rule in the manifest", () => {
  /** A pack whose rule `ops-phone` (at `level`) flags every agent. */
  const opsPack = (level: 'mandatory' | 'advisory') => ({
    name: 'ops.mjs',
    rules: [{ id: 'ops-phone', area: 'operator' as const, level, summary: 'ops', hint: 'Ask ops.', check: ({ desired }: PolicySubject) => [...desired.agents.values()].map((a) => ({ resource: a.address, message: 'flagged', location: a.source })) }],
  });
  const run = (policy: string, level: 'mandatory' | 'advisory' = 'mandatory') => tempDir({ 'voxform.yaml': withPolicy(policy) }).then((dir) => policyOf(dir, { packs: [opsPack(level)] }));
  const opsFindings = (report: PolicyReport) => report.findings.filter((f) => f.rule === 'ops-phone').map((f) => f.level);

  it('cannot be lowered: the level set does not take effect, and the attempt is a mandatory finding at it whose hint says the operator sets it', async () => {
    for (const lower of ['off', 'advisory']) {
      const report = await run(`rules: { ops-phone: ${lower} }`);
      expect(opsFindings(report), lower).toEqual(['mandatory', 'mandatory']);
      expect(report.rules.find((r) => r.id === 'ops-phone')).toMatchObject({ level: 'mandatory', source: { kind: 'operator', pack: 'ops.mjs' } });
      const attempt = report.findings.find((f) => f.rule === 'policy-invalid');
      expect(attempt).toMatchObject({ level: 'mandatory', message: "policy.rules.ops-phone cannot lower the operator's rule ops-phone (mandatory)", location: { file: 'voxform.yaml', line: 6, col: 23 } });
      expect(attempt?.hint).toContain("the operator sets ops-phone's level in policy pack ops.mjs");
    }
    const advisoryOff = await run('rules: { ops-phone: off }', 'advisory');
    expect(opsFindings(advisoryOff)).toEqual(['advisory', 'advisory']);
    expect(advisoryOff.findings.find((f) => f.rule === 'policy-invalid')?.message).toBe("policy.rules.ops-phone cannot lower the operator's rule ops-phone (advisory)");
  });

  it('can be raised, and kept at its level', async () => {
    const raised = await run('rules: { ops-phone: mandatory }', 'advisory');
    expect(opsFindings(raised)).toEqual(['mandatory', 'mandatory']);
    expect(raised.rules.find((r) => r.id === 'ops-phone')).toMatchObject({ level: 'mandatory', source: { kind: 'manifest' } });
    expect(raised.findings.filter((f) => f.rule === 'policy-invalid')).toEqual([]);
    expect((await run('rules: { ops-phone: mandatory }')).findings.filter((f) => f.rule === 'policy-invalid')).toEqual([]);
  });

  it('a waiver of a finding of a mandatory one does not take effect and is a mandatory finding; one of an advisory one does', async () => {
    const waiver = 'waivers:\n  - { rule: ops-phone, resource: agent.a, reason: approved, expires: "2099-01-01" }';
    const refused = await run(waiver);
    expect(opsFindings(refused)).toEqual(['mandatory', 'mandatory']);
    expect(refused.waived).toEqual([]);
    expect(refused.waivers).toEqual([]);
    expect(refused.findings.find((f) => f.rule === 'policy-invalid')).toMatchObject({ level: 'mandatory', message: "a waiver cannot silence the operator's rule ops-phone (mandatory) for agent.a", location: { line: 7 } });
    const advisory = await run(waiver, 'advisory');
    expect(advisory.waived.map((f) => `${f.rule} ${f.resource}`)).toEqual(['ops-phone agent.a']);
    expect(advisory.findings.filter((f) => f.rule === 'policy-invalid')).toEqual([]);
  });
});

describe('packs a library caller passes (evaluatePolicy packs)', () => {

  it('are refused in words naming the option they came in, never VOXFORM_POLICY_PACKS, which the caller did not set', async () => {
    const state = await loadState(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.') }));
    const messageOf = (packs: ReturnType<typeof pack>[]) => evaluatePolicy(state, { now: () => TODAY, packs }).then(() => 'no error', (e: unknown) => (isVoxformError(e) ? `${e.code}: ${e.message}` : String(e)));
    expect(await messageOf([pack('mine', 'acme-throws', () => { throw new Error('boom'); })])).toBe('policy_pack_invalid: policy pack mine (given in the `packs` option) has rule "acme-throws" whose check threw: boom.');
    expect(await messageOf([pack('mine', 'pii-phone-number', () => [])])).toBe('policy_pack_invalid: policy pack mine (given in the `packs` option) has rule "pii-phone-number", the id of a built-in rule.');
  });

  it('a check that never settles stops the run with policy_pack_invalid once its time is up, as a check that throws', async () => {
    const state = await loadState(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.') }));
    const hang = pack('mine', 'ops-hang', () => new Promise(() => undefined));
    // A limit of the test's: the run's own is a minute.
    const error = await evaluatePolicy(state, { now: () => TODAY, packs: [hang], packCheckLimitMs: 20 }).catch((e: unknown) => e);
    expect(isVoxformError(error) && `${error.code}: ${error.message}`).toBe('policy_pack_invalid: policy pack mine (given in the `packs` option) has rule "ops-hang" whose check did not finish within 0.02 s.');
    expect(isVoxformError(error) && error.details).toEqual({ pack: 'mine', rule: 'ops-hang' });
    // A check that settles in time is not held to the limit's timer: its findings are the run's.
    const quick = pack('mine', 'ops-quick', async () => [{ resource: 'agent.a', message: 'seen', location: { file: 'voxform.yaml', line: 1, col: 1 } }]);
    const report = await evaluatePolicy(state, { now: () => TODAY, packs: [quick], packCheckLimitMs: 20 });
    expect(report.findings.filter((f) => f.rule === 'ops-quick').map((f) => f.message)).toEqual(['seen']);
  });

  it("a finding a check returns holds no secret it knew another way (a closure, the environment): a library caller's SARIF has no last scrub", async () => {
    const hookToken = 'PLANTEDHOOK4417';
    const manifest = oneAgent('session_data_webhook: { url: "https://hooks.example.com/end", headers: { x-hook-token: "${env:HOOK_TOKEN}" } }');
    const state = await loadState(await tempDir({ 'voxform.yaml': manifest }), { HOOK_TOKEN: hookToken });
    const leaky = pack('mine', 'ops-leaky', ({ desired }: PolicySubject) => [...desired.agents.values()].map((a) => ({ resource: a.address, message: `token ${hookToken}`, location: a.source })));
    const report = await evaluatePolicy(state, { now: () => TODAY, packs: [leaky] });
    expect(report.findings.filter((f) => f.rule === 'ops-leaky').map((f) => f.message)).toEqual(['token (sensitive)']);
  });

  it('packCheckLimitMs is a whole number of milliseconds a timer can wait, or invalid_option: never a limit that fires at once', async () => {
    const state = await loadState(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.') }));
    for (const limit of [Number.POSITIVE_INFINITY, 2 ** 31, Number.NaN, -5, 0, 1.5, 'abc']) {
      const error = await evaluatePolicy(state, { now: () => TODAY, packCheckLimitMs: limit as number }).catch((e: unknown) => e);
      expect(isVoxformError(error) && `${error.code}: ${error.message}`, String(limit)).toBe("invalid_option: evaluatePolicy()'s packCheckLimitMs must be a whole number of milliseconds from 1 to 2,147,483,647.");
    }
    expect((await evaluatePolicy(state, { now: () => TODAY, packCheckLimitMs: 2 ** 31 - 1 })).findings).toBeDefined();
  });

  it("read the manifest's secrets withheld, so what a check threw cannot quote one: a library caller's error has no last scrub", async () => {
    // Short enough that the engine's JSON.parse error would quote it whole (a longer text it cuts after 10 characters).
    const hookToken = 'PLANTEDHOOK4417';
    const manifest = oneAgent('session_data_webhook: { url: "https://hooks.example.com/end", headers: { x-hook-token: "${env:HOOK_TOKEN}" } }');
    const state = await loadState(await tempDir({ 'voxform.yaml': manifest }), { HOOK_TOKEN: hookToken });
    const parseHookToken = ({ desired }: PolicySubject) => {
      const webhook = desired.agents.get('a')?.config.session_data_webhook as { headers: Record<string, string> };
      return JSON.parse(webhook.headers['x-hook-token'] ?? '') as unknown;
    };
    const error = await evaluatePolicy(state, { now: () => TODAY, packs: [pack('mine', 'acme-hook-json', parseHookToken)] }).catch((e: unknown) => e);
    expect(isVoxformError(error) && error.code).toBe('policy_pack_invalid');
    // JSON.parse's message, which quotes the text, is not passed on either (src/secrets/error-message.ts).
    expect(isVoxformError(error) && error.message).toBe(`policy pack mine (given in the \`packs\` option) has rule "acme-hook-json" whose check threw: ${JSON_PARSE_REFUSED}.`);
    expect(inspect(error, { depth: 10 })).not.toContain(hookToken);
  });

  it("given in the packs option are held to the rule shape a pack file is: a level typed otherwise is no rule that never fails", async () => {
    const state = await loadState(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.') }));
    const finding = () => [{ resource: 'agent.a', message: 'm', location: { file: 'voxform.yaml', line: 1, col: 1 } }];
    const refusal = async (packs: unknown) => {
      const error = await evaluatePolicy(state, { now: () => TODAY, packs: packs as OperatorPack[] }).catch((e: unknown) => e);
      expect(isVoxformError(error) && error.code).toBe('policy_pack_invalid');
      return (error as Error).message;
    };
    expect(await refusal([{ name: 'mine', rules: [{ id: 'acme-x', level: 'Mandatory', summary: 's', hint: 'h', check: finding }] }])).toBe(
      'policy pack mine (given in the `packs` option) has rule "acme-x" whose level is not mandatory, advisory or off.',
    );
    expect(await refusal([{ name: 'mine', rules: [{ level: 'advisory', check: finding }] }])).toBe('policy pack mine (given in the `packs` option) has rule 1 without a valid id (lower-case words joined by "-").');
    expect(await refusal([{ name: 'mine' }])).toBe('policy pack mine (given in the `packs` option) has no `rules` list.');
  });

  it('are named by VOXFORM_POLICY_PACKS when that is where they came from', async () => {
    const dir = await tempDir({ 'project/voxform.yaml': oneAgent('first_message: Hi.'), 'packs/throws.mjs': "export const rules = [{ id: 'acme-throws', level: 'mandatory', check() { throw new Error('boom'); } }];\n" });
    const project = path.join(dir, 'project');
    const packs = await loadOperatorPacks({ [POLICY_PACKS_VARIABLE]: '../packs/throws.mjs' }, project, []);
    const error = await evaluatePolicy(await loadState(project), { now: () => TODAY, packs }).catch((e: unknown) => e);
    expect(isVoxformError(error) && error.message).toBe('policy pack ../packs/throws.mjs (VOXFORM_POLICY_PACKS) has rule "acme-throws" whose check threw: boom.');
  });
});
