/**
 * The one way a command loads the manifests its options name: `-f` (else the default files),
 * `--env`, and, where the command has `--base-url`, that origin trusted for a manifest's `base_url`
 * as VOXFORM_BASE_URL's is (docs/manifest.md, "The service"). Each secret is registered for
 * redaction the moment the loader meets it, so nothing printed while the load goes on or after it
 * (a diagnostic, also when loading failed) shows one.
 */
import { isVoxformError } from '../errors.js';
import { loadManifests } from '../manifest/index.js';
import type { LoadResult } from '../manifest/types.js';
import type { ManifestService } from './connection.js';
import type { CommandContext } from './context.js';
import { countProblems } from './diagnostics.js';

/** The options that say which manifests a command reads, and how. */
export interface ManifestOptions {
  file?: string[] | undefined;
  env?: string | undefined;
  baseUrl?: string | undefined;
}

export function loadCommandManifests(options: ManifestOptions, ctx: CommandContext): Promise<LoadResult> {
  return loadManifests({
    paths: options.file ?? [],
    cwd: ctx.cwd,
    env: ctx.env,
    environment: options.env,
    operatorBaseUrl: options.baseUrl,
    onSecret: (secret) => ctx.secrets.add(secret),
  });
}

/** What a command that reads from the service takes from the manifests: their agents' ids by local name, and the service they name. */
export interface ManifestProject {
  names: Map<string, string>;
  service: ManifestService;
}

/**
 * The manifests' agent names and service, for the commands that read from the service without
 * planning (`logs`, `report`, `history`, `emulator traffic`): a local name stands for its agent's id,
 * and the manifests' `base_url` or `region` name the service where the operator named none, as for
 * `apply`. No manifest is no names and no service; manifests with errors are the same, with a
 * warning (their errors are `validate`'s to list). A mistake in the operator's own settings
 * (VOXFORM_ENV_ALLOW, VOXFORM_TRUSTED_ORIGINS) stops the run, as it does `apply`.
 */
export async function manifestProject(options: ManifestOptions, ctx: CommandContext): Promise<ManifestProject> {
  let result: LoadResult;
  try {
    result = await loadCommandManifests(options, ctx);
  } catch (error) {
    if (isVoxformError(error) && error.code === 'manifest_not_found') return { names: new Map(), service: {} };
    throw error;
  }
  if (!result.state) {
    const { errors } = countProblems(result.diagnostics, result.omitted);
    ctx.stderr.write(`warning: the manifests have ${errors.toLocaleString('en-US')} error${errors === 1 ? '' : 's'} (\`voxform validate\` lists them): their agent names and service are not used.\n`);
    return { names: new Map(), service: {} };
  }
  const { agents, baseUrl, region } = result.state;
  return { names: new Map([...agents.values()].map((agent) => [agent.localName, agent.id])), service: { baseUrl, region } };
}
