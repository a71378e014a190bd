import { VoxformError } from '../errors.js';

/**
 * The service's two regional gateways (docs/service-api.md). Both serve the same paths. Frozen: the
 * library exports it, and a caller that wrote to it would change where every client sends its key.
 */
export const REGION_BASE_URLS = Object.freeze({
  us: 'https://api-west.millis.ai',
  eu: 'https://api-eu-west.millis.ai',
} as const);

/**
 * The base URL requests go to: an explicit `baseUrl` wins over `region` (default `us`). No trailing
 * slash, so paths append cleanly; a path prefix (`https://proxy.example.com/voice`) is kept.
 */
export function resolveBaseUrl(options: { baseUrl?: string | undefined; region?: string | undefined }): string {
  if (options.baseUrl !== undefined && options.baseUrl !== '') return normalizeBaseUrl(options.baseUrl, 'The base URL given');
  const region = options.region ?? 'us';
  if (!Object.hasOwn(REGION_BASE_URLS, region)) {
    throw new VoxformError('region_invalid', `Unknown region "${region}": use us or eu.`, {
      hint: 'Set --region (or VOXFORM_REGION) to us or eu, or give --base-url.',
    });
  }
  return REGION_BASE_URLS[region as keyof typeof REGION_BASE_URLS];
}

/**
 * Checks that `raw` is an absolute http(s) URL without query or credentials, and drops a trailing
 * slash. The error names where the value came from (`given`), never the value: a URL that is not
 * usable may still carry a password or a token (`vox:PASSWORD@host`, `?api_key=…`), and the
 * operator's value is read before any manifest could tell the scrub about it.
 */
export function normalizeBaseUrl(raw: string, given: string): string {
  const problem = baseUrlProblem(raw);
  if (problem !== undefined) {
    throw new VoxformError('base_url_invalid', `${given} is not usable: ${problem}.`, {
      hint: 'Pass --base-url (or VOXFORM_BASE_URL) such as https://api-west.millis.ai or http://127.0.0.1:4010.',
    });
  }
  const url = new URL(raw);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Why `raw` cannot be a base URL (never quoting it: it may hold credentials), or undefined when it can. */
export function baseUrlProblem(raw: string): string | undefined {
  if (!URL.canParse(raw)) return 'it is not an absolute URL';
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'it must start with http:// or https://';
  if (url.username !== '' || url.password !== '') return 'credentials do not belong in the URL; set VOXFORM_API_KEY';
  if (url.search !== '' || url.hash !== '') return 'it must not carry a query or a fragment';
  return undefined;
}
