import { afterEach, describe, expect, it } from 'vitest';
import { chmod } from 'node:fs/promises';
import path from 'node:path';

// These run the built CLI (dist/): `npm test` builds first (pretest).
import { makeTree, repoRoot, runCli, runCliInProcess } from '../helpers/cli.js';
import { listSearchedFolder } from '../../src/project-files/manifest-files.js';
import { VoxformError } from '../../src/errors.js';

const AGENT_ONLY = 'agents:\n  a: { id: a }\n';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function tree(files: Record<string, string>): Promise<string> {
  const made = await makeTree(files);
  cleanups.push(made.cleanup);
  return made.dir;
}

describe('voxform validate', () => {
  it('accepts agents.example.yaml', async () => {
    const result = await runCliInProcess(['validate', '-f', 'agents.example.yaml'], { cwd: repoRoot });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('✓ agents.example.yaml is valid: 2 agents, 2 phones, 1 campaign, 1 knowledge file, 1 credential\n');
    expect(result.code).toBe(0);
  });

  it('accepts agents.example.yaml with its staging environment', async () => {
    const result = await runCliInProcess(['validate', '-f', 'agents.example.yaml', '--env', 'staging'], { cwd: repoRoot });
    expect(result.stdout).toContain('is valid (environment staging)');
    expect(result.code).toBe(0);
  });

  it('prints each problem as file:line:col  message with a code frame, a summary, and exits 1', async () => {
    const cwd = await tree({
      'voxform.yaml': [
        'agents:',
        '  front-desk:',
        '    id: ag_1',
        '    config:',
        '      flow:',
        '        response_delay: fast',
        '        interruption: { first_message: true }',
        'phones:',
        '  "+15551230001": { agent: front-dsk }',
      ].join('\n'),
    });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'voxform.yaml:6:25  error[type_mismatch]: flow.response_delay: expected a number, found a string ("fast")',
        '  4 |     config:',
        '  5 |       flow:',
        '> 6 |         response_delay: fast',
        '    |                         ^',
        '  7 |         interruption: { first_message: true }',
        '  8 | phones:',
        '',
        'voxform.yaml:7:25  error[unknown_field]: unknown field "first_message" in flow.interruption; did you mean "first_messsage"?',
        '  5 |       flow:',
        '  6 |         response_delay: fast',
        '> 7 |         interruption: { first_message: true }',
        '    |                         ^',
        '  8 | phones:',
        '  9 |   "+15551230001": { agent: front-dsk }',
        '',
        'voxform.yaml:9:28  error[reference_missing]: phone "+15551230001" is answered by agent "front-dsk", which the manifest does not define; did you mean "front-desk"?',
        '  7 |         interruption: { first_message: true }',
        '  8 | phones:',
        '> 9 |   "+15551230001": { agent: front-dsk }',
        '    |                            ^',
        '',
        '3 errors in 1 file',
        '',
      ].join('\n'),
    );
  });

  it('refuses an alias with no anchor before it at the alias, in validate, plan and fmt, rather than reading it as null', async () => {
    const manifest = [
      'version: 1',
      'defaults:',
      '  config:',
      '    first_message: &greeting Thanks for calling Acme Dental!',
      'agents:',
      '  front-desk:',
      '    id: -OKspareAgent0000001',
      '    config:',
      '      first_message: *greetng',
      '',
    ].join('\n');
    const cwd = await tree({ 'voxform.yaml': manifest });
    const message = 'YAML syntax error: the alias *greetng refers to no anchor &greetng set before it; did you mean &greeting?';
    const validate = await runCliInProcess(['validate'], { cwd });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(`voxform.yaml:9:22  error[yaml_syntax]: ${message}\n`);
    expect(validate.stderr).toContain('> 9 |       first_message: *greetng\n');
    const plan = await runCliInProcess(['plan', '--local'], { cwd });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`voxform.yaml:9:22  error[yaml_syntax]: ${message}\n`);
    expect(plan.stderr).toContain('error[manifest_invalid]');
    expect(plan.stdout).toBe('');
    const fmt = await runCliInProcess(['fmt'], { cwd });
    expect(fmt.code).toBe(1);
    // fmt lists the problem as validate does, then says the file was left as it is.
    expect(fmt.stderr).toContain(`voxform.yaml:9:22  error[yaml_syntax]: ${message}\n`);
    expect(fmt.stderr).toContain('error[yaml_syntax]: voxform.yaml has a YAML error (listed above), so it was left as it is.');
    // An alias above its anchor: before, fmt crashed ("unexpected problem") and validate passed.
    const later = await tree({ 'other.yaml': 'agents:\n  a:\n    config:\n      first_message: *greet\n    id: &greet x1\nversion: 1\n' });
    const laterMessage = 'the alias *greet comes before its anchor &greet; YAML needs the anchor first: move the value marked &greet above the alias';
    const validateLater = await runCliInProcess(['validate', '-f', 'other.yaml'], { cwd: later });
    expect(validateLater.code).toBe(1);
    expect(validateLater.stderr).toContain(`other.yaml:4:22  error[yaml_syntax]: YAML syntax error: ${laterMessage}\n`);
    const fmtLater = await runCliInProcess(['fmt', 'other.yaml'], { cwd: later });
    expect(fmtLater.code).toBe(1);
    expect(fmtLater.stderr).toContain(`other.yaml:4:22  error[yaml_syntax]: YAML syntax error: ${laterMessage}\n`);
    expect(fmtLater.stderr).not.toContain('unexpected problem');
  });

  it('gives the same diagnostics as data with --format json', async () => {
    const cwd = await tree({ 'voxform.yaml': 'agents:\n  a: { id: ag_1, nmae: A }\n', 'empty.yaml': '' });
    const result = await runCliInProcess(['validate', '-f', 'voxform.yaml', '-f', 'empty.yaml', '--format', 'json'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      valid: false,
      diagnostics: [
        {
          severity: 'error',
          code: 'unknown_field',
          message: 'unknown field "nmae" in agent "a"; did you mean "name"?',
          file: 'voxform.yaml',
          line: 2,
          col: 18,
          frame: '  1 | agents:\n> 2 |   a: { id: ag_1, nmae: A }\n    |                  ^',
        },
        {
          severity: 'warning',
          code: 'empty_file',
          message: 'empty.yaml is empty: it defines nothing',
          file: 'empty.yaml',
          line: 1,
          col: 1,
          frame: '> 1 |\n    | ^',
        },
      ],
      // Policy checks only manifests that load.
      policy: null,
      summary: { errors: 1, warnings: 1, omitted: 0, stopped: false, problemFiles: 2, files: ['voxform.yaml', 'empty.yaml'], environment: null, resources: null },
    });
  });

  it('reports a valid manifest as JSON with what it defines', async () => {
    const result = await runCliInProcess(['validate', '-f', 'agents.example.yaml', '--format', 'json'], { cwd: repoRoot });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      valid: true,
      diagnostics: [],
      summary: { errors: 0, warnings: 0, files: ['agents.example.yaml'], resources: { agents: 2, phones: 2, campaigns: 1, knowledge: 1, credentials: 1 } },
    });
  });

  it('never prints a secret from the environment, even beside a mistake', async () => {
    const cwd = await tree({
      'voxform.yaml': [
        'agents:',
        '  a:',
        '    id: ag_1',
        '    config:',
        '      vad_threshold: ${env:VAD_SECRET}',
        '      session_data_webhook:',
        '        url: https://hooks.example.com/end',
        '        headers: { x-token: "${env:HOOK_TOKEN}", x-other: 12 }',
        'credentials:',
        '  - { provider: openai, api_key: "${env:OPENAI_KEY}" }',
        '  - { provider: openai, api_key: "${env:OPENAI_KEY}" }',
      ].join('\n'),
    });
    const env = { VAD_SECRET: 'vad-secret-4711', HOOK_TOKEN: 'hook-secret-0815', OPENAI_KEY: 'sk-secret-openai-42' };
    for (const format of ['text', 'json']) {
      const result = await runCliInProcess(['validate', '--format', format], { cwd, env });
      expect(result.code).toBe(1);
      const output = result.stdout + result.stderr;
      expect(output).toContain('vad_threshold: expected a number, found a string');
      expect(output).toContain('is defined twice');
      // Header values are secrets by the schema: even a literal is not echoed.
      expect(output).toContain('session_data_webhook.headers.x-other: expected a string, found a number');
      expect(output).not.toContain('found a number (12)');
      for (const secret of Object.values(env)) expect(output).not.toContain(secret);
    }
  });

  it('passes with warnings, printing them, and reads every file of a folder', async () => {
    const cwd = await tree({
      'manifests/agents.yaml': 'agents:\n  a: { id: ag_1, vars: { x: 1 } }\n',
      'manifests/phones.yml': 'phones:\n  "+15551230001": { agent: a }\n',
      'manifests/empty.yaml': '# nothing yet\n',
    });
    const result = await runCliInProcess(['validate', '-f', 'manifests'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('✓ 3 files are valid, with 2 warnings: 1 agent, 1 phone, 0 campaigns, 0 knowledge files, 0 credentials\n');
    expect(result.stderr).toContain('manifests/agents.yaml:2:18  warning[vars_without_template]: vars has no effect without template');
    expect(result.stderr).toContain('manifests/empty.yaml:1:1  warning[empty_file]: manifests/empty.yaml is empty: it defines nothing');
  });

  it('names a subfolder it may not list, as an error at its name, not a bug (and so does the search for test files)', async () => {
    const cwd = await tree({ 'manifests/agents.yaml': AGENT_ONLY, 'manifests/private/more.yaml': AGENT_ONLY, 'tests/a.test.yaml': 'agent: a\ntests: []\n', 'tests/private/b.test.yaml': '' });
    for (const folder of ['manifests/private', 'tests/private']) {
      await chmod(path.join(cwd, folder), 0o000);
      cleanups.push(() => chmod(path.join(cwd, folder), 0o755));
    }
    const hint = '  hint: Make the folder readable for this user, or name the files to read instead of a folder above it (a folder is searched through every subfolder).\n';
    const result = await runCli(['validate', '-f', 'manifests'], { cwd, unprivileged: true });
    expect(result.stderr).toBe(`error[file_unreadable]: Cannot search the folder manifests/private for manifests: voxform may not list it.\n${hint}`);
    expect(result.code).toBe(1);
    const tests = await runCli(['test', 'tests', '-f', 'manifests/agents.yaml', '--local'], { cwd, unprivileged: true });
    expect(tests.stderr).toBe(`error[file_unreadable]: Cannot search the folder tests/private for test files: voxform may not list it.\n${hint}`);
    expect(tests.code).toBe(1);
  });

  it('names a folder whose path is too long as that, shortened, with a hint of its own (one rule for every folder search)', async () => {
    // Past the system's longest path (4,096 bytes on Linux): refused before any folder is looked up.
    const deep = `tests2/${'d/'.repeat(2_200)}d`;
    const error = await listSearchedFolder(path.join(await tree({}), deep), deep, 'test files').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VoxformError);
    const { message, hint, code } = error as VoxformError;
    expect(code).toBe('file_unreadable');
    expect(message).toMatch(/^Cannot search the folder tests2\/d\/d\/[d/]*… for test files: its path is longer than the system takes \(ENAMETOOLONG\)\.$/);
    expect(message.length).toBeLessThan(300);
    expect(hint).toBe('Move what it holds to a folder nested less deep, or name the files to read instead of a folder above it (a folder is searched through every subfolder).');
  });

  it('says clearly when there is no manifest, without a stack trace', async () => {
    const cwd = await tree({ 'README.md': 'nothing here' });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[manifest_not_found\]: No manifest found: neither voxform\.yaml nor agents\.yaml exists in .+\.\n {2}hint: /);
    expect(result.stderr).toContain('hint: Name a manifest: `-f PATH` (a file or a folder), or start one with `voxform init`.');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const folder = await runCliInProcess(['validate', '-f', '.'], { cwd });
    expect(folder.stderr).toContain('error[manifest_not_found]: The folder . holds no .yaml or .yml files.\n  hint: Name a manifest file or a folder of manifests: `-f PATH`.');
    const missing = await runCliInProcess(['validate', '-f', 'nope.yaml'], { cwd });
    expect(missing.stderr).toContain('error[manifest_not_found]: nope.yaml does not exist.\n  hint: Name a manifest: `-f PATH`, or start one with `voxform init`.');
  });

  it('with no manifest, points at a voxform.yml beside it, or at the manifest of a folder above, never past the git work tree', async () => {
    const yml = await runCliInProcess(['validate'], { cwd: await tree({ 'voxform.yml': AGENT_ONLY }) });
    expect(yml.code).toBe(1);
    expect(yml.stderr).toContain('error[manifest_not_found]: No manifest found: neither voxform.yaml nor agents.yaml exists in');
    expect(yml.stderr).toContain('  hint: Found voxform.yml: rename it to voxform.yaml or pass `-f voxform.yml`.\n');

    const project = await tree({ 'voxform.yaml': AGENT_ONLY, 'sub/deeper/notes.md': 'x' });
    const sub = await runCliInProcess(['validate'], { cwd: path.join(project, 'sub') });
    expect(sub.stderr).toContain('  hint: ../voxform.yaml exists: run from .. or pass `-f ../voxform.yaml`.\n');
    const deeper = await runCliInProcess(['fmt', '--check'], { cwd: path.join(project, 'sub/deeper') });
    expect(deeper.stderr).toContain('  hint: ../../voxform.yaml exists: run from ../.. or pass `voxform fmt ../../voxform.yaml`.\n');

    // A git work tree of its own below the manifest: the manifest above is another project's.
    const nested = await tree({ 'voxform.yaml': AGENT_ONLY, 'inner/.git/HEAD': 'ref: refs/heads/main\n' });
    const inner = await runCliInProcess(['validate'], { cwd: path.join(nested, 'inner') });
    expect(inner.stderr).toContain('hint: Name a manifest: `-f PATH` (a file or a folder), or start one with `voxform init`.');
  });

  it('answers an unknown --env with a suggestion, as the flag\'s mistake', async () => {
    const result = await runCliInProcess(['validate', '-f', 'agents.example.yaml', '--env', 'stagin'], { cwd: repoRoot });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[invalid_argument]: --env names an environment the manifests do not define; did you mean "staging"?');
  });
});

describe('manifests that leave the agents\' ids to the environments (docs/promotion.md)', () => {
  const manifest = (firstMessage: string) =>
    [
      'version: 1',
      'agents:',
      '  front-desk:',
      '    name: Front desk',
      `    config: { first_message: "${firstMessage}" }`,
      'environments:',
      '  staging:',
      '    agents: { front-desk: { id: -OKstagingFrontDesk01 } }',
      '  production:',
      '    agents: { front-desk: { id: -OKdqbqetEcM4ak369ym } }',
      '    promote_from: staging',
      '',
    ].join('\n');

  it('are valid without --env, each environment checked as --env checks it', async () => {
    const cwd = await tree({ 'voxform.yaml': manifest('Thanks for calling Acme Dental.') });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('✓ voxform.yaml is valid: 1 agent, 0 phones, 0 campaigns, 0 knowledge files, 0 credentials\n');
    expect(result.code).toBe(0);
    // A finding of every environment is listed once, naming them, and counted once.
    const phone = await runCliInProcess(['validate'], { cwd: await tree({ 'voxform.yaml': manifest('Call us at +1 415 555 0100.') }) });
    expect(phone.stderr).toContain('mandatory[pii-phone-number]: agent.front-desk: first_message holds a phone number (environments production, staging)\n');
    expect(phone.stderr).toContain('✗ policy violated: 1 mandatory violation, 0 advisory findings\n');
    expect(phone.code).toBe(1);
  });

  it('name the environment a problem arises in, when the manifests themselves do not have it, as a policy finding does', async () => {
    const switched = [
      'agents:',
      '  b:',
      '    template: receptionist',
      '    vars:',
      '      business: Acme Dental',
      '      business_description: a family dental practice',
      '      opening_hours: Monday to Friday 8am to 6pm',
      '      transfer_number: "+15551239999"',
      'environments:',
      '  staging:',
      '    agents: { b: { id: -OKstagingFrontDesk01 } }',
      '  production:',
      '    agents:',
      '      b:',
      '        id: -OKdqbqetEcM4ak369ym',
      '        template: appointment-booking',
      '        vars: { services: cleanings, calendar_api_url: "https://calendar.example.com" }',
      '',
    ].join('\n');
    const result = await runCliInProcess(['validate'], { cwd: await tree({ 'voxform.yaml': switched }), env: { CALENDAR_TOKEN: 'calendar-token-value' } });
    const lines = result.stderr.split('\n').filter((line) => line.includes('error['));
    expect(lines).toEqual(
      [['6:7', 'business_description'], ['7:7', 'opening_hours'], ['8:7', 'transfer_number']].map(
        ([at, name]) =>
          `voxform.yaml:${at}  error[template_var_unknown]: template "appointment-booking" has no variable "${name}" (its variables: business, services, calendar_api_url, cancellation_policy, agent_name, language, timezone); ` +
          `the base entry of agent "b" gives it, and an environment's vars are merged over the base's, never removing one: set template and vars in each environment's overlay rather than in the base, or use one template in every environment (environment production)`,
      ),
    );
    expect(result.code).toBe(1);
  });

  it('are planned only with --env, which the error says, and give the commands that read them no warning', async () => {
    const cwd = await tree({ 'voxform.yaml': manifest('Thanks for calling Acme Dental.') });
    const planned = await runCliInProcess(['plan', '--local'], { cwd });
    expect(planned.stderr).toContain(
      'voxform.yaml:3:3  error[missing_id]: agent "front-desk" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME\n',
    );
    expect(planned.stderr).toContain("  hint: The ids are the environments' own: run again with --env production or --env staging (docs/promotion.md).\n");
    expect(planned.code).toBe(1);
    const traffic = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--agent', '-OKstagingFrontDesk01'], { cwd });
    expect(traffic.stderr).toBe('');
    expect(traffic.code).toBe(0);
    const byName = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--agent', 'front-desk'], { cwd });
    // A local name their environments give an id is for --env to pick: missing_id, as logs says it.
    expect(byName.stderr).toMatch(/^error\[missing_id\]: agent "front-desk" has no id in the manifests themselves; .*\n {2}hint: Run again with --env /);
    // An environment cannot carry `policy`: the manifests' levels hold for each one, and are listed without --env.
    const levels = await tree({ 'voxform.yaml': `${manifest('Thanks for calling Acme Dental.')}policy:\n  rules:\n    speech-url: off\n` });
    for (const env of [[], ['--env', 'staging']]) {
      const policy = await runCliInProcess(['policy', 'list', ...env], { cwd: levels });
      expect(policy.stderr, env.join(' ')).toBe('');
      expect(policy.stdout, env.join(' ')).toMatch(/\n {2}speech-url +off +voxform\.yaml:14:17\n/);
    }
    expect((await runCliInProcess(['status', '--local'], { cwd })).stdout).toContain("Environment: default (manifests not read: the ids are the environments' own; run with --env NAME)\n");
  });

  it('`get agents` marks an agent another environment gives its id as that environment\'s, not unmanaged', async () => {
    const cwd = await tree({ 'voxform.yaml': manifest('Thanks for calling Acme Dental.') });
    const marks = async (...env: string[]) => {
      const result = await runCliInProcess(['get', 'agents', '--local', '--format', 'json', ...env], { cwd });
      expect(result.stderr).toBe('');
      const { agents } = JSON.parse(result.stdout) as { agents: Array<{ id: string; managed_by: string | null; environment: string | null }> };
      return Object.fromEntries(agents.filter((agent) => agent.id.includes('FrontDesk') || agent.id.endsWith('ym')).map((agent) => [agent.id, [agent.environment, agent.managed_by]]));
    };
    // Without --env each front desk is its environment's; with it, the other environment's is.
    expect(await marks()).toEqual({ '-OKdqbqetEcM4ak369ym': ['production', 'agent.front-desk'], '-OKstagingFrontDesk01': ['staging', 'agent.front-desk'] });
    expect(await marks('--env', 'production')).toEqual({ '-OKdqbqetEcM4ak369ym': [null, 'agent.front-desk'], '-OKstagingFrontDesk01': ['staging', 'agent.front-desk'] });
    const text = await runCliInProcess(['get', 'agents', '--local', '--env', 'production'], { cwd });
    expect(text.stdout).toMatch(/^-OKstagingFrontDesk01 +Front desk \(staging\) +staging: agent\.front-desk +/m);
  });

  it('a local name given to --agent or `get agents` without --env is the missing id, as plan says it, whatever the file is called', async () => {
    // agents.yaml, named with -f: the error names neither voxform.yaml nor an unknown agent.
    const cwd = await tree({ 'agents.yaml': manifest('Thanks for calling Acme Dental.') });
    const missing =
      'error[missing_id]: agent "front-desk" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME\n' +
      '  hint: Run again with --env staging or --env production.\n';
    for (const args of [['logs', '--agent', 'front-desk'], ['report', '--agent', 'front-desk'], ['get', 'agents', 'front-desk'], ['chat', '--agent', 'front-desk']]) {
      const result = await runCliInProcess([...args, '-f', 'agents.yaml', '--local'], { cwd, input: 'hi\n' });
      expect(result.stderr, args.join(' ')).toBe(missing);
      expect(result.code).toBe(1);
    }
    // The display name the entry writes stands for its local name: the same missing id, not an unknown agent.
    for (const args of [['logs', '--agent', 'Front desk'], ['get', 'agents', 'Front desk'], ['emulator', 'traffic', '--calls', '1', '--agent', 'Front desk']]) {
      const result = await runCliInProcess([...args, '-f', 'agents.yaml', '--local'], { cwd });
      expect(result.stderr, args.join(' ')).toBe(missing);
      expect(result.code).toBe(1);
    }
    // With --env, the name is that environment's agent.
    const staging = await runCliInProcess(['get', 'agents', 'front-desk', '-f', 'agents.yaml', '--env', 'staging', '--local', '--format', 'json'], { cwd });
    expect(staging.stderr).toBe('');
    expect((JSON.parse(staging.stdout) as { agents: Array<{ id: string }> }).agents.map((agent) => agent.id)).toEqual(['-OKstagingFrontDesk01']);
    // A name that is no agent's: the hint names the file read.
    const unknown = await runCliInProcess(['logs', '--agent', 'nobody', '-f', 'agents.yaml', '--local'], { cwd });
    expect(unknown.stderr).toBe(
      'error[agent_unknown]: --agent "nobody" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.\n' +
        '  hint: Give an agent id, or an agent name from agents.yaml (-f to name other manifests; if a warning above says they could not be read, `voxform validate` says why).\n',
    );
  });
});

describe('voxform validate, in process', () => {
  async function runInProcess(cwd: string, color: boolean) {
    const { run } = await import('../../src/cli/commands/validate.js');
    const { SecretRegistry } = await import('../../src/secrets/redact.js');
    const secrets = new SecretRegistry();
    let stdout = '';
    let stderr = '';
    const { streamPrinter } = await import('../../src/cli/context.js');
    const output = (write: (text: string) => void) => {
      const printed = streamPrinter(secrets, { isTTY: color }, {});
      return { write: (text: string) => write(printed(text)), isTTY: color, columns: 100 };
    };
    const code = await run(
      { format: 'text' },
      {
        cwd,
        env: {},
        stdout: output((text) => (stdout += text)),
        stderr: output((text) => (stderr += text)),
        stdin: process.stdin,
        color,
        secrets,
        confirm: undefined,
        onExit: () => undefined,
        interrupted: () => new Promise<never>(() => undefined),
        writeSent: () => () => undefined,
      },
    );
    return { code, stdout, stderr };
  }

  it('colours the location, message, caret and summary only when asked to', async () => {
    const cwd = await tree({ 'voxform.yaml': 'agents:\n  a: { id: 5 }\n' });
    const plain = await runInProcess(cwd, false);
    const coloured = await runInProcess(cwd, true);
    expect(plain.code).toBe(1);
    expect(plain.stderr).not.toMatch(/\u001b\[/);
    expect(coloured.stderr).toMatch(/\u001b\[/);
    // eslint-disable-next-line no-control-regex
    expect(coloured.stderr.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain.stderr);
  });
});

describe('an error that quotes a name voxform did not write', () => {
  it('shows its control characters escaped, whatever the source forgot (the one printer of errors escapes them)', async () => {
    const name = 'no\u001b]0;pwned\u0007such.yaml';
    const result = await runCliInProcess(['validate', '-f', name], { cwd: repoRoot });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[manifest_not_found]: no\\u001b]0;pwned\\u0007such.yaml does not exist');
    // eslint-disable-next-line no-control-regex
    expect(result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('refuses an llm.temperature outside the 0 to 2 the service takes, without the advice for a high one', async () => {
    const agent = (name: string, temperature: number) => [`  ${name}:`, `    id: ag_${name}`, `    config: { llm: { temperature: ${temperature} } }`];
    const cwd = await tree({ 'voxform.yaml': ['agents:', ...agent('low', -5), ...agent('high', 2.5)].join('\n') });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter((line) => /^voxform\.yaml:/.test(line))).toEqual([
      'voxform.yaml:4:35  error[invalid_value]: llm.temperature must be at least 0, found -5',
      'voxform.yaml:7:35  error[invalid_value]: llm.temperature must be at most 2, found 2.5',
    ]);
    expect(result.stderr).not.toContain('improvise');
  });
});
