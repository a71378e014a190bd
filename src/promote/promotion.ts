/**
 * What makes a promotion exact: the checkout is the commit the source's record deployed (or one that
 * differs from it only in voxform's own files), clean, and its manifests give the source exactly
 * the configuration that record holds. The target is then
 * planned from the same manifests with its own overlay (its ids, secrets and values), so it gets
 * that configuration and nothing else. Also the gate table and the refusal sentence.
 */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { recordedAgentConfig } from '../history/record.js';
import { sameRecordedConfig, shortCommit, type DeploySource, type HistoryRecord, type LedgerRecord } from '../history/types.js';
import type { DesiredState } from '../manifest/types.js';
import { pluralNoun, someOf } from '../util/plural.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import type { ConfigurationOrigin } from '../history/configuration-origin.js';
import { deployedAs, type GateResult } from './gates.js';
import { greatest } from '../util/extremes.js';

/**
 * Refuses unless the work tree is the commit of what the source runs with nothing beside it in the
 * files the deploys are made from. That commit is the one of `origin` (`configurationOrigin`): the
 * record's own, or for a rollback the restored record's, never the commit the rollback ran at.
 * `betweenCommits`: those files the checkout's commit holds otherwise than that one (`projectFilesChanged`),
 * none as when the state is committed after the apply (docs/ci.md); undefined when git cannot tell.
 * A hint never sends back here: checking out the recorded commit may take a committed ledger with
 * it, so applying the source from this checkout is offered first. `changed`: the files with changes
 * beside the commit, from the working folder, and the folder git is asked in (`.`: the working
 * folder), which the hint's `git stash` runs in. Both are named. `applySource`, `historySource`: the source's `voxform apply` and
 * `voxform history` lines with this run's options. Returns the record whose commit it is.
 */
export function checkCheckout(
  current: Pick<LedgerRecord, 'id' | 'source'>,
  origin: ConfigurationOrigin,
  checkout: DeploySource,
  source: string,
  betweenCommits: readonly string[] | undefined,
  changed?: ChangedFiles,
  applySource = `voxform apply --env ${source}`,
  historySource = `voxform history --env ${source}`,
): LedgerRecord {
  const rollback = current.source.rollbackOf;
  if ('problem' in origin) {
    const applyHere = `Apply ${source} from this checkout first (\`${applySource}\`), so that what it runs is what a commit holds, then promote`;
    // The restored configuration is still promotable: an apply from its commit under this key records it sealed.
    const hint = origin.unsealed === undefined
      ? `${applyHere}.`
      : `To promote what this checkout holds, apply ${source} from it first (\`${applySource}\`), then promote; to promote the configuration the rollback restored, apply ${source} with this API key from a checkout of the commit that holds it (\`${historySource}\` lists record ${origin.unsealed} and its commit: an apply with nothing to do there records it sealed), then promote from that checkout.`;
    throw new VoxformError('promote_checkout_mismatch', `${source} runs a rollback to record ${rollback}, and no commit is known to hold that configuration: ${controlsAsQuestionMarks(origin.problem)}.`, { hint });
  }
  const made = origin.record;
  const deployed = made.source.commit;
  const runs = deployedAs(current, made);
  if (!deployed) {
    const what = rollback === undefined ? `${source}'s last apply (${current.id}) recorded no commit` : `${source} runs ${runs}, whose apply (${made.id}) recorded no commit`;
    throw new VoxformError('promote_checkout_mismatch', `${what}: which manifests made it is not known.`, {
      hint: `Apply ${source} from a git checkout (the ledger records its commit), then promote.`,
    });
  }
  if (made.source.uncommitted) {
    const what = rollback === undefined ? `${source} was applied from commit ${shortCommit(deployed, true)}` : `${source} runs ${runs}`;
    throw new VoxformError('promote_checkout_mismatch', `${what}: no commit holds what it runs.`, {
      hint: `Commit the change, apply ${source} from that commit, then promote.`,
    });
  }
  if (checkout.commit !== deployed && betweenCommits?.length !== 0) {
    const here = checkout.commit ? `this checkout is at ${shortCommit(checkout.commit, undefined)}` : 'this folder is not a git checkout';
    const differ = betweenCommits === undefined ? '' : `; the two commits differ in ${someOf(betweenCommits.map(controlsAsQuestionMarks), NAMED_CHANGES)}`;
    throw new VoxformError('promote_checkout_mismatch', `${source} runs ${runs}, and ${here}${differ}.`, {
      hint: checkout.commit
        ? `Apply ${source} from this checkout first (\`${applySource}\`) and promote again, or promote from commit ${deployed.slice(0, 12)} itself.`
        : `Promote from a git checkout of commit ${deployed.slice(0, 12)}.`,
    });
  }
  if (checkout.uncommitted !== false) {
    const named = changed && changed.files.length > 0 ? `: ${someOf(changed.files.map(controlsAsQuestionMarks), NAMED_CHANGES)}` : '';
    const restored = rollback === undefined ? '' : ` (a rollback to record ${rollback})`;
    throw new VoxformError('promote_checkout_mismatch', `The manifests or a file they read hold changes beside commit ${shortCommit(deployed, undefined)}, which ${source} runs${restored}${named}.`, {
      // Committing alone leads to the refusal above: the source runs the older commit.
      hint:
        `To promote them, commit them and apply ${source} from that commit first (\`${applySource}\`), then promote; ` +
        `to promote what ${source} runs, set them aside with \`${stashCommand(changed)}\` and promote again.`,
    });
  }
  return made;
}

/** How many changed files the refusal names. */
const NAMED_CHANGES = 5;
/** How many agents a refusal names that the source's last record leaves out. */
const NAMED_AGENTS = 3;

/** Files with changes beside the commit, from the working folder, and the folder (from it) git is asked in. */
export interface ChangedFiles {
  files: readonly string[];
  gitFolder: string;
}

/**
 * The `git stash` line that sets the changed files aside, run in the folder git was asked in (the
 * working folder may be outside the repository); the files as it takes them when each is a plain
 * path, else a placeholder for them.
 */
function stashCommand(changed: ChangedFiles | undefined): string {
  const folder = changed?.gitFolder ?? '.';
  const files = (changed?.files ?? []).map((file) => (folder === '.' ? file : path.relative(folder, file)));
  const plain = files.length > 0 && files.length <= NAMED_CHANGES && [folder, ...files].every((file) => /^[\w./@+-]+$/.test(file) && !file.startsWith('-'));
  const inFolder = folder === '.' ? 'git' : `git -C ${plain ? folder : 'FOLDER'}`;
  return `${inFolder} stash push --include-untracked -- ${plain ? files.join(' ') : 'FILE…'}`;
}

/**
 * Refuses unless the manifests, with the source's overlay, give every agent of the record the
 * configuration it records (a rollback's record holds another commit's configuration, for one),
 * and the record holds every agent they give the source: one that leaves an agent out (an apply
 * with --target, a heal of drift) does not say what that agent runs.
 */
export function checkSourceConfiguration(current: HistoryRecord, desiredSource: DesiredState, source: string, applySource = `voxform apply --env ${source}`): void {
  const applyFirst = `Apply ${source} from this checkout first (\`${applySource}\`), so that what it runs is what a commit holds, then promote.`;
  const unrecorded = [...desiredSource.agents.keys()].filter((name) => !Object.hasOwn(current.agents, name));
  if (unrecorded.length > 0) {
    const count = unrecorded.length;
    throw new VoxformError('promote_checkout_mismatch', `The manifests of this checkout give ${source}'s ${pluralNoun(count, 'agent')} ${controlsAsQuestionMarks(someOf(unrecorded.sort(), NAMED_AGENTS))} ${pluralNoun(count, 'a configuration', 'configurations')} its last record (${current.id}) does not hold: an apply with --target and a heal of drift record only the agents they write.`, {
      hint: applyFirst,
    });
  }
  for (const [name, version] of Object.entries(current.agents)) {
    const agent = desiredSource.agents.get(name);
    const recorded = agent ? recordedAgentConfig(agent) : undefined;
    if (recorded !== undefined && sameRecordedConfig(recorded, version)) continue;
    const why = current.source.rollbackOf ? ` (its last record is a rollback to ${current.source.rollbackOf})` : '';
    throw new VoxformError('promote_checkout_mismatch', `The manifests of this checkout do not give ${source}'s agent ${controlsAsQuestionMarks(name)} the configuration ${source} runs${why}.`, { hint: applyFirst });
  }
}

/** The gate table: one line per gate, `✓`/`✗`, what it asks and its evidence. */
export function renderGateTable(results: readonly GateResult[], source: string, target: string): string {
  if (results.length === 0) return `Gates of ${target}: none set, so ${source} is promoted to it without conditions.\n`;
  const width = greatest(results.map((result) => `${result.gate} ${result.required}`.length));
  const lines = results.map((result) => `  ${result.passed ? '✓' : '✗'} ${`${result.gate} ${result.required}`.padEnd(width)}  ${controlsAsQuestionMarks(result.evidence)}`);
  return `Gates of ${target} (evidence from ${source}):\n${lines.join('\n')}\n`;
}

/**
 * The refusal of the first gate that failed, as one sentence naming it and its evidence; undefined
 * when all pass. Its hint gives each failed gate's own fix, then where the gates are changed.
 */
export function gateRefusal(results: readonly GateResult[], source: string, target: string): VoxformError | undefined {
  const failed = results.filter((result) => !result.passed);
  const first = failed[0];
  if (!first) return undefined;
  const more = failed.length > 1 ? `; also failing: ${failed.slice(1).map((result) => result.gate).join(', ')}` : '';
  const fixes = failed.flatMap((result) => (result.fix === undefined ? [] : [`${result.gate}: ${controlsAsQuestionMarks(result.fix)}.`]));
  return new VoxformError('promote_gate_failed', `Refusing to promote ${source} to ${target}: ${first.gate}: ${controlsAsQuestionMarks(first.evidence)}${more}.`, {
    hint: [...fixes, `The gates are set in the manifest under environments.${target}.gates (docs/promotion.md); the table above shows each with its evidence.`].join(' '),
  });
}
