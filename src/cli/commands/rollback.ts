/**
 * `voxform rollback REF`: agents back to a recorded configuration through plan and apply. The manifests
 * in git are unchanged, so the next apply undoes it: the output says so and gives the `git restore` that
 * keeps it (unless what it restored is what the manifests say now).
 */
import { resolveHistoryRef } from '../../history/resolve-ref.js';
import { stateDigest } from '../../plan/plan-file.js';
import { fingerprintKey } from '../../util/hash.js';
import { desiredFromRecord, unnamedAgents } from '../../history/restore.js';
import { AgentNames } from '../../history/agent-names.js';
import { sameRecordedConfig, shortCommit, type LedgerRecord, type RecordSummary } from '../../history/types.js';
import { recordedAgentConfig } from '../../history/record.js';
import { filesAtCommit } from '../../history/files-at-commit.js';
import type { DesiredState } from '../../manifest/types.js';
import { VoxformError } from '../../errors.js';
import { controlsAsQuestionMarks } from '../../util/printable.js';
import { shellWord } from '../../util/shell-word.js';
import { gitDiffCommand, gitRestoreCommand, nextCommand } from '../next-command.js';
import type { CommandContext } from '../context.js';
import { withTakeOverCommands } from '../take-over.js';
import { connectProject, deployedFiles, deploySourceOf, gitAskedIn, planInputs } from '../project.js';
import { applyOnTerminal, applyRunSettings, type ApplyRunOptions } from '../apply-on-terminal.js';
import { promotedRollbackNote } from '../promotion-notice.js';
import { recordedCommand } from '../recorded-command.js';
import { allSummaries, wholeRecord } from '../history-records.js';
import { configurationOrigin, type ConfigurationOrigin } from '../../history/configuration-origin.js';

interface RollbackOptions extends ApplyRunOptions {
  /** `REF`. */
  args?: string[];
  agent?: string[];
}

/**
 * The record restored, as the output names it: checked when read, and its controls shown as `?` all
 * the same. Of a rollback, the commit named is its origin's (`configurationOrigin`), none when unknown:
 * the commit it ran at holds another configuration.
 */
function describeRecord(record: LedgerRecord, origin: ConfigurationOrigin): string {
  const rollback = record.source.rollbackOf;
  const made = rollback === undefined ? record : 'record' in origin ? origin.record : undefined;
  const source = made?.source ?? {};
  const from = [source.commit ? `commit ${shortCommit(source.commit, source.uncommitted)}` : undefined, source.branch ? `on ${source.branch}` : undefined].filter(Boolean).join(' ');
  const parts = [record.at, rollback === undefined ? '' : `a rollback to record ${rollback}`, from].filter(Boolean);
  return controlsAsQuestionMarks(`${record.id} (${parts.join(', ')})`);
}

/** The newest commit deployed after the restored record other than `commit`, the one that holds its configuration: what keeping the rollback returns from. */
function commitDeployedAfter(records: readonly LedgerRecord[], restored: LedgerRecord, commit: string | undefined): string | undefined {
  const newer = records.slice(0, Math.max(0, records.indexOf(restored)));
  return newer.find(({ source }) => source.commit && source.commit !== commit && !source.rollbackOf && !source.healOf)?.source.commit;
}

/**
 * Whether every agent restored is, name and config, what the manifests say now: each side as the
 * history records it (references, not the values read from them; ignored paths left out).
 */
function manifestsSayRestored(restored: DesiredState, manifests: DesiredState): boolean {
  return [...restored.agents].every(([name, agent]) => {
    const written = manifests.agents.get(name);
    if (!written || written.id !== agent.id) return false;
    return sameRecordedConfig(recordedAgentConfig(agent), recordedAgentConfig(written));
  });
}

/** `promoted`: of an environment promoted from another, what its next promotion does to the rollback (promotedRollbackNote). */
async function gitWinsNotice(records: readonly LedgerRecord[], restored: LedgerRecord, origin: ConfigurationOrigin, manifestsAgree: boolean, files: readonly string[], git: GitPlace, promoted: string | undefined): Promise<string> {
  // Nothing for the next apply to undo, nor to keep by a change to the manifests.
  if (manifestsAgree) return '\nThe configuration restored is what the manifests in git say now: the next `voxform apply` of them keeps it.\n';
  const lines = ['', 'The manifests in git are unchanged: the next `voxform apply` of them undoes this rollback.', await howToKeepIt(records, restored, origin, files, git)];
  if (promoted !== undefined) lines.push(controlsAsQuestionMarks(promoted));
  return `${lines.join('\n')}\n`;
}

/** Where git is asked (the manifests' repository), with what environment, and where the user runs what is printed. */
interface GitPlace {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  from: string;
}

/**
 * How to keep the rollback in git: put back the files the deploy is made of (`files`, what the
 * manifests' load read) as the restored commit had them, as one pasted command; or, where that commit
 * holds none of them, change the manifests to what it holds. Never a revert of the commits since:
 * they also hold voxform's own files (state, history records), which must stay as they are.
 */
async function howToKeepIt(records: readonly LedgerRecord[], restored: LedgerRecord, origin: ConfigurationOrigin, files: readonly string[], git: GitPlace): Promise<string> {
  // Of a rollback, the commit that holds its configuration is the one of the record it restored, followed through.
  if ('problem' in origin) return `To keep it, change the manifests to match (record ${restored.id} is a rollback, and no commit is known to hold what it restored: ${controlsAsQuestionMarks(origin.problem)}).`;
  const base = origin.record.source.commit;
  const deployed = commitDeployedAfter(records, restored, base);
  if (deployed === undefined) return 'To keep it, change the manifests to match (no later commit is recorded to return from).';
  if (base === undefined) return `To keep it, change the manifests to match (record ${origin.record.id} names no commit to return to).`;
  const found = await filesAtCommit(git.cwd, git.env, base, files, git.from);
  const [restoredCommit, deployedCommit] = [base.slice(0, 12), deployed.slice(0, 12)];
  if (found.held?.length === 0) {
    return `To keep it, change the manifests to what commit ${restoredCommit} holds (\`${gitDiffCommand(deployedCommit, restoredCommit, found.gitFolder)}\` shows how): it holds none of the files they are read from now.`;
  }
  const command = gitRestoreCommand(restoredCommit, found.held ?? found.given, `Return the manifests to ${restoredCommit}: keep the rollback to record ${restored.id}`, found.gitFolder);
  const unchecked = found.held === undefined ? ` (git could not check here which of them commit ${restoredCommit} holds)` : '';
  return `To keep it, put back the manifests and the files they read as commit ${restoredCommit} had them, as one commit${unchecked}: ${command}`;
}

/**
 * What the rollback leaves as it is, where it matters: the knowledge files of the agents it restores
 * that have some attached, in the restored record or now (`records`' newest holding the agent).
 */
function notRolledBack(records: readonly RecordSummary[], restored: RecordSummary, agents: readonly string[], names: AgentNames): string {
  const newest = names.newestHolding(records, agents);
  const withFiles = agents.filter((name) => [restored, newest.get(name)].some((record) => (record ? names.versionIn(record, name)?.knowledge?.length ?? 0 : 0) > 0));
  if (withFiles.length === 0) return '';
  const sentence = `Not rolled back: the knowledge files of ${withFiles.join(', ')}, which stay as they are now (a rollback restores agents' names and configurations; \`voxform apply\` of the manifests sets the files).`;
  return `${controlsAsQuestionMarks(sentence)}\n`;
}

/** The agents of the restored record a rollback of all of it leaves out: their names stand for other agents now. */
function notManaged(restored: LedgerRecord, agents: readonly string[], names: AgentNames): string {
  const unnamed = agents.length > 0 ? [] : unnamedAgents(restored, names);
  if (unnamed.length === 0) return '';
  return `${controlsAsQuestionMarks(`Not rolled back: the record's ${unnamed.join(', ')}, which no name stands for now (the manifests no longer manage it: a rollback writes only to agents under the names they have now).`)}\n`;
}

/** `rollback REF --agent NAME…`, quoted. */
function rollbackWords(ref: string, agents: readonly string[]): string {
  return ['rollback', shellWord(ref), ...agents.map((name) => `--agent ${shellWord(name)}`)].join(' ');
}

export async function run(options: RollbackOptions, ctx: CommandContext): Promise<number> {
  // rollback takes no --take-over: a refusal names the plan and apply that do, with this run's options.
  return rollback(options, ctx).catch((error: unknown) => {
    throw withTakeOverCommands(error, options, 'rollback');
  });
}

async function rollback(options: RollbackOptions, ctx: CommandContext): Promise<number> {
  const ref = options.args?.[0];
  if (ref === undefined) throw new VoxformError('invalid_argument', 'Name the configuration to return to: `voxform rollback REF` (a record id, a commit, or `previous`).', { hint: '`voxform history` lists the records and their ids.' });
  const project = await connectProject(options, ctx);
  const history = project.backend.history;
  const agents = options.agent ?? [];
  // Read before the records: an apply that ends while the record is chosen changes it, and the
  // rollback's apply, under the lock, is refused then (`decidedOn`) rather than undo that apply too.
  const decidedOn = stateDigest((await project.backend.readWorkspace(project.workspaceKey)).workspace, fingerprintKey(project.connection.apiKey));
  // Summaries: which record is restored, and the notices, need no configuration but the restored one's.
  const records = await allSummaries(history, project.workspaceKey, ctx);
  // A name stands for the agent its id: is now: followed to its records under an earlier key, never to another agent's.
  const agentNames = new AgentNames(records, [...project.desired.agents].map(([name, agent]): [string, string] => [name, agent.id]));
  const restored = resolveHistoryRef(records, ref, agents, nextCommand('history', options), agentNames);
  const desired = desiredFromRecord(await wholeRecord(history, restored, ctx), { agents, env: ctx.env, current: project.desired, names: agentNames, onSecret: (value) => ctx.secrets.add(value) });
  const names = [...desired.agents.keys()];
  const origin = configurationOrigin(records, restored);
  ctx.stdout.write(`Rolling back ${names.join(', ')} to ${describeRecord(restored, origin)}.\n${notManaged(restored, agents, agentNames)}${notRolledBack(records, restored, names, agentNames)}\n`);
  // What is deployed is the restored record's configuration, not the work tree's: its changes do not count.
  const source = { ...(await deploySourceOf(project.desired, ctx, { workTree: false })), rollbackOf: restored.id };
  // The record by its id: `previous` names another once some agents are back.
  const rerun = nextCommand(rollbackWords(restored.id, agents), options);
  const { code, outcome } = await applyOnTerminal(
    {
      ...planInputs({ ...project, desired }, ctx),
      decidedOn,
      files: [],
      ...applyRunSettings(options),
      command: recordedCommand(rollbackWords(ref, agents), options),
      history,
      source,
    },
    ctx,
    { chosen: options, rerun, recorded: `the configuration of record ${restored.id}` },
  );
  // With nothing to do, nothing was rolled back for an apply to undo.
  if (outcome.status === 'applied') {
    const git = { cwd: gitAskedIn(project.desired, ctx), env: ctx.env, from: ctx.cwd };
    ctx.stdout.write(await gitWinsNotice(records, restored, origin, manifestsSayRestored(desired, project.desired), deployedFiles(project.desired), git, promotedRollbackNote(project.desired, options)));
  }
  return code;
}
