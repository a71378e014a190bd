/**
 * A recorded configuration as a desired state, for `voxform rollback`: each agent's recorded
 * config (the manifest-owned fields as applied, secrets as `${env:…}` references) read again the
 * way the loader reads a manifest — the same interpolation, under the same environment policy
 * (`VOXFORM_ENV_ALLOW`; `VOXFORM_*` never readable) — so the normal plan and apply run it.
 *
 * Only agents are restored: their name and config. Knowledge attachments, phones, campaigns and
 * credentials are left as they are (they are not part of an agent's recorded configuration); an
 * agent's attached files stay recorded in the state as the manifests' (`DesiredAgent.keptKnowledge`).
 */
import { VoxformError } from '../errors.js';
import { DiagnosticList } from '../manifest/diagnostics.js';
import { envPolicyOf } from '../secrets/env-policy.js';
import { interpolateTree, type InterpolationContext } from '../manifest/interpolate.js';
import type { PathPart } from '../manifest/positions.js';
import { configSecretPlaces } from '../secrets/schema-paths.js';
import { formatDotted } from '../util/field-path.js';
import { type SourceText } from '../manifest/source.js';
import { LineCounter } from '../util/text-position.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import { hashValue } from '../util/hash.js';
import { byCodeUnits } from '../util/compare.js';
import { validateAgainst } from '../schema/validate.js';
import { withoutNullFields } from '../util/json-object.js';
import { AgentNames } from './agent-names.js';
import { recordedAgent, type AgentVersion, type HistoryRecord, type LedgerRecord } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface RestoreOptions {
  /** Local names of the agents to restore; empty: every agent of the record. */
  agents: readonly string[];
  /** The environment the references are read from (and its policy). */
  env: Env;
  /** The project's desired state as loaded now: the environment, region and base URL are kept. */
  current: DesiredState;
  /** The workspace's agents across renamed keys: an agent the record holds under an earlier name is restored under its name now. */
  names?: AgentNames | undefined;
  /** Hears every secret value read, at once (so that even an error printed next is scrubbed of it). */
  onSecret?: ((value: string) => void) | undefined;
  /**
   * A variable the record reads that is not set (no default) reads as `WITHHELD` instead of an error:
   * for a heal, which puts back only some fields and checks each against the state's hash of what was applied.
   */
  withholdUnsetEnv?: boolean | undefined;
}

/**
 * The agents to restore, each by its name now, each checked to be in the record. Restoring the whole
 * record, an agent no name stands for now (its name given to another agent) is left out: the
 * manifests no longer manage it (`unnamedAgents` says which, for the output).
 */
function chosenAgents(record: HistoryRecord, agents: readonly string[], names: AgentNames): Array<[string, AgentVersion]> {
  const recorded = Object.keys(record.agents).sort();
  if (agents.length === 0) {
    const now = recorded.flatMap((name) => names.namesNow(name, record.agents[name] as AgentVersion).map((nameNow): [string, AgentVersion] => [nameNow, record.agents[name] as AgentVersion]));
    if (now.length === 0 && recorded.length > 0) throw notRecorded(record, names, `Record ${record.id} holds no agent that has a name now: ${unnamedAgents(record, names).join('; ')}.`);
    return now.sort(([a], [b]) => byCodeUnits(a, b));
  }
  const chosen = new Map<string, AgentVersion>();
  for (const name of agents) {
    const version = names.versionIn(record, name);
    if (!version) throw notRecorded(record, names, `Record ${record.id} holds no agent "${name}"${names.anotherAgentNote(name, recordedAgent(record, name)?.id)}.`);
    // An old name (the key before a rename) stands for its agent, by its id, under the name it has now:
    // restored under the old key, the plan would move the agent's state back to a key the manifests do not use.
    const namesNow = names.namesNow(name, version);
    if (namesNow.length === 0) throw notRecorded(record, names, `Record ${record.id} holds "${name}" as agent ${version.id}, which no name stands for now (a rollback writes only to agents under the names they have now).`);
    for (const nameNow of namesNow) chosen.set(nameNow, version);
  }
  return [...chosen];
}

/** The refusal, its hint naming the record's agents as `--agent` takes them: by the names they have now. */
function notRecorded(record: HistoryRecord, names: AgentNames, message: string): VoxformError {
  const namesNow = [...new Set(Object.entries(record.agents).flatMap(([name, version]) => names.namesNow(name, version)))].sort(byCodeUnits);
  return new VoxformError('rollback_agent_not_recorded', message, {
    hint: namesNow.length > 0 ? `Its agents are: ${namesNow.join(', ')}.` : 'It holds no agent that has a name now: pick another record with `voxform history`.',
  });
}

/** The record's agents no name stands for now, as the output names them: `billing (-OKspare…1; billing is -OKspare…2 now)`. */
export function unnamedAgents(record: LedgerRecord, names: AgentNames): string[] {
  return Object.keys(record.agents)
    .sort()
    .flatMap((name) => {
      const version = record.agents[name] as { id: string };
      if (names.namesNow(name, version).length > 0) return [];
      const now = names.idNow(name);
      return [`${name} (${version.id}${now === undefined ? '' : `; ${name} is ${now} now`})`];
    });
}

/** One recorded agent, its references read from the environment; problems go to `diagnostics`. */
function restoredAgent(name: string, version: AgentVersion, record: HistoryRecord, context: { interpolation: InterpolationContext; display: string; current: DesiredState }): DesiredAgent {
  if (version.unrecordedSecrets?.length) {
    throw new VoxformError('rollback_secret_unrecorded', `Record ${record.id} cannot restore agent "${name}": its manifest wrote the secret at ${version.unrecordedSecrets.join(', ')} literally, and the history never keeps a secret.`, {
      hint: 'Write secrets as ${env:NAME} in the manifest, so the history can record the reference; restore this agent by hand, or leave it out with --agent.',
    });
  }
  const written = { name: version.name, config: version.config };
  const text = JSON.stringify(written, null, 2);
  const source: SourceText = { path: context.display, display: context.display, text, lines: new LineCounter(), order: 0, root: '' };
  const envReferences: Record<string, string> = {};
  const envPaths: string[] = [];
  const resolved = interpolateTree(written, context.interpolation, {
    onEnvPath: (path: PathPart[], raw: string) => {
      envReferences[formatDotted(path)] = raw;
      if (path[0] === 'config') envPaths.push(formatDotted(path.slice(1)));
    },
    span: { source, start: 0, end: text.length },
  }) as { name: string | undefined; config: Record<string, unknown> };
  refuseUnsendable(name, resolved.config, record);
  return {
    kind: 'agent',
    address: `agent.${name}`,
    source: { file: context.display, line: 1, col: 1 },
    localName: name,
    id: version.id,
    name: resolved.name,
    config: resolved.config,
    knowledge: undefined,
    keptKnowledge: context.current.agents.get(name)?.knowledge,
    ignore: [],
    sensitivePaths: [...new Set([...configSecretPlaces(resolved.config), ...envPaths])],
    envReferences,
  };
}

/**
 * Refuses a recorded configuration the service's update would not take (`config.prompt` a list, a
 * field it does not have): no apply records one, so the record was changed by hand or damaged, and
 * found only as its request is built, it would stop the rollback halfway, the other agents rolled
 * back already. Checked before anything is planned.
 */
function refuseUnsendable(name: string, config: Record<string, unknown>, record: HistoryRecord): void {
  // A null clears its field wherever a manifest writes it, and an apply records it as written.
  const issue = validateAgainst('AgentConfigUpdate', withoutNullFields(config))[0];
  if (!issue) return;
  const where = formatDotted(['config', ...issue.path]);
  throw new VoxformError('rollback_record_invalid', `Record ${record.id} cannot restore agent "${name}": its ${where} ${issue.message}, which no apply records, so the record was changed by hand or damaged; nothing was applied.`, {
    hint: 'Roll back to another record (`voxform history` lists them), or leave this agent out with --agent.',
  });
}

/** The desired state that returns the chosen agents of `record` to their recorded configuration. */
export function desiredFromRecord(record: HistoryRecord, options: RestoreOptions): DesiredState {
  const diagnostics = new DiagnosticList();
  const secrets = new Set<string>();
  const names = new Set<string>();
  const interpolation: InterpolationContext = {
    env: options.env,
    diagnostics,
    policy: envPolicyOf(options.env),
    onSecret: (value) => {
      if (value === '' || value.includes('${env:')) return;
      secrets.add(value);
      options.onSecret?.(value);
    },
    onEnvName: (name) => names.add(name),
    unsetAsWithheld: options.withholdUnsetEnv === true,
    from: 'record',
  };
  const agents = new Map<string, DesiredAgent>();
  for (const [name, version] of chosenAgents(record, options.agents, options.names ?? new AgentNames([record]))) {
    agents.set(name, restoredAgent(name, version, record, { interpolation, display: `history record ${record.id}, agent ${name}`, current: options.current }));
  }
  const problems = diagnostics.toList().filter((diagnostic) => diagnostic.severity === 'error');
  if (problems.length > 0) {
    throw new VoxformError('rollback_env_invalid', `Record ${record.id} cannot be restored: ${problems.map((p) => `${p.file}: ${p.message}`).join('; ')}.`, {
      hint: 'Set the variables the recorded configuration reads (the operator’s VOXFORM_ENV_ALLOW applies, as for manifests), then run the rollback again.',
    });
  }
  return {
    ...options.current,
    files: [],
    manifestHash: hashValue({ rollbackOf: record.id, agents: [...agents.keys()] }),
    agents,
    phones: new Map(),
    campaigns: new Map(),
    knowledge: new Map(),
    credentials: new Map(),
    secrets: [...secrets],
    // What the state records as read by the last apply: the manifests' names stay, so the next plan
    // of the manifests does not flag them as new.
    environmentVariables: [...new Set([...options.current.environmentVariables, ...names])].sort(),
  };
}
