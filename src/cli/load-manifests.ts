/**
 * The one way a command loads the manifests its options name (`-f`, `--env`; `--base-url` trusted for a
 * manifest's `base_url`). Each secret is registered the moment the loader meets it, so no diagnostic shows one.
 */
import path from 'node:path';
import { isVoxformError } from '../errors.js';
import { loadManifests } from '../manifest/index.js';
import type { LoadResult } from '../manifest/types.js';
import type { ManifestService } from './connection.js';
import type { CommandContext } from './context.js';
import { countProblems } from './diagnostics.js';
import { plural } from '../util/plural.js';

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

/** What the commands that read without planning take from the manifests. */
export interface ManifestProject {
  /** Agent ids by local name. */
  names: Map<string, string>;
  phones: Set<string>;
  /** Campaign ids by local name. */
  campaigns: Map<string, string>;
  /** Knowledge files by local name, each file relative to the working directory. */
  knowledge: Map<string, string>;
  service: ManifestService;
}

/**
 * The manifests' agent ids by local name, their phone numbers, campaigns, knowledge files, and their service, for the commands that read from the service
 * without planning. No manifest, or manifests with errors (with a warning), give neither; a mistake in the
 * operator's own settings (VOXFORM_ENV_ALLOW) stops the run, as it does `apply`.
 */
export async function manifestProject(
  options: ManifestOptions,
  ctx: CommandContext,
): Promise<ManifestProject> {
  let result: LoadResult;
  try {
    result = await loadCommandManifests(options, ctx);
  } catch (error) {
    if (isVoxformError(error) && error.code === 'manifest_not_found') return emptyProject();
    throw error;
  }
  if (!result.state) {
    const { errors } = countProblems(result.diagnostics, result.omitted);
    ctx.stderr.write(`warning: the manifests have ${plural(errors, 'error')} (\`voxform validate\` lists them): their agent names and service are not used.\n`);
    return emptyProject();
  }
  const { agents, phones, campaigns, knowledge, baseUrl, region } = result.state;
  return {
    names: new Map([...agents.values()].map((agent) => [agent.localName, agent.id])),
    phones: new Set(phones.keys()),
    campaigns: new Map([...campaigns.values()].map((campaign) => [campaign.localName, campaign.id])),
    knowledge: new Map([...knowledge.values()].map((file) => [file.localName, path.relative(ctx.cwd, file.path) || file.path])),
    service: { baseUrl, region },
  };
}

function emptyProject(): ManifestProject {
  return { names: new Map(), phones: new Set(), campaigns: new Map(), knowledge: new Map(), service: {} };
}
