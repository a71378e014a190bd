/**
 * `voxform drift` and `voxform history` from a subfolder of a project that is in no git work tree,
 * with the manifests named by `-f ..`, against the emulator on loopback: the default state is the
 * subfolder's, so the commands say that the manifests' folder holds another; and drift, whose state
 * holds no apply of the workspace, never calls a difference "in git, not applied yet" nor the
 * service a match of "the last apply", and says how to name the project's state.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { useExampleProjects, type ExampleProject } from '../helpers/project.js';
import { editLive } from './live-agent.js';

const startProject = useExampleProjects();

const STATE = path.join('.voxform', 'state.json');
const THEIRS = path.join('..', STATE);
const NOTE_NEW = `note: voxform keeps the state and its deploy history per folder: this folder has none yet, so it starts a new one in ${STATE}; the manifests' folder .. holds another, ${THEIRS}, used when voxform runs from .., or with --state ${THEIRS}.\n`;
const NOTE_OWN = `note: voxform keeps the state and its deploy history per folder: this run uses this folder's, ${STATE}; the manifests' folder .. holds another, ${THEIRS}, used when voxform runs from .., or with --state ${THEIRS}.\n`;

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

/** The front desk alone: every field of an agent can be read back, so an empty state can find no drift. */
const FRONT_DESK_ONLY = ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    config: { prompt: "You are the receptionist of Acme Dental." }', ''].join('\n');

/** The project applied from its folder, and an empty subfolder of it. */
async function appliedWithSubfolder(): Promise<{ p: ExampleProject; sub: string; fromSub: (args: string[]) => Promise<CliResult> }> {
  const p = await startProject();
  await writeFile(path.join(p.dir, 'voxform.yaml'), FRONT_DESK_ONLY);
  expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
  const sub = path.join(p.dir, 'sub');
  await mkdir(sub);
  return { p, sub, fromSub: (args) => runCliInProcess(args, { cwd: sub, env: p.env }) };
}

describe('drift and history from a subfolder, outside a git work tree', () => {
  it("say that the manifests' folder holds the state, and drift claims no apply its state does not hold", async () => {
    const { p, fromSub } = await appliedWithSubfolder();

    const clean = expectCode(await fromSub(['drift', '-f', '../voxform.yaml']), 0);
    expect(clean.stderr).toContain(NOTE_NEW);
    expect(clean.stdout).toContain(`matches the manifests (1 resource checked). No apply of workspace default@${p.url} is recorded in this state (${STATE}), so it was compared with the manifests alone.`);
    expect(clean.stdout).toContain('name its state with --state');
    // The apply that records one is this run's, its manifests named as the run named them: pasted here, a bare `voxform apply` finds none.
    expect(clean.stdout).toContain('otherwise `voxform apply -f ../voxform.yaml` records one.');
    expect(clean.stdout).not.toContain('the last apply');

    const history = expectCode(await fromSub(['history', '-f', '../voxform.yaml']), 0);
    expect(history.stderr).toContain(NOTE_NEW);

    await editLive(p, (config) => {
      config.prompt = 'You are a pirate. Answer every question with a sea shanty.';
    });

    const edited = expectCode(await fromSub(['drift', '-f', '..']), 2);
    expect(edited.stderr).toContain(NOTE_NEW);
    expect(edited.stdout).not.toContain('in git, not applied yet');
    expect(edited.stdout).toContain('! agent.front-desk (-OKdqbqetEcM4ak369ym) differs, no apply recorded in this state');
    expect(edited.stdout).toContain(`No apply of workspace default@${p.url} is recorded in this state (${STATE}), so where a difference came from is not known`);
    expect(edited.stdout).toContain('Drift: 1 resource differs: 0 changed outside voxform, 0 in git not applied yet, 0 both, 1 with no apply recorded in this state (1 resource checked).');
    expect(edited.stdout).toContain('otherwise `voxform apply -f ..` records one.');

    const document = JSON.parse(expectCode(await fromSub(['drift', '-f', '..', '--format', 'json']), 2).stdout) as Record<string, unknown>;
    expect(document.summary).toEqual({ checked: 1, outside: 0, pending: 0, both: 0, unlabelled: 0, environment: 0, unrecorded: 1 });
    expect(document.no_apply_recorded).toEqual({ state: STATE });
    expect((document.resources as Array<{ class: string }>).map((r) => r.class)).toEqual(['unrecorded']);

    // Which side moved is not known: nothing is healed, and nothing is claimed of the agent.
    const heal = expectCode(await fromSub(['drift', '-f', '..', '--heal', '--auto-approve']), 2);
    expect(heal.stdout).toContain('Nothing to heal: no agent is known to be changed outside voxform (this state records no apply of the workspace: name the one the project was applied with, --state).');
    expect(heal.stdout).not.toContain('Heal ');
    // No heal ran: the JSON report after it carries no outcome, its words on stderr.
    const healJson = expectCode(await fromSub(['drift', '-f', '..', '--heal', '--auto-approve', '--format', 'json']), 2);
    expect(healJson.stderr).toContain('Nothing to heal: no agent is known to be changed outside voxform (this state records no apply of the workspace');
    const healDocument = JSON.parse(healJson.stdout) as Record<string, unknown>;
    expect(healDocument).not.toHaveProperty('heal');
    expect(healDocument.resources).toEqual([expect.not.objectContaining({ healed: expect.anything() })]);
    expect(healDocument.no_apply_recorded).toEqual({ state: STATE });

    const markdown = expectCode(await fromSub(['drift', '-f', '..', '--format', 'markdown']), 2).stdout;
    expect(markdown).not.toContain('in git, not applied yet');
    expect(markdown).toContain('differs, no apply recorded in this state');
    expect(markdown).toContain('otherwise `voxform apply -f ..` records one.');

    // The project's state, named: the edit is told for what it is, and nothing needs saying.
    const named = expectCode(await fromSub(['drift', '-f', '..', '--state', THEIRS]), 2);
    expect(named.stderr).not.toContain('deploy history per folder');
    expect(named.stdout).toContain('! agent.front-desk (-OKdqbqetEcM4ak369ym) changed outside voxform');
    expect(named.stdout).not.toContain('no apply recorded');
  });

  it("says so also when the subfolder holds a state of its own: the manifests' folder holds another", async () => {
    const { p, sub, fromSub } = await appliedWithSubfolder();
    await mkdir(path.join(sub, '.voxform'));
    await copyFile(path.join(p.dir, STATE), path.join(sub, STATE));
    const own = expectCode(await fromSub(['drift', '-f', '..']), 0);
    expect(own.stderr).toContain(NOTE_OWN);
    expect(own.stdout).toContain('matches the manifests and the last apply');

    // Manifests of this folder: the state is this folder's, and nothing needs saying.
    const here = expectCode(await p.cliInProcess(['drift']), 0);
    expect(here.stderr).not.toContain('deploy history per folder');
  });
});
