/**
 * A committed `.voxform/` is the pull request's: `.voxform/state.json` (the state),
 * `.voxform/local.json` (the embedded emulator's data), the history records and the lock's holder
 * files are read under the guards of every project file — a regular file, not linked out of its
 * folder, within its size cap — and what fails to parse is never quoted. Each case must end in a
 * sentence naming the file (a hang would end in the helper's kill, -1; memory spent on /dev/zero
 * ended in "Invalid string length").
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, realpath, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_EMULATOR_DATA_JSON_VALUES,
  MAX_HISTORY_RECORD_BYTES,
  MAX_HISTORY_RECORD_JSON_VALUES,
  MAX_KEPT_FILE_BYTES,
  MAX_KEPT_JSON_DEPTH,
  MAX_STATE_JSON_VALUES,
} from '../../src/project-files/limits.js';
import { repoRoot, runCliInProcess, spawnCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const PLANTED = 'AWS_SECRET_planted_4c8e2a';
const MANIFEST = 'version: 1\nagents:\n  desk:\n    id: "-OKdqbqetEcM4ak369ym"\n    config: { first_message: Hello }\n';

/** A project whose `.voxform/NAME` (NAME may name a folder inside) is made by `make`, and beside it (outside) a file holding a planted secret. */
async function project(name: string, make: (file: string, outside: string) => Promise<void>): Promise<string> {
  const base = await tempDir({ 'outside/secret.txt': `${PLANTED}=1\n`, 'project/voxform.yaml': MANIFEST });
  const dir = path.join(base, 'project');
  await mkdir(path.dirname(path.join(dir, '.voxform', name)), { recursive: true });
  await make(path.join(dir, '.voxform', name), path.join(base, 'outside'));
  return dir;
}

const link = (target: string) => (file: string) => symlink(target, file);

const CASES: Array<[string, (file: string, outside: string) => Promise<void>, RegExp]> = [
  ['a link to /dev/zero', link('/dev/zero'), /is a symbolic link leading out of its folder\. It was not read\./],
  ['a link to /dev/urandom', link('/dev/urandom'), /is a symbolic link leading out of its folder\./],
  ['a link to a file outside', (file, outside) => symlink(path.join(outside, 'secret.txt'), file), /is a symbolic link leading out of its folder\./],
  ['a link to a FIFO outside', async (file, outside) => (execFileSync('mkfifo', [path.join(outside, 'pipe')]), symlink(path.join(outside, 'pipe'), file)), /is a symbolic link leading out of its folder\./],
  ['a FIFO', async (file) => void execFileSync('mkfifo', [file]), /is a FIFO \(named pipe\), not a regular file\./],
  ['a link to standard input', link('/dev/stdin'), /is a symbolic link (to nothing voxform can read|leading out of its folder)\./],
  ['over its size cap', async (file) => (await writeFile(file, ''), truncate(file, MAX_KEPT_FILE_BYTES + 1)), /is 268,435,457 bytes; the limit is 256 MiB \(268,435,456 bytes\)\. It was not read\./],
  ['text that is not JSON', async (file) => writeFile(file, `${PLANTED}=1\n`), /is not valid JSON\./],
];

describe.each([
  ['state.json', 'The state file'],
  ['local.json', 'The emulator data file'],
])('.voxform/%s from the repository', (name, noun) => {
  it.each(CASES)('%s: exit 1, a clear error, nothing of it shown', async (_case, make, problem) => {
    const dir = await project(name, make);
    const result = await runCliInProcess(['plan', '--local'], { cwd: dir });
    expect(result.stderr).toMatch(new RegExp(`error\\[(state|emulator_data)_(invalid|unreadable)\\]: ${noun} `));
    expect(result.stderr).toMatch(problem);
    expect(result.stderr).not.toContain('Invalid string length');
    // Not even the start of it (the JSON parser's own message quotes the first ten characters).
    expect(`${result.stdout}${result.stderr}`).not.toContain(PLANTED.slice(0, 8));
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(1);
  });
});

/**
 * A file that is not a regular file inside its folder: a link to /dev/zero (memory), a link to a
 * file outside (a leak) and a FIFO (a hang). One reader guards every kept file: the state and
 * emulator files are run through all the cases above, history records and holder files through
 * these three (each case spawns the CLI twice, and the suite's time is budgeted).
 */
const NOT_REGULAR = CASES.filter(([name]) => ['a link to /dev/zero', 'a link to a file outside', 'a FIFO'].includes(name)).map(
  ([name, make, problem]): [string, (file: string, outside: string) => Promise<void>, RegExp] => [name, make, new RegExp(problem.source.replace(/\\\.( It was not read\\\.)?$/, ''))],
);

function expectNothingOfIt(result: { stdout: string; stderr: string }): void {
  expect(result.stderr).not.toContain('Invalid string length');
  expect(`${result.stdout}${result.stderr}`).not.toContain(PLANTED.slice(0, 8));
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('.voxform/history/ records from the repository', () => {
  const RECORD = 'history/20260101T000000000Z-abcdef.json';
  const cases: Array<[string, (file: string, outside: string) => Promise<void>, RegExp]> = [
    ...NOT_REGULAR,
    ['over its size cap', async (file) => (await writeFile(file, ''), truncate(file, MAX_HISTORY_RECORD_BYTES + 1)), /is 268,435,457 bytes; the limit is 256 MiB/],
  ];
  it.each(cases)('%s: skipped with a warning naming it, the rest of the history still shown', async (_case, make, problem) => {
    const dir = await project(RECORD, make);
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir })).code).toBe(0);
    const result = await runCliInProcess(['history', '--local'], { cwd: dir });
    expect(result.stderr).toContain(`warning: .voxform/${RECORD} is skipped: it is not a voxform history record (it `);
    expect(result.stderr).toMatch(problem);
    expect(result.stdout).toContain('agents changed: desk');
    expectNothingOfIt(result);
    expect(result.code).toBe(0);
  });
});

describe('.voxform/state.json.lock holder files from the repository', () => {
  it.each(NOT_REGULAR)('%s: the lock is held by an unknown run, in status and apply alike', async (_case, make, problem) => {
    const dir = await project('state.json.lock/holder-abc.json', make);
    const status = await runCliInProcess(['status', '--local'], { cwd: dir });
    expect(status.stdout).toContain('held by an unknown run (its holder file holder-abc.json ');
    expect(status.stdout).toMatch(problem);
    expectNothingOfIt(status);
    expect(status.code).toBe(0);
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve', '--lock-timeout', '0'], { cwd: dir });
    expect(apply.stderr).toContain('is locked by an unknown run (its holder file holder-abc.json ');
    expectNothingOfIt(apply);
    expect(apply.code).toBe(1);
  });
});

/** `count` empty objects as a list (`[{},{},…]`, 3 bytes each) or as the members of one object (`{"a":{},…}`, 7 bytes each). */
function emptyObjects(count: number, shape: 'list' | 'members'): Buffer {
  return Buffer.from(shape === 'list' ? `[${'{},'.repeat(count - 1)}{}]` : `{${'"a":{},'.repeat(count - 1)}"a":{}}`);
}

describe('kept files within their budget of JSON values and depth', () => {
  it.each([
    ['state.json', 'list', MAX_STATE_JSON_VALUES + 1, 'state_unreadable', 'The state file', MAX_STATE_JSON_VALUES],
    ['state.json', 'members', MAX_STATE_JSON_VALUES + 1, 'state_unreadable', 'The state file', MAX_STATE_JSON_VALUES],
    ['local.json', 'list', MAX_EMULATOR_DATA_JSON_VALUES + 1, 'emulator_data_unreadable', 'The emulator data file', MAX_EMULATOR_DATA_JSON_VALUES],
  ] as const)('.voxform/%s of empty objects (%s, one more than the limit, far under the size cap): refused at the limit, naming the file, the limit and a fix', async (name, shape, count, code, noun, limit) => {
    const dir = await project(name, (file) => writeFile(file, emptyObjects(count, shape)));
    const result = await runCliInProcess(['plan', '--local', '--format', 'json'], { cwd: dir });
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code,
        message: expect.stringMatching(new RegExp(`^${noun} \\S*\\.voxform/${name} holds more than ${limit.toLocaleString('en-US')} JSON values, the limit\\. It was not read\\.$`)),
        hint: expect.stringMatching(/[Dd]elete it|restore the file from version control/),
      },
    });
    expectNothingOfIt(result);
    expect(result.code).toBe(1);
  });

  it('a state nested deeper than the limit: refused, naming the file and the limit', async () => {
    const dir = await project('state.json', (file) => writeFile(file, `${'['.repeat(MAX_KEPT_JSON_DEPTH + 1)}${']'.repeat(MAX_KEPT_JSON_DEPTH + 1)}`));
    const result = await runCliInProcess(['plan', '--local'], { cwd: dir });
    expect(result.stderr).toContain(`.voxform/state.json nests deeper than ${MAX_KEPT_JSON_DEPTH} levels, the limit. It was not read.`);
    expect(result.code).toBe(1);
  });

  it('a history record over its budget: skipped with a warning naming it and the limit', async () => {
    const RECORD = 'history/20260101T000000000Z-abcdef.json';
    const dir = await project(RECORD, (file) => writeFile(file, emptyObjects(MAX_HISTORY_RECORD_JSON_VALUES + 1, 'list')));
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir })).code).toBe(0);
    const result = await runCliInProcess(['history', '--local'], { cwd: dir });
    expect(result.stderr).toContain(`warning: .voxform/${RECORD} is skipped: it is not a voxform history record (it holds more than ${MAX_HISTORY_RECORD_JSON_VALUES.toLocaleString('en-US')} JSON values, the limit`);
    expect(result.stdout).toContain('agents changed: desk');
    expect(result.code).toBe(0);
  });
});

describe('a kept file that is slow to load', () => {
  it('SIGTERM while the state is being read ends the run with 130, no trace', async () => {
    const dir = await project('state.json', (file) => writeFile(file, '{"version":1,"serial":0,"workspaces":{}}\n'));
    // Every read of a file under .voxform/ announces itself and then never completes: the load
    // can end only by the signal.
    const { child, output, exited, stderrShows } = spawnCli(dir, {}, ['plan', '--local'], { preload: path.join(repoRoot, 'test/helpers/stall-kept-reads.mjs') });
    await stderrShows('stalled reading');
    expect(output.stderr).toContain(`stalled reading ${path.join(await realpath(dir), '.voxform/state.json')}`);
    child.kill('SIGTERM');
    expect(await exited, output.stderr).toBe(130);
    expect(output.stderr).toContain('error[interrupted]: voxform stopped at your request.\n  hint: Run the command again to finish its work.\n');
    expect(output.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a kept folder that is a symbolic link (a committed .voxform or voxform-ci link)', () => {
  const PROMO = 'VICTIM-PROMO-SECRET-42';
  const LINKED = /error\[kept_folder_linked\]: (\.voxform|voxform-ci)\S* \(in .+\) is (a symbolic link|inside \S+, a symbolic link): voxform reads and writes its own files/;

  /** A git work tree holding the manifest, and beside it (outside) an empty folder. */
  async function checkout(): Promise<{ dir: string; outside: string }> {
    const base = await tempDir({ 'project/voxform.yaml': MANIFEST, 'project/.git/HEAD': 'ref: refs/heads/main\n', 'outside/.keep': '' });
    return { dir: path.join(base, 'project'), outside: path.join(base, 'outside') };
  }

  async function expectUntouched(outside: string): Promise<void> {
    expect(await readdir(outside)).toEqual(['.keep']);
  }

  it("plan --local --format markdown through a link to another project's .voxform: refused, its secret never shown", async () => {
    const victim = await checkout();
    await writeFile(path.join(victim.dir, 'voxform.yaml'), MANIFEST.replace('first_message: Hello', 'first_message: "Promo ${env:PROMO_CODE}"'));
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: victim.dir, env: { PROMO_CODE: PROMO } })).code).toBe(0);
    const { dir } = await checkout();
    await symlink(path.join(victim.dir, '.voxform'), path.join(dir, '.voxform'));
    const result = await runCliInProcess(['plan', '--local', '--format', 'markdown'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(LINKED);
    expect(result.stdout + result.stderr).not.toContain(PROMO);
  });

  it.each([
    ['plan --local', ['plan', '--local']],
    ['apply --local', ['apply', '--local', '--auto-approve']],
    ['apply with the state in the linked folder', ['apply', '--local', '--auto-approve', '--state', 'kept/state.json']],
  ])('%s writes nothing where .voxform leads', async (_name, args) => {
    const { dir, outside } = await checkout();
    await symlink(outside, path.join(dir, '.voxform'));
    await symlink(outside, path.join(dir, 'kept'));
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error\[kept_folder_linked\]: (\.voxform|kept)\S* \(in .+\) is (a symbolic link|inside)/);
    await expectUntouched(outside);
  });

  it('a linked .voxform/history: apply records nothing there, and history refuses to list it', async () => {
    const { dir, outside } = await checkout();
    await mkdir(path.join(dir, '.voxform'));
    await symlink(outside, path.join(dir, '.voxform/history'));
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
    expect(apply.stderr).toContain('.voxform/history (in ');
    await expectUntouched(outside);
    const history = await runCliInProcess(['history', '--local'], { cwd: dir });
    expect(history.code).toBe(1);
    expect(history.stderr).toMatch(LINKED);
  });

  it('plan --out and plan show refuse a saved plan in a linked folder', async () => {
    const { dir, outside } = await checkout();
    await symlink(outside, path.join(dir, 'voxform-ci'));
    const saved = await runCliInProcess(['plan', '--local', '--out', 'voxform-ci/plan.json'], { cwd: dir });
    expect(saved.code).toBe(1);
    expect(saved.stderr).toMatch(LINKED);
    await expectUntouched(outside);
    await writeFile(path.join(outside, 'plan.json'), `{"kind": "voxform-plan", "note": "${PROMO}"}\n`);
    const shown = await runCliInProcess(['plan', 'show', 'voxform-ci/plan.json'], { cwd: dir });
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(LINKED);
    expect(shown.stdout + shown.stderr).not.toContain(PROMO);
  });

  it('ci run writes nothing into a linked voxform-ci', async () => {
    const { dir, outside } = await checkout();
    await symlink(outside, path.join(dir, 'voxform-ci'));
    const result = await runCliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--command-args', '--local'], {
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/heads/main' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(LINKED);
    await expectUntouched(outside);
  });

  it('keeps working for a project reached through a linked parent folder', async () => {
    const base = await tempDir({ 'real/project/voxform.yaml': MANIFEST, 'real/project/.git/HEAD': 'ref: refs/heads/main\n' });
    await symlink(path.join(base, 'real'), path.join(base, 'linked'));
    const dir = path.join(base, 'linked/project');
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir })).code).toBe(0);
    const history = await runCliInProcess(['history', '--local'], { cwd: dir });
    expect(history.stdout).toContain('agents changed: desk');
    expect(await readdir(path.join(base, 'real/project/.voxform'))).toContain('state.json');
  });
});
