/**
 * `voxform history` and `voxform rollback` on a history folder that is data like any other: damaged
 * or foreign records are skipped with a warning (never a crash, never "applied"), a record's escape
 * sequences never reach the terminal, and a folder that is a file is a clear error. Built CLI, the
 * file backend; nothing here needs the service but the rollbacks (`--local`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/types.js';
import { MAX_DIAGNOSTICS_SHOWN } from '../../src/project-files/limits.js';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const MANIFEST = 'version: 1\nagents:\n  front-desk:\n    id: -OKdqbqetEcM4ak369ym\n    config:\n      first_message: "Hello"\n';
const GOOD = '20261123T100000000Z-aaaaaa';

function record(id: string, change: (record: Record<string, any>) => void = () => undefined): HistoryRecord {
  const written: Record<string, any> = {
    id,
    workspace: 'default@local',
    at: '2026-11-23T10:00:00.000Z',
    by: 'dev@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: 'a'.repeat(40), branch: 'main' },
    summary: { create: 0, update: 1, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: { 'front-desk': { id: '-OKdqbqetEcM4ak369ym', config: { first_message: 'Hello from the record' }, configHash: `sha256:${'0'.repeat(64)}`, maskedPaths: [] } },
  };
  change(written);
  return written as HistoryRecord;
}

/** A project whose history holds a good record and the damaged ones given (by id). */
async function projectWith(damaged: Record<string, (record: Record<string, any>) => void>): Promise<string> {
  const dir = await tempDir({ 'voxform.yaml': MANIFEST });
  const folder = path.join(dir, '.voxform/history');
  await mkdir(folder, { recursive: true });
  for (const [id, change] of Object.entries({ [GOOD]: () => undefined, ...damaged })) {
    await writeFile(path.join(folder, `${id}.json`), JSON.stringify(record(id, change)));
  }
  return dir;
}

const cli = (dir: string, args: string[]) => runCliInProcess(args, { cwd: dir });

describe('a damaged history record', () => {
  it('is skipped with a warning by history, which lists the rest', async () => {
    const dir = await projectWith({
      '20261123T110000000Z-bbbbbb': (r) => (r.agents['front-desk'] = null),
      '20261123T120000000Z-cccccc': (r) => (r.source = { commit: 1234567 }),
      '20261123T130000000Z-dddddd': (r) => (r.summary = {}),
    });
    for (const format of ['text', 'json']) {
      const result = await cli(dir, ['history', '--local', '--format', format]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(GOOD);
      expect(result.stdout).not.toContain('undefined');
      expect(result.stderr).not.toContain('unexpected problem');
      expect(result.stderr).toContain(`warning: ${path.join('.voxform/history', '20261123T110000000Z-bbbbbb.json')} is skipped: it is not a voxform history record (agents.front-desk: not an object).`);
      expect(result.stderr).toContain('(source.commit: not a commit id (40 or 64 hex digits))');
      expect(result.stderr).toContain('(summary.create: not a count)');
    }
  });

  it('is named as far as diagnostics are: a ledger full of junk names the first ones, and counts the rest in one line', async () => {
    const junk = MAX_DIAGNOSTICS_SHOWN + 10;
    const dir = await projectWith({});
    for (let n = 0; n < junk; n++) {
      await writeFile(path.join(dir, '.voxform/history', `20261124T${String(n).padStart(6, '0')}000Z-${n.toString(16).padStart(6, '0')}.json`), '{}');
    }
    const result = await runCli(['history', '--local'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(GOOD);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
    expect(warnings.filter((line) => line.includes(' is skipped: it is not a voxform history record'))).toHaveLength(MAX_DIAGNOSTICS_SHOWN);
    expect(warnings.at(-1)).toBe(`warning: …and 10 more files of the ledger are skipped, not voxform history records (only the first ${MAX_DIAGNOSTICS_SHOWN} are named).`);
    expect(warnings).toHaveLength(MAX_DIAGNOSTICS_SHOWN + 1);
  });

  it('is never restored: a config that is not an object is skipped, and rollback of it applies nothing', async () => {
    const damaged = '20261123T110000000Z-bbbbbb';
    const dir = await projectWith({ [damaged]: (r) => (r.agents['front-desk'].config = 'str') });
    const result = await cli(dir, ['rollback', damaged, '--local', '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(agents.front-desk.config: not an object)');
    expect(result.stderr).toContain(`No history record of this workspace is "${damaged}"`);
    expect(result.stdout).not.toContain('Apply complete');
  });

  it('never sends a record\'s escape sequences to the terminal: such a record is skipped', async () => {
    const hostile = '20261123T110000000Z-bbbbbb';
    const dir = await projectWith({
      [hostile]: (r) => {
        r.at = '2026-11-23T11:00:00.000Z\u001b[31mRED';
        r.source.branch = 'main\u001b]0;pwned\u0007';
      },
    });
    for (const args of [['history', '--local'], ['rollback', hostile, '--local', '--auto-approve'], ['rollback', 'aaaaaaa', '--local', '--auto-approve']]) {
      const result = await cli(dir, args);
      expect(result.stdout + result.stderr, args.join(' ')).not.toMatch(/[\u001b\u0007]/);
    }
    expect((await cli(dir, ['history', '--local'])).stderr).toContain('(at: not a time (ISO 8601, UTC))');
  });
});

describe('agents changed', () => {
  it('is the same for a record whatever --limit and --agent show', async () => {
    // Each name its own agent: an agent is its id.
    const version = (name: string, v: string) => ({ id: `ag-${name}`, config: { first_message: v }, configHash: `sha256:${v.repeat(64)}`, maskedPaths: [] });
    const agents = (versions: Record<string, string>) => (r: Record<string, any>) => {
      r.agents = Object.fromEntries(Object.entries(versions).map(([name, v]) => [name, version(name, v)]));
    };
    const all = (v: string) => agents({ constructor: v, toString: v, hasOwnProperty: v });
    // v1; all v2; a rollback of constructor, then of toString; an apply of v2 again.
    const dir = await projectWith({
      '20261123T110000000Z-bbbbbb': all('2'),
      '20261123T120000000Z-cccccc': agents({ constructor: '1' }),
      '20261123T130000000Z-dddddd': agents({ toString: '1' }),
      '20261123T140000000Z-eeeeee': all('2'),
    });
    await writeFile(path.join(dir, '.voxform/history', `${GOOD}.json`), JSON.stringify(record(GOOD, all('1'))));
    for (const args of [[], ['--limit', '1'], ['--limit', '5'], ['--agent', 'constructor'], ['--agent', 'hasOwnProperty', '--limit', '1']]) {
      const result = await cli(dir, ['history', '--local', '--format', 'json', ...args]);
      const newest = (JSON.parse(result.stdout) as { records: Array<{ id: string; agents_changed: string[] }> }).records[0];
      expect(newest, args.join(' ')).toEqual(expect.objectContaining({ id: '20261123T140000000Z-eeeeee', agents_changed: ['constructor', 'toString'] }));
    }
  });
});

describe('a record of apply', () => {
  it('holds the options that chose what was applied in its command, and a second apply that found nothing to do names no agent changed', async () => {
    const dir = await tempDir({ 'voxform.yaml': `${MANIFEST}environments:\n  production: {}\n` });
    const first = await cli(dir, ['apply', '--local', '--env', 'production', '--auto-approve', '--target', 'agent.front-desk', '--take-over', 'agent.front-desk']);
    expect(first.code, first.stderr).toBe(0);
    const again = await cli(dir, ['apply', '--local', '--env', 'production', '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    const json = await cli(dir, ['history', '--local', '--env', 'production', '--format', 'json']);
    const records = (JSON.parse(json.stdout) as { records: Array<{ command: string; outcome: string; agents_changed: string[] }> }).records;
    expect(records.map(({ command, outcome, agents_changed }) => ({ command, outcome, agents_changed }))).toEqual([
      { command: 'voxform apply --env production', outcome: 'nothing_to_do', agents_changed: [] },
      { command: 'voxform apply --env production --target agent.front-desk --take-over agent.front-desk', outcome: 'applied', agents_changed: ['front-desk'] },
    ]);
    const text = await cli(dir, ['history', '--local', '--env', 'production']);
    expect(text.stdout).toContain('0 applied, 0 failed, 0 skipped\n  agents changed: none\n');
    expect(text.stdout).toContain('1 applied, 0 failed, 0 skipped\n  agents changed: front-desk (first record: every agent)\n');
  });
});

describe('an apply that changed only a value from the environment', () => {
  it('names the agent it changed, never the value: a record holds the reference, the same as before', async () => {
    const manifest = `${MANIFEST}      session_data_webhook:\n        url: https://hooks.example.com/end\n        headers:\n          x-hook-token: \${env:HOOK_TOKEN}\n`;
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const apply = (token: string) => runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { HOOK_TOKEN: token } });
    expect((await apply('first-token-value-1')).code).toBe(0);
    const again = await apply('second-token-value-2');
    expect(again.stdout).toContain('1 to update');
    const history = await runCliInProcess(['history', '--local'], { cwd: dir, env: { HOOK_TOKEN: 'second-token-value-2' } });
    const [latest] = history.stdout.split('\n\n').slice(1);
    expect(latest).toMatch(/1 applied, 0 failed, 0 skipped\n {2}agents changed: front-desk$/);
    const json = await runCliInProcess(['history', '--local', '--format', 'json'], { cwd: dir, env: {} });
    expect(json.stdout).not.toContain('token-value');
    // Applied again with the same value, nothing is written: no agent changed.
    expect((await apply('second-token-value-2')).code).toBe(0);
    const idle = await runCliInProcess(['history', '--local', '--limit', '1'], { cwd: dir, env: {} });
    expect(idle.stdout).toContain('agents changed: none\n');
  });
});

describe('--agent', () => {
  it('refuses a name neither the manifests nor the history hold, suggesting the closest, exit 1; a name of either is a filter', async () => {
    const dir = await projectWith({ '20261123T110000000Z-bbbbbb': (r) => (r.agents = { booking: r.agents['front-desk'] }) });
    const typo = await cli(dir, ['history', '--local', '--agent', 'frontdesk']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe('error[agent_unknown]: --agent "frontdesk" is neither an agent of the manifests nor one of the apply history.\n  hint: Did you mean front-desk?\n');
    // An id is no name: the hint lists the names it takes, never suggests an id.
    const byId = await cli(dir, ['history', '--local', '--agent=-OKdqbqetEcM4ak369ym']);
    expect(byId.stderr).toMatch(/\n {2}hint: Agents of the manifests and the history: (booking, front-desk|front-desk, booking)\.\n$/);
    expect(byId.code).toBe(1);
    const recorded = await cli(dir, ['history', '--local', '--agent', 'booking']);
    expect(recorded.code).toBe(0);
    expect(recorded.stdout).toContain('20261123T110000000Z-bbbbbb');
    expect(recorded.stdout).not.toContain(GOOD);
  });
});

describe('--agent, with manifests whose ids are the environments\'', () => {
  const STAGED = 'version: 1\nagents:\n  front-desk:\n    config: { first_message: Hello }\nenvironments:\n  staging:\n    agents: { front-desk: { id: -OKstagingFrontDesk01 } }\n  production:\n    agents: { front-desk: { id: -OKdqbqetEcM4ak369ym } }\n';

  it('a name only the environments give an id, without --env: missing_id naming them, as logs and report say it', async () => {
    const dir = await tempDir({ 'agents.yaml': STAGED });
    const result = await cli(dir, ['history', '--local', '--agent', 'front-desk']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error[missing_id]: agent "front-desk" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME\n  hint: Run again with --env staging or --env production.\n',
    );
  });

  it('without --env, an empty default workspace is refused as plan refuses the manifests, naming the environments, never "no history yet"', async () => {
    const dir = await tempDir({ 'agents.yaml': STAGED });
    const applied = await cli(dir, ['apply', '--local', '--env', 'staging', '--auto-approve', '--take-over', 'agent.front-desk']);
    expect(applied.code, applied.stderr).toBe(0);
    const message = "`voxform history` needs --env here: the manifests give their agents' ids only in their environments (staging and production), whose applies are recorded under them, and default@local has no record.";
    const text = await cli(dir, ['history', '--local']);
    expect({ code: text.code, stdout: text.stdout, stderr: text.stderr }).toEqual({ code: 1, stdout: '', stderr: `error[invalid_argument]: ${message}\n  hint: Run again with --env staging or --env production.\n` });
    const json = await cli(dir, ['history', '--local', '--format', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toEqual({ code: 'invalid_argument', message, hint: 'Run again with --env staging or --env production.' });
    const staging = await cli(dir, ['history', '--local', '--env', 'staging']);
    expect(staging.code).toBe(0);
    expect(staging.stdout).toContain('History of staging@local, newest first:');
  });

  it('manifests with an error besides the ids: the warning counts as validate does, and a name of theirs is never unknown', async () => {
    // Production gives "b" no id: one error, production's. Without --env the manifests alone have two (a's id and b's).
    const dir = await tempDir({
      'agents.yaml': 'version: 1\nagents:\n  a: { name: A }\n  b: { name: B }\nenvironments:\n  staging:\n    agents: { a: { id: -OKspareAgent0000004 }, b: { id: -OKspareAgent0000005 } }\n  production:\n    agents: { a: { id: -OKspareAgent0000001 } }\n',
    });
    const validated = await cli(dir, ['validate']);
    expect(validated.stderr).toMatch(/\n1 error in 1 file\n$/);
    const warning = 'warning: the manifests have 1 error (`voxform validate` lists them): their agent names and service are not used.\n';
    const withoutEnv = await cli(dir, ['history', '--local', '--agent', 'a']);
    expect(withoutEnv.code).toBe(1);
    expect(withoutEnv.stderr).toBe(
      `${warning}error[missing_id]: agent "a" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME\n  hint: Run again with --env staging or --env production.\n`,
    );
    const broken = await cli(dir, ['history', '--local', '--agent', 'a', '--env', 'production']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe(
      `${warning}error[manifest_invalid]: --agent "a" is an agent of the manifests, which have errors: its id is not known.\n  hint: Fix the errors \`voxform validate\` lists (with the same -f and --env), or give the agent's id.\n`,
    );
  });

  it('a name nothing gives: the hint names the manifest file read, not voxform.yaml', async () => {
    const dir = await tempDir({ 'agents.yaml': STAGED });
    const result = await cli(dir, ['history', '--local', '--agent', 'nobody']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error[agent_unknown]: --agent "nobody" is neither an agent of the manifests nor one of the apply history.\n' +
        '  hint: Give an agent name from the apply history, or an agent name from agents.yaml (-f to name other manifests; if a warning above says they could not be read, `voxform validate` says why).\n',
    );
  });
});

describe('the operator\'s settings', () => {
  it('a malformed VOXFORM_ENV_ALLOW stops history --local, as it stops apply --local', async () => {
    const dir = await projectWith({});
    for (const command of ['history', 'apply']) {
      const result = await runCliInProcess([command, '--local'], { cwd: dir, env: { VOXFORM_ENV_ALLOW: 'bad name!' } });
      expect(result.code, command).toBe(1);
      expect(result.stderr).toContain('error[env_allow_invalid]: VOXFORM_ENV_ALLOW holds "bad name!", which is neither a variable name nor a PREFIX_* pattern.');
      expect(result.stdout).not.toContain(GOOD);
    }
  });
});

describe('a history folder that is a file', () => {
  it.each<{ name: string; files: Record<string, string>; args: string[]; folder: string }>([
    { name: '.voxform/history is a file', files: { '.voxform/history': '' }, args: [], folder: '.voxform/history' },
    { name: '--state under a file', files: { afile: '' }, args: ['--state', 'afile/state.json'], folder: 'afile/history' },
  ])('stops history and rollback with a clear error: $name', async ({ files, args, folder }) => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, ...files });
    for (const command of [['history'], ['rollback', 'previous', '--auto-approve']]) {
      const result = await cli(dir, [...command, '--local', ...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error[state_unreadable]: Cannot read the history folder ${path.join(dir, folder)}: it, or a folder above it, is a file.`);
      expect(result.stderr).not.toMatch(/unexpected problem|ENOTDIR|\n\s+at /);
    }
  });
});
