/**
 * The command lines voxform prints for the user to run next: finish an interrupted apply, apply a
 * saved plan, force a stuck lock open. Each carries the options of this run that chose what it works
 * on (manifests, environment, service, state) as the user typed them, so that pasted it works on
 * the same project and service as this run, never on a default one: a staging run's "run it again"
 * must not apply the production defaults. Every such line is built here.
 */
import { shellWord } from '../util/shell-word.js';
import { pastableStateSpec } from '../state/postgres/url.js';
import type { ConnectionOptions } from './context.js';

/** The options that choose what a run works on (those of src/cli/project.ts's ProjectOptions). */
export interface ChosenTarget extends Pick<ConnectionOptions, 'local' | 'baseUrl' | 'region'> {
  file?: string[] | undefined;
  env?: string | undefined;
  state?: string | undefined;
}

/**
 * `voxform WORDS` (already quoted) and the chosen options; `manifests: false` leaves out `-f` and
 * `--env`, only for `apply PLAN`: a saved plan names its own manifests, and apply refuses both beside it.
 */
export function nextCommand(words: string, chosen: ChosenTarget, options: { manifests?: boolean } = {}): string {
  const flags: string[] = [];
  if (options.manifests !== false) {
    for (const file of chosen.file ?? []) flags.push('-f', shellWord(file));
    if (chosen.env !== undefined) flags.push('--env', shellWord(chosen.env));
  }
  if (chosen.local) flags.push('--local');
  if (chosen.baseUrl !== undefined) flags.push('--base-url', shellWord(chosen.baseUrl));
  if (chosen.region !== undefined) flags.push('--region', shellWord(chosen.region));
  return [`voxform ${words}`, ...flags, ...stateFlags(chosen)].join(' ');
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
