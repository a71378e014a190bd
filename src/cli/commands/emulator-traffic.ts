/** `voxform emulator traffic`: seeded synthetic calls for the `--local` account or a running emulator (`--url`). */
import { errorFromTransport } from '../../api/errors.js';
import { RESPONSE_TOO_LARGE_CODE } from '../../api/http.js';
import { VoxformError } from '../../errors.js';
import { MAX_TRAFFIC_CALLS, TrafficAgentsAmbiguousError, TrafficAgentsUnknownError, TrafficOverDataFileError, TrafficProfileError, type TrafficAgentNamed } from '../../emulator/traffic/index.js';
import type { TrafficOptions, TrafficSummary } from '../../emulator/index.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { isPlainObject } from '../../util/json-object.js';
import { controlsAsQuestionMarks as shown, printable } from '../../util/printable.js';
import { LOCAL_DATA_FILE, localLiveSource, startLocalEmulator } from '../connection.js';
import { operatorTrustedSecrets } from '../project.js';
import { REDACTED } from '../../secrets/redact.js';
import type { TrustedSecrets } from '../../secrets/trusted.js';
import type { CommandContext } from '../context.js';
import { manifestAgentNames, refuseNameWithoutId } from '../agent-argument.js';
import { manifestProject } from '../load-manifests.js';
import { parseTimeArgument } from '../time-argument.js';
import { invalidProfile, tooManyForDataFile, trafficRequest, type TrafficFlags } from '../traffic-request.js';
import { formatCount, plural } from '../../util/plural.js';
import { displayWidth, padToWidth } from '../../util/display-width.js';
import { HostClient } from '../../util/host-client.js';
import { formatSize } from '../../util/size.js';
import { parseOutsideJson } from '../../util/json-budget.js';
import { greatest } from '../../util/extremes.js';

interface TrafficCommandOptions extends TrafficFlags {
  local?: boolean;
  url?: string;
  until?: string;
  /** Manifests whose local agent names `--agent` may use (`-f`, `--env`). */
  file?: string[];
  env?: string;
  format?: 'text' | 'json';
}

const when = (seconds: number) => new Date(Math.round(seconds * 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The summary, per agent; names and ids are the emulator account's (anyone's): controls shown as `?`. */
export function renderTrafficSummary(summary: TrafficSummary, where: string): string {
  const lines = [`Added ${plural(summary.calls, 'synthetic call')} (profile ${shown(summary.profile)}, seed ${summary.seed === '' ? '""' : shown(String(summary.seed))}) to ${where}:`];
  // Names and ids differ in length (an id of 20 characters beside one of 21): each padded to its widest, the columns after them line up.
  const width = greatest(summary.agents.map((agent) => displayWidth(shown(agent.name))), 0);
  const idWidth = greatest(summary.agents.map((agent) => displayWidth(shown(agent.agent_id))), 0);
  for (const agent of summary.agents) {
    const errors = agent.outcomes.error ?? 0;
    lines.push(
      `  ${padToWidth(shown(agent.name), width)}  ${padToWidth(shown(agent.agent_id), idWidth)}  ${String(agent.calls).padStart(6)} ${agent.calls === 1 ? 'call ' : 'calls'}  version ${shown(agent.config_hash.slice(0, 19))}  ` +
        `${when(agent.from)} → ${when(agent.until)}  errors ${errors}, transfers ${agent.transfers}, tool failures ${agent.tool_failures}/${agent.tool_calls}`,
    );
  }
  for (const skipped of summary.skipped) lines.push(`  skipped ${shown(skipped.agent_id)}: ${shown(skipped.reason)}`);
  return `${lines.join('\n')}\n`;
}

/** The largest reply read from --url: a summary takes about 300 bytes an agent. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;
/**
 * How long the emulator has to add the calls and answer: a million calls for each of a few agents
 * take minutes. Connecting is bounded apart: an address nothing answers at is said soon.
 */
const REPLY_TIMEOUT_MS = 5 * 60 * 1000;
const CONNECT_TIMEOUT_MS = 10 * 1000;

function parsedReply(text: string): unknown {
  try {
    return parseOutsideJson(text);
  } catch {
    return undefined;
  }
}

/** What a stop while the emulator at `origin` adds the calls leaves unknown, and where to look. */
function trafficCutShort(origin: string): VoxformError {
  return errorFromTransport('interrupted', {
    method: 'POST',
    path: '/_emulator/traffic',
    attempts: 1,
    secret: '',
    mayHaveActed: true,
    checkOutcome: `the emulator may have added the calls already; \`voxform logs --base-url ${origin} --stats\` (with the emulator's key in VOXFORM_API_KEY) counts the calls it holds.`,
    origin,
    timeoutMs: 0,
    maxResponseBytes: MAX_REPLY_BYTES,
    cause: undefined,
  });
}

/** Sends the request to a running emulator's control surface. */
async function trafficAt(url: string, trafficOptions: TrafficOptions, ctx: CommandContext): Promise<TrafficSummary> {
  let base: URL;
  try {
    base = new URL(url);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new VoxformError('invalid_option', `--url must be the http(s) address of a running \`voxform emulator\`.`, { hint: 'For example --url http://127.0.0.1:4010.' });
  }
  let status: number;
  let body: { detail?: unknown; unknown_agents?: unknown; agents?: unknown; ambiguous_agents?: unknown } | undefined;
  // Not safe to repeat: a stop before the answer must say the calls may be there already.
  const ended = ctx.writeSent(() => trafficCutShort(base.origin));
  // Whatever answers at --url could fill the memory: the client reads no more than MAX_REPLY_BYTES.
  const emulator = new HostClient({ timeoutMs: REPLY_TIMEOUT_MS, connectTimeoutMs: CONNECT_TIMEOUT_MS, maxAnswerBytes: MAX_REPLY_BYTES });
  try {
    const answer = await emulator.request(new URL('/_emulator/traffic', base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(trafficOptions) });
    status = answer.status;
    body = parsedReply(answer.text) as typeof body;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    if (reason === RESPONSE_TOO_LARGE_CODE) {
      throw new VoxformError('emulator_unreachable', `${base.origin} is not a voxform emulator that generates traffic (POST /_emulator/traffic answered with more than ${formatSize(MAX_REPLY_BYTES)}).`, {
        hint: 'Point --url at a `voxform emulator` of this version.',
      });
    }
    throw new VoxformError('emulator_unreachable', `No emulator answered at ${base.origin} (${reason}).`, { hint: 'Start one with `voxform emulator`, or use --local for the folder\'s embedded emulator.' });
  } finally {
    ended();
    await emulator.close();
  }
  if (status === 400 && Array.isArray(body?.unknown_agents)) throw new TrafficAgentsUnknownError(body.unknown_agents.map(String), Array.isArray(body.agents) ? body.agents.filter(isNamedAgent) : []);
  if (status === 400 && Array.isArray(body?.ambiguous_agents) && body.ambiguous_agents.every(isSharedName)) throw new TrafficAgentsAmbiguousError(body.ambiguous_agents);
  // What a server at --url says is printed in the error: its control characters escaped.
  if (status === 400) throw invalidProfile('request', [printable(String(body?.detail ?? 'refused').replace(/^Invalid traffic request: /, ''))]);
  if (status !== 200 || !isTrafficSummary(body)) {
    const answer = status === 200 ? '200, but not with a summary of the calls it added' : String(status);
    throw new VoxformError('emulator_unreachable', `${base.origin} is not a voxform emulator that generates traffic (POST /_emulator/traffic answered ${answer}).`, {
      hint: 'Point --url at a `voxform emulator` of this version.',
    });
  }
  return body;
}

/** An agent a refusal from --url lists (any server may answer there). */
function isNamedAgent(value: unknown): value is TrafficAgentNamed {
  return isPlainObject(value) && typeof value.id === 'string' && typeof value.name === 'string';
}

/** A name a refusal from --url says several agents have, with their ids. */
function isSharedName(value: unknown): value is { name: string; ids: string[] } {
  return isPlainObject(value) && typeof value.name === 'string' && Array.isArray(value.ids) && value.ids.every((id) => typeof id === 'string');
}

/** Whether a reply from --url (any server may answer there) has every field the summary is printed from. */
function isTrafficSummary(body: unknown): body is TrafficSummary {
  if (!isPlainObject(body)) return false;
  const { profile, seed, calls, agents, skipped } = body;
  const isCount = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
  return (
    typeof profile === 'string' &&
    (typeof seed === 'string' || isCount(seed)) &&
    isCount(calls) &&
    Array.isArray(agents) &&
    agents.every(
      (agent) =>
        isPlainObject(agent) &&
        typeof agent.name === 'string' &&
        typeof agent.agent_id === 'string' &&
        typeof agent.config_hash === 'string' &&
        isPlainObject(agent.outcomes) &&
        ['calls', 'from', 'until', 'transfers', 'tool_calls', 'tool_failures'].every((count) => isCount(agent[count])),
    ) &&
    Array.isArray(skipped) &&
    skipped.every((entry) => isPlainObject(entry) && typeof entry.agent_id === 'string' && typeof entry.reason === 'string')
  );
}

/** Adds the traffic to the folder's embedded emulator. */
async function trafficAtLocal(ctx: CommandContext, request: TrafficOptions): Promise<TrafficSummary> {
  const emulator = await startLocalEmulator(ctx);
  try {
    return await emulator.control.traffic(request);
  } catch (error) {
    if (error instanceof TrafficOverDataFileError) {
      throw tooManyForDataFile(error, {
        run: 'This run',
        dataFile: LOCAL_DATA_FILE,
        fix:
          'Ask for fewer: --calls N for each agent, or --agent for some of the agents only; or keep so many calls in a `voxform emulator` without --data (in memory, ' +
          `up to ${formatCount(MAX_TRAFFIC_CALLS)} a run) and add them with \`voxform emulator traffic --url URL\` (docs/traffic.md).`,
      });
    }
    if (error instanceof TrafficProfileError && !(error instanceof TrafficAgentsUnknownError) && !(error instanceof TrafficAgentsAmbiguousError)) throw invalidProfile('request', error.problems);
    throw error;
  }
}

/** `--agent` values the emulator's account does not have, as given (a manifest's name, not the id it stood for), with the closest name. */
function unknownAgents(error: TrafficAgentsUnknownError, given: readonly string[], manifestNames: ReadonlyMap<string, string>, idsInEnvironments: boolean): VoxformError {
  const asGiven = error.unknown.map((id) => given.find((agent) => (manifestNames.get(agent) ?? agent) === id) ?? id);
  const named = asGiven.map((agent) => (manifestNames.has(agent) ? `"${agent}" (id ${manifestNames.get(agent)} in the manifests)` : `"${agent}"`));
  // A name several agents share is never suggested: the emulator refuses it as ambiguous.
  const agentsNamed = new Map<string, number>();
  for (const { name } of error.agents) agentsNamed.set(name, (agentsNamed.get(name) ?? 0) + 1);
  const agentNames = [...agentsNamed].flatMap(([name, count]) => (name !== '' && count === 1 ? [name] : []));
  const suggestion = asGiven.length === 1 ? didYouMean(asGiven[0] as string, [...manifestNames.keys(), ...agentNames]) : undefined;
  // The ids and names come from the emulator's account (or from whatever answers at --url): escaped.
  // Each with its id: two environments' agents may share a name.
  const listed = error.agents.map((agent) => (agent.name === '' ? agent.id : `${agent.name} (${agent.id})`));
  const known = suggestion ? `Did you mean ${suggestion}?` : `The emulator's agents: ${listed.join(', ') || 'none'}. Without --agent, every agent gets calls.`;
  // A manifest's local name (`front-desk`) is known only when the manifests were read: say so, or the
  // suggestion (the service's `Front desk`) reads as if local names were not taken at all.
  const noManifestNames =
    manifestNames.size > 0 ? '' : idsInEnvironments ? " The manifests give their agents' ids only in their environments: run with --env NAME to use their names." : " No manifest's agent names were read: name the manifests with -f (default voxform.yaml) to use them.";
  return new VoxformError('agent_unknown', printable(`--agent ${named.join(', ')}: the emulator has no agent of ${asGiven.length === 1 ? 'that id or name' : 'these ids or names'}.`), {
    hint: printable(`${known}${noManifestNames}`),
  });
}

/** An emulator whose account has no agent gets no call: say so, and how to give it agents (`origin` undefined: --local). */
function noAgents(origin: string | undefined): VoxformError {
  const where = origin === undefined ? `The folder's emulator (${LOCAL_DATA_FILE})` : `The emulator at ${origin}`;
  // The service (and so the emulator) cannot create an agent: an account gets its agents from a seed.
  const seeded =
    origin === undefined
      ? `delete ${LOCAL_DATA_FILE} to start again from the default seed, which has agents, or make it from a seed of your agents with \`voxform emulator --data ${LOCAL_DATA_FILE} --seed FILE\` (run once, then stopped)`
      : 'start the emulator again with a seed that has agents (--seed FILE)';
  return new VoxformError('emulator_no_agents', `${where} has no agents: no call was added.`, {
    hint: `Agents are not created through the service, only adopted: ${seeded} (docs/emulator.md, "Seeds"), then run this again.`,
  });
}

/**
 * Agents there, but every one asked for skipped (a configuration stored after `--until`, a profile
 * that weighs every outcome 0): no call was added, which is the command's failure, not a summary of
 * zero. The ids and reasons come from the emulator (or whatever answers at --url): controls as `?`.
 */
function noCallsAdded(summary: TrafficSummary): VoxformError {
  const each = summary.skipped.map((skipped) => `${shown(skipped.agent_id)}: ${shown(skipped.reason)}`);
  return new VoxformError('emulator_no_calls', `No call was added: every agent was skipped (${each.join('; ')}).`, {
    hint: 'An agent gets calls only after the moment its configuration was stored: give a later --until, or leave it out (the calls then end now). A profile needs an outcome of weight above 0 (docs/traffic.md).',
  });
}

/**
 * `--until` as Unix seconds, no later than `now` (ms): the calls are stamped up to it, and a call log
 * holds no call from the future (`voxform logs` and `voxform report` would count them as past calls).
 */
export function trafficUntil(raw: string, now: number): number {
  const until = parseTimeArgument('--until', raw, now);
  if (until > now / 1000) {
    throw new VoxformError('invalid_argument', `--until (${raw}) is later than now.`, {
      hint: 'Give a time in the past, or leave --until out: the calls then end now. A call log holds no call from the future.',
    });
  }
  return until;
}

/** `--agent` values that are the name of several of the emulator's agents: none is picked, each is listed by id. */
function sharedNames(error: TrafficAgentsAmbiguousError): VoxformError {
  const each = error.ambiguous.map(({ name, ids }) => `"${name}" is the name of ${ids.length} agents of the emulator (${ids.join(', ')})`);
  // The names and ids come from the emulator's account (or from whatever answers at --url): escaped.
  return new VoxformError('invalid_argument', printable(`--agent ${each.join('; ')}: calls go to one agent a value names, and this one names several.`), {
    hint: 'Give the id of the agent meant, or its local name from the manifests (with --env NAME when their ids are the environments\').',
  });
}

export async function run(options: TrafficCommandOptions, ctx: CommandContext): Promise<number> {
  if (Boolean(options.local) === Boolean(options.url)) {
    throw new VoxformError('invalid_argument', 'Say which emulator gets the calls: --local (this folder\'s) or --url URL (a running `voxform emulator`), one of them.', {
      hint: 'For example `voxform emulator traffic --local --profile steady`.',
    });
  }
  const request = await trafficRequest(options, ctx.cwd);
  if (options.until !== undefined) request.until = trafficUntil(options.until, Date.now());
  // A manifest's local name (`front-desk`) stands for its agent's id, as with `voxform logs --agent`.
  const project = request.agents ? await manifestProject(options, ctx) : undefined;
  const names = project?.names ?? new Map<string, string>();
  const idsInEnvironments = project?.idsInEnvironments ?? false;
  if (request.agents && project) {
    // A name of the manifests they give no id here is refused as logs and get refuse it, not looked for among the emulator's names.
    const known = manifestAgentNames(project);
    for (const agent of request.agents) if (!names.has(agent)) refuseNameWithoutId(agent, known, '--agent');
    request.agents = request.agents.map((agent) => names.get(agent) ?? agent);
  }
  // Read before any call is added: evidence that cannot be read stops the run with nothing added.
  const trusted = await workspaceEvidence(options, ctx);
  let summary: TrafficSummary;
  try {
    summary = options.local ? await trafficAtLocal(ctx, request) : await trafficAt(options.url as string, request, ctx);
  } catch (error) {
    if (error instanceof TrafficAgentsUnknownError) throw unknownAgents(error, options.agent ?? [], names, idsInEnvironments);
    if (error instanceof TrafficAgentsAmbiguousError) throw sharedNames(error);
    throw error;
  }
  // The emulator at --url by its origin, as its errors name it: the calls are sent to a path from its
  // root, and the URL's user info and query are tokens (docs/security.md §5), not where it is.
  const emulatorOrigin = options.local ? undefined : new URL(options.url as string).origin;
  // Asked for calls and given none: an account without agents is the thing to fix, not a success.
  if (summary.agents.length === 0 && summary.skipped.length === 0) throw noAgents(emulatorOrigin);
  if (summary.calls === 0) throw noCallsAdded(summary);
  // Each name as `get agents` shows it; redacted before the table measures it, as a padded column would tell a secret's length.
  const shown = { ...summary, agents: summary.agents.map((agent) => ({ ...agent, name: trusted.hidesName({ id: agent.agent_id, name: agent.name }) ? REDACTED : ctx.secrets.redact(agent.name) })) };
  if (options.format === 'json') ctx.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  else ctx.stdout.write(renderTrafficSummary(shown, `the call log of ${emulatorOrigin ?? LOCAL_DATA_FILE}`));
  return 0;
}

/** The trusted evidence (src/secrets/trusted.ts) of the workspace of the emulator the calls go to, which says which agent names are secrets. */
async function workspaceEvidence(options: TrafficCommandOptions, ctx: CommandContext): Promise<TrustedSecrets> {
  const url = options.url as string;
  // An --url that is no URL is refused where the calls are sent; no workspace has it as its service.
  const serviceId = options.local ? 'local' : URL.canParse(url) ? new URL(url).origin : url;
  return operatorTrustedSecrets(options, ctx, { environment: options.env, serviceId, liveSource: options.local ? await localLiveSource(ctx) : 'service' });
}
