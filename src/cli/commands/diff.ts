/**
 * `voxform diff --env A --env B`: the two environments' live agents compared now, field by field
 * (src/promote/environment-diff.ts). Reads the service only; nothing is locked or written.
 */
import { formatSourceLocation, VoxformError } from '../../errors.js';
import type { Agent } from '../../schema/types.gen.js';
import type { DesiredState } from '../../manifest/types.js';
import { agentIdSource } from '../../manifest/desired-state.js';
import { diffEnvironments, renderEnvironmentDiffJson, renderEnvironmentDiffMarkdown, renderEnvironmentDiffText } from '../../promote/environment-diff.js';
import { trustedSecretPaths } from '../../secrets/trusted.js';
import { readTrustedSecrets } from '../../state/trusted-secrets.js';
import { workspaceKey } from '../../state/types.js';
import { readLiveAgents } from '../../plan/read-live.js';
import type { CommandContext } from '../context.js';
import { readCommandProject } from '../load-manifests.js';
import { connectService, loadDesiredState, notePerFolderState, openOperatorBackend, type ProjectOptions } from '../project.js';

interface DiffOptions extends Omit<ProjectOptions, 'env'> {
  /** `--env`, twice. */
  env?: string[];
  format?: 'text' | 'json' | 'markdown';
}

export async function run(options: DiffOptions, ctx: CommandContext): Promise<number> {
  const [a, b, ...more] = options.env ?? [];
  if (a === undefined || b === undefined || more.length > 0) {
    throw new VoxformError('invalid_argument', 'Name two environments to compare: `voxform diff --env staging --env production`.', { hint: 'The names are those under `environments:` in the manifests.' });
  }
  if (a === b) throw new VoxformError('invalid_argument', 'Both --env name the same environment: name two different environments.', { hint: 'The names are those under `environments:` in the manifests.' });
  const backend = await openOperatorBackend(options, ctx, { note: 'later' });
  // Both environments resolved from one read of the files: they are compared as one checkout holds them.
  const project = await readCommandProject(options, ctx);
  const listedWarnings = new Set<string>();
  const desiredA = await loadDesiredState({ ...options, env: a }, ctx, { outcome: 'nothing was compared', project, listedWarnings });
  const desiredB = await loadDesiredState({ ...options, env: b }, ctx, { outcome: 'nothing was compared', project, listedWarnings });
  await notePerFolderState(options, ctx);
  if (desiredA.baseUrl !== desiredB.baseUrl || desiredA.region !== desiredB.region) {
    throw new VoxformError('invalid_argument', `"${a}" and "${b}" set different services (base_url or region): voxform diff compares environments of one service.`, { hint: 'Compare two environments that use the same base_url and region.' });
  }
  const connection = await connectService({ ...options, env: a }, desiredA, ctx);
  const liveSecrets = new Map<string, string[]>();
  const readLive = async (desired: DesiredState): Promise<Map<string, Agent>> => {
    const trusted = await readTrustedSecrets(backend, workspaceKey(desired.environment, connection.serviceId), ctx.env, ctx.secrets, connection.liveSource);
    const read = await readLiveAgents(connection.client, desired);
    const agents = [...desired.agents.values()].map((agent): [string, Agent] => {
      const live = read.get(agent.id);
      // Said as plan says it, with the environment and the place: the service's own message names neither.
      if (live === undefined) {
        throw new VoxformError('agent_not_on_service', `${formatSourceLocation(agentIdSource(agent))}: ${agent.address} of "${desired.environment ?? 'default'}": the service has no agent with id "${agent.id}"; nothing was compared.`, {
          hint: 'voxform adopts existing agents: put the id of the live agent under that environment (`voxform plan --env` checks it the same way).',
        });
      }
      const places = trustedSecretPaths(trusted, agent, (live.config ?? {}) as Record<string, unknown>).map((place) => `config.${place}`);
      liveSecrets.set(agent.localName, [...(liveSecrets.get(agent.localName) ?? []), ...places]);
      return [agent.localName, live];
    });
    return new Map(agents);
  };
  const liveA = await readLive(desiredA);
  const liveB = await readLive(desiredB);
  const diff = diffEnvironments({ a: desiredA, b: desiredB }, { a: liveA, b: liveB }, liveSecrets);
  const format = options.format ?? 'text';
  ctx.stdout.write(format === 'json' ? renderEnvironmentDiffJson(diff) : format === 'markdown' ? renderEnvironmentDiffMarkdown(diff) : renderEnvironmentDiffText(diff));
  return 0;
}
