/**
 * The command lines voxform prints for the user to run next: finish an interrupted apply, apply a
 * saved plan, force a stuck lock open. Each carries the options of this run that chose what it works
 * on (manifests, environment, service, state) as the user typed them, so that pasted it works on
 * the same project and service as this run, never on a default one: a staging run's "run it again"
 * must not apply the production defaults. Every such line is built here, and so are the git
 * commands voxform suggests.
 */
import { shellWord } from '../util/shell-word.js';
import { pastableStateSpec } from '../state/postgres/url.js';
import type { ConnectionOptions } from './context.js';

/** The options that choose what a run works on (those of src/cli/project.ts's ProjectOptions). */
export interface ChosenTarget extends Pick<ConnectionOptions, 'local' | 'baseUrl' | 'region'> {
  file?: string[] | undefined;
  /** `voxform diff`'s is a list (`--env staging --env production`). */
  env?: string | readonly string[] | undefined;
  state?: string | undefined;
}

/**
 * `voxform WORDS` (already quoted) and the chosen options; `manifests: false` leaves out `-f` and
 * `--env`, only for `apply PLAN`: a saved plan names its own manifests, and apply refuses both beside it.
 */
export function nextCommand(words: string, chosen: ChosenTarget, options: LineOptions = {}): string {
  return [`voxform ${words}`, ...chosenFlags(chosen, options)].join(' ');
}

/**
 * What a line carries beyond the chosen options. `targets` and `takeOver`: the `--target`s and
 * `--take-over`s of the apply the line continues, every one: an apply or a saved plan without its
 * targets would apply resources nobody reviewed, and without its take-overs the plan it makes is
 * refused for the very resources the run was approved to move; a plan to see where things stand
 * shows what the run was about, as the run planned it.
 */
export interface LineOptions {
  manifests?: boolean;
  targets?: readonly string[] | undefined;
  takeOver?: readonly string[] | undefined;
}

/** The options of `chosen` as nextCommand writes them, each value quoted (a state URL's password left out). */
export function chosenFlags(chosen: ChosenTarget, options: LineOptions = {}): string[] {
  const flags: string[] = [];
  if (options.manifests !== false) {
    for (const file of chosen.file ?? []) flags.push('-f', shellWord(file));
    for (const environment of chosen.env === undefined ? [] : typeof chosen.env === 'string' ? [chosen.env] : chosen.env) flags.push('--env', shellWord(environment));
  }
  for (const address of options.targets ?? []) flags.push('--target', shellWord(address));
  for (const address of options.takeOver ?? []) flags.push('--take-over', shellWord(address));
  if (chosen.local) flags.push('--local');
  if (chosen.baseUrl !== undefined) flags.push('--base-url', shellWord(chosen.baseUrl));
  if (chosen.region !== undefined) flags.push('--region', shellWord(chosen.region));
  return [...flags, ...stateFlags(chosen)];
}

/**
 * A command's own options that chose what its line works on beyond ChosenTarget (the agent whose
 * headers `webhook serve` checks, the port it listens on), each with its value quoted, for the words
 * nextCommand takes; an option not given is left out.
 */
export function ownFlags(options: ReadonlyArray<readonly [flag: string, value: string | undefined]>): string[] {
  return options.flatMap(([flag, value]) => (value === undefined ? [] : [flag, shellWord(value)]));
}

/** `--env A or --env B`: the flags a hint offers to choose one of `environments`, each quoted. */
export function envChoices(environments: readonly string[]): string {
  return environments.map((environment) => `--env ${shellWord(environment)}`).join(' or ');
}

/** A saved plan's command lines: planning it again into the same file, and applying it. */
export interface SavedPlanCommands {
  /** `voxform plan --out PLAN` with the plan's manifests and environment, and the service and state. */
  plan: string;
  /** `voxform apply PLAN` with the service and state only: the plan names its manifests. */
  apply: string;
}

/**
 * The command lines of the saved plan `planFile` (as the user typed it), made with `chosen`;
 * `selection`: the plan's own `--target`s and `--take-over`s, which planning it again keeps.
 */
export function savedPlanCommands(planFile: string, chosen: ChosenTarget, selection: Pick<LineOptions, 'targets' | 'takeOver'> = {}): SavedPlanCommands {
  return {
    plan: nextCommand(`plan --out ${shellWord(planFile)}`, chosen, { targets: selection.targets, takeOver: selection.takeOver }),
    apply: nextCommand(`apply ${shellWord(planFile)}`, chosen, { manifests: false }),
  };
}

/**
 * `--state SPEC` when the option named the state backend: `voxform state unlock` must open the lock
 * of that backend. A database URL's password is never printed: the line shows `PASSWORD` in its
 * place for the operator to fill in (pastableStateSpec). VOXFORM_STATE stays in the environment and
 * needs no flag.
 */
export function stateFlags(chosen: Pick<ChosenTarget, 'state'>): string[] {
  return chosen.state === undefined ? [] : ['--state', shellWord(pastableStateSpec(chosen.state))];
}

/** `git`, run in `gitFolder` (a path from where the user is) when that is not where they are. */
function gitWord(gitFolder: string | undefined): string {
  return gitFolder === undefined ? 'git' : `git -C ${shellWord(gitFolder)}`;
}

/**
 * `files` (paths from where the user is, or from `gitFolder`) put back as commit `source` had them,
 * and committed as one commit of those files alone: what keeps a rollback to `source`. The files are
 * named on both sides, so that nothing else (voxform's own state and history, a change the user has
 * staged) is put back or committed. A path git would read as a pattern (`*`, `?`, `[`, `\\`) or as
 * pathspec magic (a leading `:`) is marked literal.
 */
export function gitRestoreCommand(source: string, files: readonly string[], message: string, gitFolder?: string): string {
  const git = gitWord(gitFolder);
  const paths = files.map((file) => shellWord(/[*?[\\]|^:/.test(file) ? `:(literal)${file}` : file)).join(' ');
  return `${git} restore --source=${shellWord(source)} -- ${paths} && ${git} commit -m ${shellWord(message)} -- ${paths}`;
}

/** What to change the manifests by to return to `to` from `from`, for when no file they are read from now was in `to`. */
export function gitDiffCommand(from: string, to: string, gitFolder?: string): string {
  return `${gitWord(gitFolder)} diff ${shellWord(from)} ${shellWord(to)}`;
}
