import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import type { Agent } from '../schema/types.gen.js';
import type { WorkspaceState } from '../state/types.js';
import { formatSourceLocation, VoxformError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { formatCount, someOf } from '../util/plural.js';
import { MAX_DIAGNOSTICS_SHOWN } from '../project-files/limits.js';
import { selectTargets, summarize, type LiveSecretEvidence } from './diff.js';
import { IncrementalDiff } from './incremental-diff.js';
import { environmentVariablesOf } from './environment-variables.js';
import { noLongerManaged } from './no-longer-managed.js';
import { readLiveState, type LiveReader, type LiveState } from './read-live.js';
import type { NoLongerManaged, Plan, ResourceChange } from './types.js';
import { addToList } from '../util/map-lists.js';

interface CreatePlanOptions {
  desired: DesiredState;
  client: LiveReader;
  workspace: WorkspaceState;
  /**
   * The workspace as the state holds it, when `workspace` has the entries of renamed keys moved
   * already (`moves`): the list of what is no longer managed reads it, since following the keys drops
   * the entry of a key that now names another id. `workspace` when not given.
   */
  recorded?: WorkspaceState | undefined;
  /** The renamed resources, when `workspace` holds their entries moved already (`SharedView.moves`). */
  moves?: ReadonlyMap<string, string> | undefined;
  /** The fingerprint key (from the API key): hashes of applied values and live fingerprints are keyed with it. */
  salt: string;
  /** How the service is shown and bound into saved plans (`https://…`, or `local` for the embedded emulator). */
  baseUrl: string;
  files: string[];
  targets?: string[];
  /** Called as each agent is read from the service (for a progress display). */
  onReadProgress?: (agentsRead: number, agents: number) => void;
  /** Told of each change made while the other reads are on the wire (a renderer prepares its output then). */
  onChange?: ((change: ResourceChange) => void) | undefined;
  /** Told of each agent the service answered with, before its change is made (and so before `onChange` hears of it). */
  onAgentRead?: ((agent: Agent) => void) | undefined;
  /** What trusted evidence says of the live agents' secrets (`DiffContext.liveSecrets`). */
  liveSecrets?: LiveSecretEvidence | undefined;
  /**
   * Whether an agent the state records as applied that the service no longer has is a change
   * (`reason: 'gone'`, no fields, no requests: nothing can bring it back) rather than a problem that
   * stops the plan. For drift, which reports it; such a plan is never applied.
   */
  reportGoneAgents?: boolean | undefined;
  /** Whether to list what the state records that `desired` no longer names (default yes; not for a recorded configuration: `PlanOptions.recordedConfiguration`). */
  listNoLongerManaged?: boolean | undefined;
  now?: () => Date;
}

/**
 * Reads live state and diffs it against the manifests: the I/O shell around the pure differ.
 * Resources the plan cannot be made for stop it with one error listing each, at its place.
 */
export async function createPlan(options: CreatePlanOptions): Promise<{ plan: Plan; live: LiveState }> {
  const { desired } = options;
  const targets = options.targets ?? [];
  checkTargets(desired, targets);
  const diff = new IncrementalDiff({ desired, state: options.workspace, moves: options.moves, salt: options.salt, baseUrl: options.baseUrl, files: options.files, targets, liveSecrets: options.liveSecrets }, options.onChange);
  const byId = agentsById(desired);
  const live = await readLiveState(options.client, desired, {
    onProgress: options.onReadProgress,
    onAgent: (agent) => {
      options.onAgentRead?.(agent);
      for (const desiredAgent of byId.get(agent.id) ?? []) diff.agentRead(desiredAgent, agent);
    },
    onPhones: (phones) => diff.phonesRead(phones),
  });
  const finished = diff.finish(live);
  const gone = options.reportGoneAgents ? finished.problems.filter((p) => p.gone) : [];
  const problems = finished.problems.filter((p) => !gone.includes(p));
  const changes = [...finished.changes, ...gone.map((p) => goneAgentChange(p.address, desired))];
  if (problems.length > 0) {
    const first = problems[0]!;
    // As many as validate shows; `details` keeps every one.
    const others = problems.slice(1).map((p) => `${formatSourceLocation(p)}: ${p.message}`);
    const rest = others.length === 0 ? '' : `\n  ${someOf(others, MAX_DIAGNOSTICS_SHOWN - 1, '\n  ')}`;
    const total = problems.length > MAX_DIAGNOSTICS_SHOWN ? ` (${formatCount(problems.length)} in all; \`--format json\` lists every one in its details)` : '';
    throw new VoxformError('plan_failed', `${first.message}${rest}${total}`, {
      hint: 'Fix what each problem says, then plan again.',
      location: { file: first.file, line: first.line, col: first.col },
      details: problems,
    });
  }
  const unmanaged = options.listNoLongerManaged !== false ? noLongerManaged(options.recorded ?? options.workspace, desired, changes, live) : [];
  const selected = withEarlierIds(selectTargets(changes, targets), unmanaged);
  return {
    live,
    plan: {
      formatVersion: 1,
      createdAt: (options.now ?? (() => new Date()))().toISOString(),
      manifestHash: desired.manifestHash,
      files: options.files,
      environment: desired.environment,
      baseUrl: options.baseUrl,
      targets,
      changes: selected,
      summary: summarize(selected),
      environmentVariables: environmentVariablesOf(desired.environmentVariables, options.workspace),
      // A plan limited to some addresses says nothing of the others, removed ones included.
      ...(unmanaged.length > 0 && targets.length === 0 ? { noLongerManaged: unmanaged } : {}),
    },
  };
}

/** Each change whose key named, at the last apply, a resource now no longer managed, with that one's id (`ResourceChange.earlierId`). */
function withEarlierIds(changes: ResourceChange[], unmanaged: readonly NoLongerManaged[]): ResourceChange[] {
  const earlier = new Map(unmanaged.flatMap((resource) => (resource.keyNowNames === undefined ? [] : [[resource.address, resource.id] as const])));
  if (earlier.size === 0) return changes;
  return changes.map((change) => (earlier.has(change.address) ? { ...change, earlierId: earlier.get(change.address) } : change));
}

/** The manifests' agents by service id (two manifest agents may name one service agent). */
function agentsById(desired: DesiredState): Map<string, DesiredAgent[]> {
  const byId = new Map<string, DesiredAgent[]>();
  for (const agent of desired.agents.values()) addToList(byId, agent.id, agent);
  return byId;
}

function allAddresses(desired: DesiredState): string[] {
  return [desired.agents, desired.phones, desired.campaigns, desired.knowledge, desired.credentials].flatMap((map) =>
    [...map.values()].map((resource) => resource.address),
  );
}

function checkTargets(desired: DesiredState, targets: readonly string[]): void {
  const known = allAddresses(desired);
  for (const target of targets) {
    if (known.includes(target)) continue;
    const suggestion = suggestAddress(target, known);
    throw new VoxformError('target_unknown', `--target ${target} names no resource of the manifests${suggestion ? `; did you mean ${suggestion}?` : '.'}`, {
      hint: 'Addresses look like agent.front-desk, phone.+15551230001, campaign.NAME, knowledge.NAME, credential.PROVIDER.',
    });
  }
}

/**
 * The address a mistaken `--target` most likely meant: the resource whose name it is (`receptionist`
 * for `agent.receptionist`), else the closest address, else the address of the closest name.
 */
function suggestAddress(target: string, known: readonly string[]): string | undefined {
  const nameOf = (address: string) => address.slice(address.indexOf('.') + 1);
  const named = known.filter((address) => nameOf(address) === target);
  if (named.length > 0) return named.join(' or ');
  const close = didYouMean(target, known);
  if (close !== undefined) return close;
  const closeName = didYouMean(target, known.map(nameOf));
  return closeName === undefined ? undefined : known.filter((address) => nameOf(address) === closeName).join(' or ');
}

/** An agent the service lost since voxform applied it, as drift reports it: nothing to send, nothing to compare. */
function goneAgentChange(address: string, desired: DesiredState): ResourceChange {
  const agent = [...desired.agents.values()].find((a) => a.address === address);
  return { address, kind: 'agent', action: 'update', id: agent?.id, before: null, after: null, fieldChanges: [], sensitivePaths: [], reason: 'gone', dependsOn: [], requests: [], liveFingerprint: '' };
}
