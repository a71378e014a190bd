import { isVoxformError } from '../../errors.js';
import { workspaceKey } from '../../state/types.js';
import { renderStatusJson, renderStatusText } from '../../status/render.js';
import { isReady, probeKey, readStateStatus, regionOf, serviceSourceOf, STATUS_FORMAT_VERSION, type StatusReport } from '../../status/status.js';
import { chooseBaseUrl, noApiKey, resolveConnection, type ManifestService } from '../connection.js';
import type { CommandContext } from '../context.js';
import { idsOnlyInEnvironments, loadCommandManifests } from '../load-manifests.js';
import { countProblems } from '../diagnostics.js';
import { openOperatorBackend, type ProjectOptions } from '../project.js';
import { plural } from '../../util/plural.js';
import { headerValueFromEnv } from '../../util/env-header.js';
import { versionAndFormats } from '../../status/versions.js';

interface StatusOptions extends ProjectOptions {
  format?: 'text' | 'json';
}

/** `voxform status`: exit 0 when plan and apply could run, else 1; the report is printed either way, for CI. */
export async function run(options: StatusOptions, ctx: CommandContext): Promise<number> {
  const manifest = await readManifestService(options, ctx);
  const source = serviceSourceOf(options, ctx.env, manifest.service);
  const { serviceId, baseUrl, key } = await connectAndProbe(options, ctx, manifest.service);
  const backend = await openOperatorBackend(options, ctx);
  const workspace = workspaceKey(options.env, serviceId);
  const fromState = await readStateStatus(backend, workspace);
  const report: StatusReport = {
    format_version: STATUS_FORMAT_VERSION,
    // The embedded emulator's URL is a port of this run alone: named `local`, as plans and drift reports name it.
    service: { id: serviceId, base_url: serviceId === 'local' ? 'local' : baseUrl, region: serviceId === 'local' ? null : regionOf(baseUrl), source },
    key,
    manifest: { environment: options.env ?? null, ...(manifest.problem ? { problem: manifest.problem } : {}) },
    state: { file: backend.display, backend: backend.kind, workspace, ...fromState.state },
    lock: fromState.lock,
    last_forced_open: fromState.last_forced_open,
    last_apply: fromState.last_apply,
    ...(fromState.missing_state ? { missing_state: fromState.missing_state } : {}),
    voxform: versionAndFormats(),
  };
  ctx.stdout.write(options.format === 'json' ? renderStatusJson(report) : renderStatusText(report));
  return isReady(report) ? 0 : 1;
}

/** The manifests' service; a folder without manifests, or with broken ones, still gets a status, with the problem. */
async function readManifestService(options: StatusOptions, ctx: CommandContext): Promise<{ service: ManifestService; problem?: string }> {
  try {
    const result = await loadCommandManifests(options, ctx);
    // Manifests that leave the ids to the environments are no mistake: they are read with --env.
    if (!result.state && idsOnlyInEnvironments(result)) return { service: {}, problem: "the ids are the environments' own; run with --env NAME" };
    if (!result.state) {
      return { service: {}, problem: `${plural(countProblems(result.diagnostics, result.omitted).errors, 'error')}; run \`voxform validate\`` };
    }
    return { service: { baseUrl: result.state.baseUrl, region: result.state.region } };
  } catch (error) {
    if (isVoxformError(error)) return { service: {}, problem: error.message };
    throw error;
  }
}

async function connectAndProbe(
  options: StatusOptions,
  ctx: CommandContext,
  manifest: ManifestService,
): Promise<{ serviceId: string; baseUrl: string; key: StatusReport['key'] }> {
  if (!options.local && headerValueFromEnv(ctx.env, 'VOXFORM_API_KEY') === undefined) {
    // Nothing is sent without a key; the base URL is still worth showing.
    const baseUrl = chooseBaseUrl(options, ctx.env, manifest);
    return { serviceId: baseUrl, baseUrl, key: { type: 'missing', problem: noApiKey(ctx.env) } };
  }
  const connection = await resolveConnection({ ...options, manifest }, ctx, { retries: 0 });
  return { serviceId: connection.serviceId, baseUrl: connection.baseUrl, key: await probeKey(connection.client) };
}
