/**
 * `--agent NAME|ID` of `logs`, `report` and `chat`, or `get agents NAME`: its agent id; no agent's name
 * is a mistake, not an empty result. A name on the service is looked for among the manifests' agents
 * only (and the apply history's, for `report`): the service has no list of agents to search.
 */
import type { ApiClient } from '../api/index.js';
import { agentIfExists, agentNamesOnService } from '../api/agent-if-exists.js';
import { VoxformError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { controlsAsQuestionMarks, printable } from '../util/printable.js';
import { wordList } from '../util/plural.js';
import { envChoices } from './next-command.js';
import { idOnlyInEnvironments } from '../manifest/environments.js';
import type { ManifestProject } from './load-manifests.js';

interface KnownAgentNames {
  /** The manifests' local names, each with its agent's id. */
  manifests: ReadonlyMap<string, string>;
  /** Local names the apply history knows (`report`), newest record first; the manifests' win. */
  history?: ReadonlyMap<string, string> | undefined;
  /**
   * Each environment of the manifests (in their order) with its agents' ids by local name: a local
   * name only they give an id is not unknown, but one to use with `--env`.
   */
  environments?: ReadonlyMap<string, ReadonlyMap<string, string>> | undefined;
  /**
   * The manifests' agents' local names by the display name their entries write (`Front desk`): a
   * display name stands for its agent as the local name does when only the environments give its id.
   */
  displayNames?: ReadonlyMap<string, string> | undefined;
  /** The manifest files read, as the user named them: where the hints say the names come from. */
  files?: readonly string[] | undefined;
  /** The manifests' agent names when the manifests have errors: such a name is theirs, its id unknown. */
  unread?: ReadonlySet<string> | undefined;
  /** Of those, the ones whose entries write an id of their own: the environments are not the only ones to give it. */
  withOwnId?: ReadonlySet<string> | undefined;
}

/** What the manifests of a command that reads without planning tell of agent names: every such command reads them alike. */
export function manifestAgentNames(project: ManifestProject): KnownAgentNames {
  return { manifests: project.names, environments: project.environmentAgents, displayNames: project.agentDisplayNames, files: project.manifests, unread: project.unreadAgents, withOwnId: project.agentsWithOwnId };
}

/** How an error names what the user typed: `--agent` (the default), or `agent` for a positional NAME. */
interface AgentArgumentOptions {
  label?: '--agent' | 'agent';
}

type AgentReader = Pick<ApiClient, 'getAgent' | 'iterateCallLogs'>;

/**
 * The agent id `agent` stands for, tried in this order: a local name or the id of one of those agents
 * (no request); an agent id on the service; the display name of one of those agents; the id of an agent
 * whose calls are still in the log (a deleted agent's). Anything else is `agent_unknown`.
 */
export async function resolveAgentArgument(agent: string, known: KnownAgentNames, client: AgentReader, options: AgentArgumentOptions = {}): Promise<string> {
  const label = options.label ?? '--agent';
  const local = new Map([...(known.history ?? []), ...known.manifests]);
  const byName = local.get(agent);
  if (byName !== undefined) return byName;
  refuseNameWithoutId(agent, known, label);
  const ids = new Set(local.values());
  if (ids.has(agent) || (await isAgentId(agent, client))) return agent;
  const displayNames = await displayNamesOf(ids, client);
  const named = [...displayNames].filter(([, name]) => name === agent).map(([id]) => id);
  if (named.length === 1) return named[0] as string;
  if (named.length > 1) {
    throw new VoxformError('invalid_argument', `${label} "${controlsAsQuestionMarks(agent)}" is the name of ${named.length} agents on the service (${named.join(', ')}).`, {
      hint: 'Give the local name from the manifests, or the agent id.',
    });
  }
  if (await hasCalls(agent, client)) return agent;
  const whose = `an agent of the manifests${known.history ? ' or the apply history' : ''}`;
  throw unknownAgent(agent, [...local.keys(), ...displayNames.values()], `${label} "${controlsAsQuestionMarks(agent)}" is neither the local name, id or name on the service of ${whose}, nor an agent id on the service.`, {
    // Names on the service are looked up for the manifests' agents only: the service has no list of agents to search.
    known: known.manifests.size > 0 ? `Agents of the manifests: ${[...known.manifests.keys()].join(', ')}. Give any other agent by its id.` : undefined,
    // No names known: there may be no manifest, or manifests that did not load (said in a warning above).
    none: `Give an agent id, or ${agentNamesFrom(known.files, { maybeUnread: true })}.`,
  });
}

/**
 * Where agent names come from, as a hint says it: the manifest files read (as the user named them),
 * -f naming others; none read, how to name them. `maybeUnread`: manifests that could not be read
 * were skipped with a warning (a command that reads them only for their names), which `validate` explains.
 */
export function agentNamesFrom(files: readonly string[] | undefined, how: { maybeUnread: boolean }): string {
  if (files === undefined || files.length === 0) return 'name the manifests with -f to use their agent names';
  const unread = how.maybeUnread ? '; if a warning above says they could not be read, `voxform validate` says why' : '';
  return `an agent name from ${wordList(files.map(printable), 'and')} (-f to name other manifests${unread})`;
}

/**
 * A name of the manifests that gave it no id here (`agent` is none of `known.manifests`): `missing_id`
 * when only their environments give it one and no `--env` picked one, `manifest_invalid` when they
 * have errors. Every command taking `--agent NAME` refuses such a name alike, before asking anything of the service.
 */
export function refuseNameWithoutId(agent: string, known: KnownAgentNames, label: string): void {
  refuseNameOfEnvironments(agent, known);
  refuseUnreadName(agent, known, label);
}

/**
 * A local name of the manifests that only their environments give an id, asked for without `--env`:
 * which agent it stands for is the environment's to say, so `missing_id`, as a command that loads
 * the manifests to plan says it, naming the environments that give one.
 */
function refuseNameOfEnvironments(agent: string, known: KnownAgentNames): void {
  const environments = [...(known.environments ?? [])];
  // A display name the manifests write stands for its local name; one whose id is known here is looked up on the service.
  const local = environments.some(([, agents]) => agents.has(agent)) ? agent : known.displayNames?.get(agent);
  if (local === undefined || known.manifests.has(local) || known.withOwnId?.has(local)) return;
  const giving = environments.flatMap(([environment, agents]) => (agents.has(local) ? [environment] : []));
  if (giving.length === 0) return;
  throw new VoxformError('missing_id', idOnlyInEnvironments('agent', local, giving), {
    hint: `Run again with ${envChoices(giving)}.`,
  });
}

/**
 * A local name of manifests that have errors: an agent of theirs, not an unknown one, whose id they
 * cannot give until the errors are fixed (the warning above counts them).
 */
function refuseUnreadName(agent: string, known: KnownAgentNames, label: string): void {
  if (!known.unread?.has(agent)) return;
  throw new VoxformError('manifest_invalid', `${label} "${controlsAsQuestionMarks(agent)}" is an agent of the manifests, which have errors: its id is not known.`, {
    hint: 'Fix the errors `voxform validate` lists (with the same -f and --env), or give the agent\'s id.',
  });
}

/**
 * `voxform history --agent NAME`, which reads no service: a local name of the manifests or of the
 * history; else, as resolveAgentArgument says it, `missing_id` for a name only the environments give
 * an id, or `agent_unknown` with the closest name suggested.
 */
export function checkLocalAgentName(agent: string, known: KnownAgentNames & Required<Pick<KnownAgentNames, 'history'>>): void {
  if (known.manifests.has(agent) || known.history.has(agent)) return;
  refuseNameWithoutId(agent, known, '--agent');
  const names = [...new Set([...known.history.keys(), ...known.manifests.keys()])];
  throw unknownAgent(agent, names, `--agent "${controlsAsQuestionMarks(agent)}" is neither an agent of the manifests nor one of the apply history.`, {
    known: `Agents of the manifests and the history: ${names.map(printable).join(', ')}.`,
    none: `Give an agent name from the apply history, or ${agentNamesFrom(known.files, { maybeUnread: true })}.`,
  });
}

/** `hint.known` lists the names when there is no close one; `hint.none` says what to give when nothing is known. */
function unknownAgent(agent: string, candidates: string[], message: string, hint: { known: string | undefined; none: string }): VoxformError {
  const suggestion = didYouMean(agent, candidates);
  return new VoxformError('agent_unknown', message, {
    // The suggestion may be an agent's name on the service: its control characters are shown escaped.
    hint: suggestion ? `Did you mean ${printable(suggestion)}?` : candidates.length > 0 && hint.known !== undefined ? hint.known : hint.none,
  });
}

/** Whether the service has an agent of this id. A value no id can be may be refused rather than not found. */
async function isAgentId(agent: string, client: AgentReader): Promise<boolean> {
  return (await agentIfExists(client, agent, { refusedMeansAbsent: true })) !== undefined;
}

/** The display names on the service of the agents these ids name; an agent not found, or without a name, is left out. */
async function displayNamesOf(ids: ReadonlySet<string>, client: AgentReader): Promise<Map<string, string>> {
  const names = await agentNamesOnService(client, ids);
  return new Map([...names].filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
}

/** Whether the call log holds a call of this agent id: an agent deleted since still has its calls. */
async function hasCalls(agentId: string, client: AgentReader): Promise<boolean> {
  for await (const _record of client.iterateCallLogs({ agent_id: agentId }, { max: 1, pageSize: 1 })) return true;
  return false;
}
