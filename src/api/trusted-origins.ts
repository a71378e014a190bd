/**
 * Where the API key may be sent, decided by the operator only: an official gateway, or an origin named
 * by `--base-url`, `VOXFORM_BASE_URL` or `VOXFORM_TRUSTED_ORIGINS`. A manifest's `base_url` is the pull
 * request author's, so it is used only when its origin is one of those.
 */
import { VoxformError } from '../errors.js';
import { baseUrlProblem, normalizeBaseUrl, REGION_BASE_URLS } from './regions.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The operator's comma-separated list of further origins a manifest's `base_url` may name. */
const TRUSTED_ORIGINS_VARIABLE = 'VOXFORM_TRUSTED_ORIGINS';

/** The origin (`https://host[:port]`) of an absolute http(s) URL, checked as base URLs are (`given`: where it came from, for the error). */
export function originOf(url: string, given: string): string {
  return new URL(normalizeBaseUrl(url, given)).origin;
}

/** `VOXFORM_TRUSTED_ORIGINS` as origins. */
export function parseTrustedOrigins(raw: string | undefined): string[] {
  const origins: string[] = [];
  const entries = (raw ?? '').split(',');
  for (const [index, entry] of entries.entries()) {
    const written = entry.trim();
    if (written === '') continue;
    // An origin is a base URL with no path; a path would suggest a narrower trust than the origin's.
    const problem = baseUrlProblem(written) ?? (new URL(written).pathname === '/' ? undefined : 'it has a path');
    if (problem !== undefined) {
      // The entry is named by its place, never quoted: one that is not an origin may carry a password or a token.
      throw new VoxformError('trusted_origins_invalid', `${TRUSTED_ORIGINS_VARIABLE}: its entry ${index + 1} of ${entries.length} is not an origin: ${problem}.`, {
        hint: `Write origins only, comma-separated, such as ${TRUSTED_ORIGINS_VARIABLE}=https://proxy.example.com,http://127.0.0.1:4010 (scheme, host and port; no path).`,
      });
    }
    origins.push(new URL(written).origin);
  }
  return origins;
}

/** The base URL the operator named, `--base-url` (`flag`) before `VOXFORM_BASE_URL`, checked; undefined when neither is set. */
export function operatorBaseUrl(flag: string | undefined, env: Env): string | undefined {
  const typed = nonEmpty(flag);
  if (typed !== undefined) return normalizeBaseUrl(typed, 'The value given to --base-url');
  const variable = serviceVariable(env, 'VOXFORM_BASE_URL', 'base_url_invalid');
  return variable === undefined ? undefined : normalizeBaseUrl(variable, 'The value of VOXFORM_BASE_URL');
}

/**
 * A variable naming the service (`VOXFORM_BASE_URL`, `VOXFORM_REGION`), trimmed; undefined when
 * unset. Set but empty, it is refused, never read as unset: a CI secret that does not reach the job
 * arrives empty, and the run would go to the default gateway instead of the service the job names.
 */
export function serviceVariable(env: Env, name: 'VOXFORM_BASE_URL' | 'VOXFORM_REGION', code: 'base_url_invalid' | 'region_invalid'): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value.trim() !== '') return value.trim();
  throw new VoxformError(code, `${name} is set but empty: it names no service, and an empty value is never taken for the default gateway.`, {
    hint: `Set ${name} to the service the run is for, or unset it; in CI, check that the variable reaches the job.`,
  });
}

/** Every origin the operator trusts with the key: the gateways, the operator's base URL, `VOXFORM_TRUSTED_ORIGINS`. */
export function trustedOrigins(options: { operatorBaseUrl?: string | undefined; env: Env }): Set<string> {
  const origins = new Set(Object.values(REGION_BASE_URLS).map((url) => new URL(url).origin));
  const named = operatorBaseUrl(options.operatorBaseUrl, options.env);
  if (named !== undefined) origins.add(new URL(named).origin);
  for (const origin of parseTrustedOrigins(options.env[TRUSTED_ORIGINS_VARIABLE])) origins.add(origin);
  return origins;
}

/** The sentence and fix for a manifest `base_url` whose origin the operator did not name. */
export function untrustedBaseUrlMessage(origin: string): { message: string; hint: string } {
  return {
    message: `base_url names ${origin}, an origin the operator has not trusted with the API key`,
    hint:
      // Named so that it fits every command that loads manifests: `validate` has no --base-url.
      `the key goes only to the official gateways or to an origin named by VOXFORM_BASE_URL, ${TRUSTED_ORIGINS_VARIABLE} or a command's --base-url; ` +
      `remove base_url (and set VOXFORM_REGION or --region), or, as the operator, add ${origin} to ${TRUSTED_ORIGINS_VARIABLE}`,
  };
}

export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
