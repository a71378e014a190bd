/** The service client: the only code in voxform that talks to the voice-agent service. */
export { createClient, nextUp } from './client.js';
export type { ApiClient, CallLogFilters, ClientOptions, ImportPhoneResult, IterateCallLogsOptions, KnowledgeUploadOptions } from './client.js';
export { ChatCompletionStream, ChatSession } from './chat.js';
export type { ChatSessionOptions } from './chat.js';
export { ApiError, isApiError } from './errors.js';
export type { ApiErrorCode, ValidationIssue } from './errors.js';
export type { RequestEvent, ResponseEvent, RetryEvent } from './requester.js';
export { backoffDelay, parseRetryAfter, RETRYABLE_STATUSES } from './retry.js';
export type { BackoffOptions, RetryMode } from './retry.js';
export { DEFAULT_REGION, REGION_BASE_URLS, resolveBaseUrl } from './regions.js';
export { readSse, SseParser } from './sse.js';
export type { SseEvent } from './sse.js';
export { MAX_KNOWLEDGE_FILE_BYTES } from './upload.js';
export { mimeTypeFor } from '../util/mime.js';
