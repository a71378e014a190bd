import { VoxformError } from '../errors.js';

/** The service's two regional gateways (docs/service-api.md). Both serve the same paths. */
export const REGION_BASE_URLS = {
  us: 'https://api-west.millis.ai',
  eu: 'https://api-eu-west.millis.ai',
} as const;

export type RegionName = keyof typeof REGION_BASE_URLS;

export const DEFAULT_REGION: RegionName = 'us';

export function isRegionName(value: string): value is RegionName {
  return Object.hasOwn(REGION_BASE_URLS, value);
}

/**
 * The base URL requests go to: an explicit `baseUrl` wins over `region`, which defaults to `us`.
 * The result has no trailing slash, so paths (`/agents/…`) append cleanly; a base URL may carry a
 * path prefix (`https://proxy.example.com/voice`), kept as is.
 */
export function resolveBaseUrl(options: { baseUrl?: string | undefined; region?: string | undefined }): string {
  if (options.baseUrl !== undefined && options.baseUrl !== '') return normalizeBaseUrl(options.baseUrl);
  const region = options.region ?? DEFAULT_REGION;
  if (!isRegionName(region)) {
    throw new VoxformError('region_invalid', `Unknown region "${region}": use us or eu.`, {
      hint: 'Set --region (or VOXFORM_REGION) to us or eu, or give --base-url.',
    });
  }
  return REGION_BASE_URLS[region];
}

/** Checks that `raw` is an absolute http(s) URL without query or credentials, and drops a trailing slash. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(raw, 'it is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(raw, 'it must start with http:// or https://');
  if (url.username !== '' || url.password !== '') throw invalid('(a URL with credentials)', 'credentials do not belong in the URL; set VOXFORM_API_KEY');
  if (url.search !== '' || url.hash !== '') throw invalid(raw, 'it must not carry a query or a fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function invalid(raw: string, why: string): VoxformError {
  return new VoxformError('base_url_invalid', `The base URL "${raw}" is not usable: ${why}.`, {
    hint: 'Pass --base-url (or VOXFORM_BASE_URL) such as https://api-west.millis.ai or http://127.0.0.1:4010.',
  });
}
