/** The service client: the only code in voxform that talks to the voice-agent service. */
export { createClient } from './client.js';
export type { ApiClient, CallLogFilters, ClientOptions } from './client.js';
export { ApiError, isApiError } from './errors.js';
export type { RetryEvent } from './requester.js';
export { REGION_BASE_URLS, resolveBaseUrl } from './regions.js';
