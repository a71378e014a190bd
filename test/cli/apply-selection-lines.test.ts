/**
 * The command lines an apply prints for what comes next carry what the run was about: its
 * `--target`s and `--take-over`s with its manifests and state, in the line that finishes it and in
 * every plan it names to see where things stand (a second Ctrl-C, a lost lock, a state another run
 * wrote). `--allow-missing-state` is not carried: the run wrote the workspace to the state, so the
 * line that finishes it needs it no more. The CLI in-process, against the emulator behind the
 * project's proxy, which holds the writes while the test acts.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GracefulStop } from '../../src/cli/context.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { thisRun } from '../../src/util/run-identity.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
/** What the runs below are about, as typed. */
const SELECTION = ['-f', 'voxform.yaml', '--target', 'agent.front-desk', '--take-over', 'agent.front-desk'];
const RECHECK = 'voxform plan -f voxform.yaml --target agent.front-desk --take-over agent.front-desk';

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

/** The targeted apply, its front desk's update held on the wire until `meddle` has run and the test lets it go. */
async function applyMeddledWith(p: ExampleProject, meddle: () => Promise<void>): Promise<CliResult> {
  const puts = p.hold('PUT', '/agents/');
  const run = p.cliInProcess(['apply', ...SELECTION, '--auto-approve']);
  await puts.arrived();
  await meddle();
  puts.release();
  return run;
}

describe("an apply's printed command lines", () => {
  it('finish with the run\'s --target and --take-over, without --allow-missing-state, and pasted they finish it', { timeout: 120_000 }, async () => {
    const p = await startProject();
    // Applied once (the history records it), then the state lost.
    expectCode(await p.cliInProcess(['apply', '--auto-approve', '--target', 'knowledge.faq']), 0);
    await rm(path.join(p.dir, '.voxform', 'state.json'));
    p.emulator.control.setFaults([{ path: `/agents/${encodeURIComponent(FRONT_DESK)}`, method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = expectCode(await p.cliInProcess(['apply', ...SELECTION, '--allow-missing-state', '--auto-approve']), 1);
    expect(failed.stdout).toMatch(/^Warning: the state \(\.voxform\/state\.json\) holds nothing of workspace /);
    const finish = /run `voxform (apply [^`]+)` again to finish\.\n$/.exec(failed.stdout)?.[1];
    expect(finish).toBe('apply -f voxform.yaml --target agent.front-desk --take-over agent.front-desk');

    p.emulator.control.clearFaults();
    const finished = expectCode(await p.cliInProcess([...(finish as string).split(' '), '--auto-approve']), 0);
    expect(finished.stdout).toContain('Apply complete: 1 applied, 0 failed, 0 skipped.');
  });

  it("of a saved plan that did not finish plan it again with the plan's own targets", { timeout: 120_000 }, async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['plan', '--out', 'plan.json', '-f', 'voxform.yaml', '--target', 'agent.front-desk']), 0);
    p.emulator.control.setFaults([{ path: `/agents/${encodeURIComponent(FRONT_DESK)}`, method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = expectCode(await p.cliInProcess(['apply', 'plan.json']), 1);
    expect(failed.stdout).toContain('to finish, run `voxform plan --out plan.json -f voxform.yaml --target agent.front-desk`, review the new plan, and run `voxform apply plan.json`');
  });

  it('name, for a stop at once, the plan of the run\'s targets and take-overs', { timeout: 120_000 }, async () => {
    const p = await startProject();
    const stops: Array<GracefulStop | undefined> = [];
    expectCode(await runCliInProcess(['apply', ...SELECTION, '--auto-approve'], { cwd: p.dir, env: p.env, stops }), 0);
    expect(stops.map((stop) => stop?.atOnce?.hint)).toEqual([`Run \`${RECHECK}\` to see where things stand.`]);
  });

  it('name, after the lock was forced open, the plan of the run\'s targets and take-overs', { timeout: 120_000 }, async () => {
    const p = await startProject();
    const lost = expectCode(
      await applyMeddledWith(p, async () => {
        const backend = new FileStateBackend(path.join(p.dir, '.voxform/state.json'));
        await backend.forceUnlock((await backend.readLock())!.lockId, thisRun('voxform state unlock --force', undefined));
      }),
      1,
    );
    expect(lost.stdout).toMatch(new RegExp(`; run \`${RECHECK}\` to see where things stand, then apply again\\.\\n$`));
    expect(lost.stderr).toContain(`run \`${RECHECK}\` to see where things stand.`);
  });

  it('name, when another run wrote the state meanwhile, the plan of the run\'s targets and take-overs', { timeout: 120_000 }, async () => {
    const p = await startProject();
    const conflict = expectCode(
      await applyMeddledWith(p, () => writeFile(path.join(p.dir, '.voxform/state.json'), JSON.stringify({ version: 1, serial: 100, workspaces: {} }))),
      1,
    );
    expect(conflict.stderr).toMatch(/error\[state_conflict\]: .*\n {2}hint: Another run wrote the state without holding the lock\. Run `(.+)` again to see where things stand, then apply\.\n$/);
    expect(conflict.stderr).toContain(`Run \`${RECHECK}\` again to see where things stand, then apply.`);
  });
});
