/** `voxform state list | show | rm | unlock --force | migrate --to | upgrade`: the operator's view of the state backend. */
import { isVoxformError, VoxformError } from '../../errors.js';
import { describeForcedOpen, describeHolder, isLockId, type StateBackend, type WorkspaceSummary } from '../../state/backend.js';
import { BASE_ENVIRONMENT_NAME, splitWorkspaceKey, type WorkspaceState } from '../../state/types.js';
import { forcedOpenJson, lastApplyJson, lockHolderJson } from '../../state/json-words.js';
import { ciJobUrlFrom, thisRun } from '../../util/run-identity.js';
import { migrateAgainHint, migrateState } from '../../state/migrate.js';
import { openStateSpec } from '../../state/open.js';
import { hasPasswordPlaceholder, PASSWORD_PLACEHOLDER, pastableStateSpec } from '../../state/postgres/url.js';
import { shellWord } from '../../util/shell-word.js';
import { stateFlags } from '../next-command.js';
import { controlsAsQuestionMarks } from '../../util/printable.js';
import { EXIT_INTERRUPTED, type CommandContext } from '../context.js';
import { openOperatorBackend } from '../project.js';
import { plural } from '../../util/plural.js';

/** Bumped when a field of `state list --format json` changes meaning or goes away (new fields do not bump it). */
const STATE_LIST_FORMAT_VERSION = 1;

interface StateCommandOptions {
  state?: string;
  args?: string[];
  format?: 'text' | 'json';
  force?: boolean;
  to?: string;
}

export async function list(options: StateCommandOptions, ctx: CommandContext): Promise<number> {
  const backend = await openOperatorBackend(options, ctx);
  const workspaces = await backend.listWorkspaces();
  if (options.format === 'json') {
    const listed = workspaces.map((w) => ({
      workspace: w.key,
      serial: w.serial,
      last_apply: w.lastApply ? lastApplyJson(w.lastApply) : null,
      lock: w.lock ? lockHolderJson(w.lock) : null,
      last_forced_open: w.lastForcedOpen ? forcedOpenJson(w.lastForcedOpen) : null,
    }));
    ctx.stdout.write(`${JSON.stringify({ format_version: STATE_LIST_FORMAT_VERSION, backend: backend.kind, location: backend.display, workspaces: listed }, null, 2)}\n`);
    return 0;
  }
  ctx.stdout.write(`State: ${backend.display} (${backend.kind})\n`);
  if (workspaces.length === 0) ctx.stdout.write('No workspace yet: the first apply makes one.\n');
  for (const workspace of workspaces) ctx.stdout.write(line(summaryLine(workspace)));
  return 0;
}

/** One line of text from the state, which anyone may have written: its control characters shown as `?`. */
function line(text: string): string {
  return `${controlsAsQuestionMarks(text)}\n`;
}

function summaryLine(workspace: WorkspaceSummary): string {
  const last = workspace.lastApply ? `last apply ${workspace.lastApply.outcome} at ${workspace.lastApply.at} by ${workspace.lastApply.by}` : 'no apply recorded';
  const lock = workspace.lock ? `locked by ${describeHolder(workspace.lock)}` : 'not locked';
  const forced = workspace.lastForcedOpen ? `; last forced open: ${describeForcedOpen(workspace.lastForcedOpen)}` : '';
  return `  ${workspace.key}  serial ${workspace.serial}, ${last}; ${lock}${forced}`;
}

export async function show(options: StateCommandOptions, ctx: CommandContext): Promise<number> {
  const backend = await openOperatorBackend(options, ctx);
  const keys = (await backend.listWorkspaces()).map((w) => w.key);
  const key = options.args?.[0] ?? (keys.length === 1 ? keys[0] : undefined);
  if (key === undefined && keys.length > 1) throw workspaceRequired(backend, keys, options);
  if (key === undefined || !keys.includes(key)) throw unknownWorkspace(backend, key, keys);
  const stored = await backend.readWorkspace(key);
  const lock = await backend.readLock(key);
  const lastForcedOpen = await backend.readLastForcedOpen(key);
  if (options.format === 'json') {
    ctx.stdout.write(`${JSON.stringify({ workspace: key, serial: stored.serial, lock: lock ?? null, lastForcedOpen: lastForcedOpen ?? null, state: stored.workspace }, null, 2)}\n`);
    return 0;
  }
  const ws = stored.workspace;
  ctx.stdout.write(line(`Workspace ${key} in ${backend.display} (serial ${stored.serial})`));
  ctx.stdout.write(`  Lock: ${lock ? `held by ${describeHolder(lock)}` : 'not held'}\n`);
  if (lastForcedOpen) ctx.stdout.write(`  Last forced open: ${describeForcedOpen(lastForcedOpen)}\n`);
  ctx.stdout.write(`  Records: ${recordCounts(ws)}\n`);
  for (const [address, agent] of Object.entries(ws.agents)) ctx.stdout.write(line(`    ${address}: ${agent.id}`));
  ctx.stdout.write(line(`  Last apply: ${ws.lastApply ? `${ws.lastApply.outcome} at ${ws.lastApply.at} by ${ws.lastApply.by} ("${ws.lastApply.command}")` : 'none recorded'}`));
  return 0;
}

/** The refusal of a workspace the backend does not hold (or of none, where it holds none), naming those it holds. */
function unknownWorkspace(backend: StateBackend, key: string | undefined, keys: readonly string[]): VoxformError {
  const named = key !== undefined ? `${backend.display} holds no workspace ${key}` : `${backend.display} holds no workspace yet`;
  if (keys.length === 0) return new VoxformError('workspace_unknown', controlsAsQuestionMarks(`${named}.`), { hint: 'Nothing was applied with this backend yet: the first `voxform apply` makes a workspace.' });
  // An environment's name alone (`staging`) is no workspace: say which of its workspaces it may mean.
  const ofEnvironment = key !== undefined && !key.includes('@') ? keys.filter((candidate) => candidate.slice(0, candidate.indexOf('@')) === key) : [];
  const what = key !== undefined && !key.includes('@') ? ': a workspace is ENVIRONMENT@SERVICE' : '';
  const meant = ofEnvironment.length > 0 ? `Environment ${key}'s: ${ofEnvironment.join(', ')}. ` : '';
  return new VoxformError('workspace_unknown', controlsAsQuestionMarks(`${named}${what}.`), { hint: controlsAsQuestionMarks(`${meant}Workspaces: ${keys.join(', ')}.`) });
}

/** `state show` without a workspace where the backend holds several: which one is the operator's to say. */
function workspaceRequired(backend: StateBackend, keys: readonly string[], options: StateCommandOptions): VoxformError {
  const example = ['voxform state show', shellWord(keys[0] ?? ''), ...stateFlags(options)].join(' ');
  return new VoxformError('invalid_argument', controlsAsQuestionMarks(`\`voxform state show\` needs a workspace: ${backend.display} holds ${keys.length}.`), {
    hint: controlsAsQuestionMarks(`Name one, as in \`${example}\`: ${keys.join(', ')}.`),
  });
}

/** `1 agent, 2 phones, 0 campaigns, …`: what a workspace's state records. */
function recordCounts(ws: WorkspaceState): string {
  return RECORD_NOUNS.map(([kind, noun]) => plural(Object.keys(ws[kind]).length, noun)).join(', ');
}

/** What `state show` counts, by the word for one of each. */
const RECORD_NOUNS = [
  ['agents', 'agent'],
  ['phones', 'phone'],
  ['campaigns', 'campaign'],
  ['knowledge', 'knowledge file'],
  ['credentials', 'credential'],
] as const;

/**
 * `voxform state rm WORKSPACE`: forgets a workspace no one applies any more (the default one, once a
 * project applies only with --env), and so its claims on the numbers, agents, campaigns and
 * credentials other environments share with it. Its ledger is kept: it is the record of what was
 * deployed, and the evidence of where secrets were placed. Under the workspace's lock; nothing on
 * the service is read or changed.
 */
export async function remove(options: StateCommandOptions, ctx: CommandContext): Promise<number> {
  const key = options.args?.[0] ?? '';
  const backend = await openOperatorBackend(options, ctx);
  const keys = (await backend.listWorkspaces()).map((w) => w.key);
  if (!keys.includes(key)) throw unknownWorkspace(backend, key, keys);
  const command = ['voxform state rm --force', shellWord(key), ...stateFlags(options)].join(' ');
  // Run again as typed: asked again at the terminal unless --force was given.
  const again = ['voxform state rm', ...(options.force ? ['--force'] : []), shellWord(key), ...stateFlags(options)].join(' ');
  const fillIn = hasPasswordPlaceholder(again) ? ` (with the database password in place of ${PASSWORD_PLACEHOLDER})` : '';
  if (!options.force && !ctx.confirm) {
    throw new VoxformError('approval_required', controlsAsQuestionMarks(`Refusing to remove the state of workspace ${key} without approval: there is no terminal to ask on.`), {
      hint: controlsAsQuestionMarks(`Pass --force: \`${command}\`.`),
    });
  }
  // Until the write, a stop (Ctrl-C at the question, above all) leaves the state as it was; the command as typed removes it.
  ctx.stopLeaves?.({ leftUndone: 'nothing was removed', hint: `Run \`${again}\`${fillIn} to remove the state of workspace ${controlsAsQuestionMarks(key)}.` });
  const lock = await backend.acquireLock(key, {
    command: 'voxform state rm',
    timeoutSeconds: 0,
    warn: (message) => ctx.stderr.write(line(`warning: ${message}`)),
    ciJobUrl: ciJobUrlFrom(ctx.env),
    waitAdvice: controlsAsQuestionMarks(`Wait for it to finish, then run \`${again}\`${fillIn} again.`),
    unlockOptions: stateFlags(options).join(' ') || undefined,
  });
  try {
    const stored = await backend.readWorkspace(key);
    if (!options.force) {
      const question = `Remove the state of workspace ${key} (${recordCounts(stored.workspace)}) from ${backend.display}? Its deploy history is kept; nothing on the service changes.`;
      const answer = await ctx.confirm!(controlsAsQuestionMarks(question)).catch((error: unknown) => {
        // Ctrl-C or Ctrl-D at the question (a key on a terminal): no answer, and nothing removed.
        if (isVoxformError(error) && error.code === 'interrupted') return undefined;
        throw error;
      });
      if (answer !== true) {
        ctx.stderr.write('Nothing was removed.\n');
        return answer === undefined ? EXIT_INTERRUPTED : 1;
      }
    }
    ctx.stopLeaves?.({
      leftUndone: `the state of workspace ${controlsAsQuestionMarks(key)} may or may not have been removed (its file or row is written whole, or not at all)`,
      hint: `Run \`${['voxform state list', ...stateFlags(options)].join(' ')}\`${fillIn} to see whether it is still there.`,
    });
    const removed = await backend.removeWorkspace(key);
    if (!removed) {
      const cleared = backend.kind === 'postgres' ? " (the record of its lock's last forced open, which listed it, is cleared)" : '';
      ctx.stdout.write(line(`Workspace ${key} holds no state in ${backend.display}: there was nothing to remove${cleared}.`));
      return 0;
    }
    ctx.stdout.write(line(`Removed the state of workspace ${key} from ${backend.display}: its records of ${recordCounts(stored.workspace)}, and with them its claims on what other environments of the service share with it. Nothing on the service changed.`));
    ctx.stdout.write(line(await afterRemoval(backend, key)));
    return 0;
  } finally {
    await lock.release();
  }
}

/** What the removal leaves, and what a later run of the workspace meets: its ledger, and a plan that starts from nothing applied. */
async function afterRemoval(backend: StateBackend, key: string): Promise<string> {
  const parts = splitWorkspaceKey(key);
  const runs = parts ? `a run ${parts.environment === BASE_ENVIRONMENT_NAME ? 'without --env' : `with --env ${parts.environment}`} against ${parts.serviceId}` : 'a run of it';
  for await (const last of backend.history.summaries({ workspace: key })) {
    return (
      `Its deploy history is kept (the last record ${last.id}, at ${last.at}): \`voxform history\` and rollbacks of this workspace read it. ` +
      `Should ${runs} plan again, the plan starts from nothing applied and warns that the state lost the workspace; apply then refuses (state_missing) unless given --allow-missing-state, which uploads its knowledge files again and sets its campaigns and credentials again.`
    );
  }
  return `It had no deploy history. Should ${runs} plan again, it starts from nothing applied: its knowledge files are uploaded again, its campaigns and credentials set again.`;
}

export async function unlock(options: StateCommandOptions, ctx: CommandContext): Promise<number> {
  // Hexadecimal in either case, as a commit id is: ids are written in lower case.
  const lockId = (options.args?.[0] ?? '').toLowerCase();
  if (!options.force) {
    // The id as typed when it is one (any other text may be a secret typed in the wrong place), and the state it was given for.
    const command = ['voxform state unlock --force', ...stateFlags(options), isLockId(lockId) ? lockId : 'LOCK_ID'].join(' ');
    throw new VoxformError('invalid_argument', `Opening someone else's lock needs --force: \`${command}\`.`, {
      hint: 'Make sure the holder no longer runs (or hangs) first; `voxform state list` names it.',
    });
  }
  if (!isLockId(lockId)) {
    // Not repeated: a value of the wrong form may be anything typed in the wrong place, a secret too (docs/security.md §5).
    throw new VoxformError('invalid_argument', 'The lock id given is not one: a lock id is hexadecimal, as `voxform state list` and a refused run name it (lock 3f9a2c0d11b84e7a).', {
      hint: 'Copy the id of the lock to open from `voxform state list`.',
    });
  }
  const backend = await openOperatorBackend(options, ctx);
  // The command's words only: its options may name a database URL with its password.
  const { holder, note } = await backend.forceUnlock(lockId, thisRun('voxform state unlock --force', ciJobUrlFrom(ctx.env)));
  ctx.stdout.write(`Opened the lock ${lockId} held by ${describeHolder(holder)}.\n${note}\n`);
  return 0;
}

/** This migration as a command line to paste (without --force), and the `--state` an unlock of the source's lock needs: the options as typed, a database password as PASSWORD. */
function migrateCommand(options: StateCommandOptions & { to: string }): { command: string; commandNote: string | undefined; sourceUnlockOptions: string | undefined } {
  const specs = [options.state, options.to].filter((spec): spec is string => spec !== undefined);
  const command = ['voxform state migrate', ...stateFlags(options), '--to', shellWord(pastableStateSpec(options.to))].join(' ');
  const password = specs.some((spec) => pastableStateSpec(spec) !== spec);
  return { command, commandNote: password ? ' (with the database password in place of PASSWORD)' : undefined, sourceUnlockOptions: stateFlags(options).join(' ') || undefined };
}

/** `--to` is a mandatory option, and the parser refuses it empty (empty-values.ts). */
export async function migrate(options: StateCommandOptions & { to: string }, ctx: CommandContext): Promise<number> {
  const source = await openOperatorBackend(options, ctx);
  const target = await openStateSpec(options.to, { env: ctx.env, cwd: ctx.cwd, registerSecret: (value) => ctx.secrets.add(value), source: '--to' });
  ctx.onExit(() => target.close());
  const stop = new AbortController();
  const how = migrateCommand(options);
  // Stopped at once (a second Ctrl-C), the step under way may have written part of the copy: the same advice as a stop between steps.
  const atOnce = {
    leftUndone: `${source.display} is left as it was and is still the state to use; ${target.display} may hold part of the copy`,
    hint: migrateAgainHint(how.command, how.commandNote ?? '', source),
  };
  void ctx.interrupted({ stopping: false, atOnce }).then((again) => {
    ctx.stderr.write(`Stopping: the migration stops once the step under way is done (${again} ends it at once).\n`);
    stop.abort();
  });
  const result = await migrateState(source, target, { force: options.force === true, signal: stop.signal, ...how, warn: (message) => ctx.stderr.write(line(`warning: ${message}`)) });
  ctx.stdout.write(`Copied ${plural(result.workspaces.length, 'workspace')}, ${plural(result.historyRecords, 'history record')} and ${plural(result.testRuns, 'test run')} from ${source.display} to ${target.display}, and read them back: identical.\n`);
  for (const key of result.workspaces) ctx.stdout.write(line(`  ${key}`));
  const password = target.pastable === target.display ? '' : ' (with the database password in place of PASSWORD)';
  ctx.stdout.write(`Point ${source.chosenWith} at ${target.pastable}${password} from now on; ${source.display} is left as it was.\n`);
  return 0;
}

/**
 * Brings a database's tables to this voxform's schema: the one step of an upgrade that needs the
 * tables' owner, run once, after every runner has the new voxform (docs/state.md, Schema). Other
 * writing commands do it too, as their first write; commands that write nothing never do.
 */
export async function upgrade(options: StateCommandOptions, ctx: CommandContext): Promise<number> {
  const backend = await openOperatorBackend(options, ctx);
  if (!backend.upgradeSchema) {
    ctx.stdout.write(`State: ${backend.display} (${backend.kind}): a state file has no schema to upgrade.\n`);
    return 0;
  }
  const { from, to } = await backend.upgradeSchema();
  const was = from === 0 ? 'had no voxform tables' : `was at schema version ${from}`;
  ctx.stdout.write(from === to ? `State: ${backend.display} is at schema version ${to} already.\n` : `State: ${backend.display} ${was}; it is at version ${to} now.\n`);
  return 0;
}
