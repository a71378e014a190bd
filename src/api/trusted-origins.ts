/**
 * Where the API key may be sent, decided by the operator only: an official gateway, or an origin named
 * by `--base-url`, `VOXFORM_BASE_URL` or `VOXFORM_TRUSTED_ORIGINS`. A manifest's `base_url` is the pull
 * request author's, so it is used only when its origin is one of those.
 */
import { VoxformError } from '../errors.js';
import { normalizeBaseUrl, REGION_BASE_URLS } from './regions.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The operator's comma-separated list of further origins a manifest's `base_url` may name. */
const TRUSTED_ORIGINS_VARIABLE = 'VOXFORM_TRUSTED_ORIGINS';

/** The origin (`https://host[:port]`) of an absolute http(s) URL, checked as base URLs are. */
export function originOf(url: string): string {
  return new URL(normalizeBaseUrl(url)).origin;
}

/** `VOXFORM_TRUSTED_ORIGINS` as origins; a path is refused: it would suggest a narrower trust than the origin. */
export function parseTrustedOrigins(raw: string | undefined): string[] {
  const origins: string[] = [];
  for (const entry of (raw ?? '').split(',')) {
    const written = entry.trim();
    if (written === '') continue;
    const url = URL.canParse(written) ? new URL(written) : undefined;
    const isOrigin =
      url !== undefined &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      url.password === '' &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '';
    if (!url || !isOrigin) {
      // Never quote an entry with credentials in it: an error message is printed.
      const shown = url && (url.username !== '' || url.password !== '') ? 'an entry with credentials' : `"${written}"`;
      throw new VoxformError('trusted_origins_invalid', `${TRUSTED_ORIGINS_VARIABLE} holds ${shown}, which is not an origin.`, {
        hint: `Write origins only, comma-separated, such as ${TRUSTED_ORIGINS_VARIABLE}=https://proxy.example.com,http://127.0.0.1:4010 (scheme, host and port; no path).`,
      });
    }
    origins.push(url.origin);
  }
  return origins;
}

/** Every origin the operator trusts with the key: the gateways, the operator's base URL, `VOXFORM_TRUSTED_ORIGINS`. */
export function trustedOrigins(options: { operatorBaseUrl?: string | undefined; env: Env }): Set<string> {
  const origins = new Set(Object.values(REGION_BASE_URLS).map((url) => new URL(url).origin));
  const named = nonEmpty(options.operatorBaseUrl) ?? nonEmpty(options.env.VOXFORM_BASE_URL);
  if (named !== undefined) origins.add(originOf(named));
  for (const origin of parseTrustedOrigins(options.env[TRUSTED_ORIGINS_VARIABLE])) origins.add(origin);
  return origins;
}

/** The sentence and fix for a manifest `base_url` whose origin the operator did not name. */
export function untrustedBaseUrlMessage(origin: string): { message: string; hint: string } {
  return {
    message: `base_url names ${origin}, an origin the operator has not trusted with the API key`,
    hint:
      `the key goes only to the official gateways or to an origin named by --base-url, VOXFORM_BASE_URL or ${TRUSTED_ORIGINS_VARIABLE}; ` +
      `remove base_url (and set --region or VOXFORM_REGION), or, as the operator, add ${origin} to ${TRUSTED_ORIGINS_VARIABLE}`,
  };
}

export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
