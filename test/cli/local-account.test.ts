/**
 * `--local` keeps one emulator account per folder, as the state: run from a subfolder of a project
 * whose folder has an account, it starts a new one there, and says where the project's is.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, spawnCli, useTempDirs } from '../helpers/cli.js';
import { STAGED_MANIFEST } from '../helpers/project.js';
import { runBy } from '../../src/util/run-identity.js';

const tempDir = useTempDirs();

describe('--local from a subfolder', () => {
  it("says that it starts a new account there, and where the project's account is", async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    execFileSync('git', ['init', '-q'], { cwd: dir });
    await mkdir(path.join(dir, 'tests'));
    const atRoot = await runCliInProcess(['plan', '--local'], { cwd: dir });
    expect(atRoot.code, atRoot.stderr).toBe(0);
    expect(atRoot.stderr).not.toContain('note: --local');

    const below = await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: path.join(dir, 'tests') });
    expect(below.code, below.stderr).toBe(0);
    expect(below.stderr).toContain(
      `note: --local keeps one account per folder, as the state: this folder has none yet, so it starts a new one in ${path.join('.voxform', 'local.json')}; the manifests' folder .. holds another, ${path.join('..', '.voxform', 'local.json')}, used when voxform runs from ...\n`,
    );
    // Said again while the manifests' folder holds another account: the folder uses its own now.
    const again = await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: path.join(dir, 'tests') });
    expect(again.stderr).toContain(`note: --local keeps one account per folder, as the state: this run uses this folder's, ${path.join('.voxform', 'local.json')}; the manifests' folder .. holds another,`);

    // Manifests of the subfolder's own: the enclosing folder of the git work tree holds the project's account.
    const inner = path.join(dir, 'inner');
    await mkdir(inner);
    await writeFile(path.join(inner, 'voxform.yaml'), STAGED_MANIFEST);
    const own = await runCliInProcess(['plan', '--local'], { cwd: inner });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toContain(
      `note: --local keeps one account per folder, as the state: this folder has none yet, so it starts a new one in ${path.join('.voxform', 'local.json')}; the project's is in ${path.join('..', '.voxform', 'local.json')}, used when voxform runs from ...\n`,
    );
  });

  it("outside a git work tree, says so when the manifests' folder holds the account, and nothing otherwise", async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    await mkdir(path.join(dir, 'tests'));
    expect((await runCliInProcess(['plan', '--local'], { cwd: dir })).code).toBe(0);
    const below = await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: path.join(dir, 'tests') });
    expect(below.code, below.stderr).toBe(0);
    expect(below.stderr).toContain(
      `note: --local keeps one account per folder, as the state: this folder has none yet, so it starts a new one in ${path.join('.voxform', 'local.json')}; the manifests' folder .. holds another, ${path.join('..', '.voxform', 'local.json')}, used when voxform runs from ...\n`,
    );

    const elsewhere = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    await mkdir(path.join(elsewhere, 'tests'));
    const unrelated = await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: path.join(elsewhere, 'tests') });
    expect(unrelated.code, unrelated.stderr).toBe(0);
    expect(unrelated.stderr).not.toContain('note: --local');
  });
});

describe('a damaged .voxform/local.json', () => {
  it('is refused as any --local command starts, naming the field, with a hint for the folder\'s file (not --data, which plan has not)', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const made = await runCliInProcess(['plan', '--local'], { cwd: dir });
    expect(made.code, made.stderr).toBe(0);
    const dataFile = path.join(dir, '.voxform', 'local.json');
    const data = JSON.parse(await readFile(dataFile, 'utf8'));
    const hint = `  hint: Restore ${path.join('.voxform', 'local.json')} from git (\`git checkout -- ${path.join('.voxform', 'local.json')}\`) if it was committed, or delete it to start again from the default seed.\n`;

    await writeFile(dataFile, JSON.stringify({ ...data, agents: 'x' }));
    const noList = await runCliInProcess(['plan', '--local', '--env', 'staging'], { cwd: dir });
    expect(noList.code).toBe(1);
    expect(noList.stderr).toBe(`error[emulator_data_invalid]: The emulator data file ${dataFile} cannot be used: agents is a string, where a list belongs.\n${hint}`);

    // It loaded, then failed in a request (a 500 naming no field) when an agent was talked to.
    data.agents[0].config = null;
    await writeFile(dataFile, JSON.stringify(data));
    const nullConfig = await runCliInProcess(['plan', '--local', '--env', 'staging'], { cwd: dir });
    expect(nullConfig.code).toBe(1);
    expect(nullConfig.stderr).toBe(`error[emulator_data_invalid]: The emulator data file ${dataFile} cannot be used: agents[0].config is null, where the agent's configuration (an object) belongs.\n${hint}`);
  });
});

describe('a file named .voxform where --local keeps its account', () => {
  it('is refused, saying which file cannot be written and how to make room for the account (no --data, which plan has not)', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST, '.voxform': 'not a folder\n' });
    const result = await runCliInProcess(['plan', '--local'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error[emulator_data_unwritable]: The emulator cannot write its data file ${path.join(dir, '.voxform', 'local.json')}: a part of its folder is a file, not a folder. It did not start.\n` +
        `  hint: --local keeps its account in ${path.join('.voxform', 'local.json')}: make .voxform in this folder a folder you may write (move away a file of that name, \`git rm .voxform\` if it is committed), or run voxform from another folder.\n`,
    );
    expect(await readFile(path.join(dir, '.voxform'), 'utf8')).toBe('not a folder\n');
  });
});

describe('--local beside `voxform emulator --data .voxform/local.json`', () => {
  it('refuses to use the file the emulator owns, naming it, and leaves the file as the emulator wrote it', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const dataFile = path.join(dir, '.voxform', 'local.json');
    await mkdir(path.dirname(dataFile));
    const emulator = spawnCli(dir, {}, ['emulator', '--data', path.join('.voxform', 'local.json'), '--port', '0']);
    try {
      while (!emulator.output.stdout.includes('listening on')) {
        expect(emulator.child.exitCode, emulator.output.stderr).toBeNull();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const written = await readFile(dataFile, 'utf8');
      const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
      expect(apply.code).toBe(1);
      expect(apply.stderr).toContain(`error[emulator_data_in_use]: The emulator data file ${dataFile} is in use by ${runBy()} (pid ${emulator.child.pid}, "voxform emulator --data", since `);
      expect(apply.stderr).toContain('hint: Point this command at that emulator instead of --local');
      expect(await readFile(dataFile, 'utf8')).toBe(written);
    } finally {
      emulator.child.kill('SIGTERM');
      await emulator.exited;
    }
    // Once the emulator stopped, the file is the folder's again.
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
    expect(apply.code, apply.stderr).toBe(0);
  });
});
