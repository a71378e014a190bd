/**
 * `voxform export` stopped by Ctrl-C writes all or nothing: stopped while its files are written, it
 * leaves no file and no folder it made (as a failed write does), and says nothing was written; stopped once they are all in place
 * (while it checks the exported manifest's policy), it says the export is complete and that only the
 * check was cut short, and its hint names no command that would fail. The run is held at the point
 * under test (a preload stalls a temporary file's write; an operator's rule pack never finishes
 * loading), and the signal is sent once it says it is held there.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, spawnCli } from '../helpers/cli.js';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();
const EXPORT = ['export', '--agent', '-OKdqbqetEcM4ak369ym', '--out', 'exported'];

describe('voxform export stopped by Ctrl-C', () => {
  it('while its files are written: nothing is left, not even the folders it made', async () => {
    const project = await startProject();
    // The manifest's temporary file is written; the next one never completes.
    const env = { ...project.env, STALL_TEMP_WRITES_AFTER: '1' };
    const run = spawnCli(project.dir, env, EXPORT, { preload: path.join(repoRoot, 'test/helpers/stall-temp-writes.mjs') });
    await run.stderrShows('stalled writing');
    run.child.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);
    expect(run.output.stdout).toBe('');
    expect(run.output.stderr).toContain('error[interrupted]: voxform stopped at your request; nothing was written.\n  hint: Run the command again to export the agents.\n');
    expect(await readdir(project.dir)).not.toContain('exported');
  });

  it('once every file is in place: says the export is complete and only its check was cut short', async () => {
    const project = await startProject();
    // The check of the exported manifest loads the operator's rule pack: this one never finishes loading.
    const packs = await mkdtemp(path.join(tmpdir(), 'voxform-pack-'));
    const pack = path.join(packs, 'stalled-pack.mjs');
    await writeFile(pack, "process.stderr.write('stalled loading the pack\\n');\nsetInterval(() => undefined, 60_000);\nawait new Promise(() => undefined);\n");
    const run = spawnCli(project.dir, { ...project.env, VOXFORM_POLICY_PACKS: pack }, EXPORT);
    await run.stderrShows('stalled loading the pack');
    run.child.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);
    expect(run.output.stdout).toContain('Exported 1 agent');
    expect(run.output.stderr).toContain(
      'error[interrupted]: voxform stopped at your request; the export is complete: every file listed above is in exported; only the policy check of the exported manifest was cut short.\n' +
        '  hint: Run `voxform validate -f exported/voxform.yaml` for that check (the export itself is done: its files are in place).\n',
    );
    expect(run.output.stderr).not.toContain('Run the command again');
    await rm(packs, { recursive: true, force: true });
  });
});
