/**
 * The one way a command loads the manifests its options name: `-f` (else the default files),
 * `--env`, and, where the command has `--base-url`, that origin trusted for a manifest's `base_url`
 * as VOXFORM_BASE_URL's is (docs/manifest.md, "The service"). Each secret is registered for
 * redaction the moment the loader meets it, so nothing printed while the load goes on (an error
 * thrown while `plan`'s early reads are out) or after it (a diagnostic, also when loading failed)
 * shows one.
 */
import { loadManifests } from '../manifest/index.js';
import type { LoadResult, ReadTargets } from '../manifest/types.js';
import type { CommandContext } from './context.js';

/** The options that say which manifests a command reads, and how. */
export interface ManifestOptions {
  file?: string[] | undefined;
  env?: string | undefined;
  baseUrl?: string | undefined;
}

export function loadCommandManifests(options: ManifestOptions, ctx: CommandContext, onReadTargets?: (targets: ReadTargets) => void): Promise<LoadResult> {
  return loadManifests({
    paths: options.file ?? [],
    cwd: ctx.cwd,
    env: ctx.env,
    environment: options.env,
    operatorBaseUrl: options.baseUrl,
    onReadTargets,
    onSecret: (secret) => ctx.secrets.add(secret),
  });
}
