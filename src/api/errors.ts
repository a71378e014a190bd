import { STATUS_CODES } from 'node:http';
import type { ApiErrorCode } from '../error-codes.js';
import { openFileLimitHint, rateLimitedHint, VoxformError } from '../errors.js';
import { echoedForms, redactNeedles } from '../secrets/redact.js';
import { formatDotted } from '../util/field-path.js';
import { printable } from '../util/printable.js';
import { someOf } from '../util/plural.js';
import { isLoopback } from '../util/loopback.js';
import { formatSize } from '../util/size.js';
import { shorten, withoutFullStop } from '../util/shorten.js';
import { parseOutsideJson } from '../util/json-budget.js';

/** One entry of a FastAPI validation error (`422 {detail: [{loc, msg, type}]}`). */
interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/**
 * A request the service refused or could not answer. `message` is one sentence naming the method,
 * the path and what the service said; `hint` says what to do about it. The API key never appears
 * in either: whatever the service echoes back is scrubbed before the error is built.
 */
export class ApiError extends VoxformError {
  declare readonly code: ApiErrorCode;
  /** The HTTP status, or undefined when no answer arrived (connection error, time-out). */
  readonly status: number | undefined;
  readonly method: string;
  /** The path as sent (ids percent-encoded), without the base URL and without the query. */
  readonly path: string;
  /** The service's `detail` as one string (422 issues joined as `loc: msg`), when it gave one. */
  readonly detail: string | undefined;
  /** The `loc` list of each 422 issue (e.g. `["body", "config", "voice"]`); empty otherwise. */
  readonly loc: Array<Array<string | number>>;
  /** The 422 issues as the service sent them; empty otherwise. */
  readonly issues: ValidationIssue[];
  /** How many times the request was sent (1 when it was not retried). */
  readonly attempts: number;
  /**
   * Whether the service may have applied the request though no success came back: an attempt of it
   * was answered with a failure that promises nothing (a 5xx) or left unanswered. A stopped run's
   * `api_not_sent` carries it too, for a retry withdrawn after such an attempt.
   */
  readonly mayHaveApplied: boolean;

  constructor(init: {
    code: ApiErrorCode;
    message: string;
    /** Required, if undefined: each error says whether it has a way out to show. */
    hint: string | undefined;
    status?: number | undefined;
    method: string;
    path: string;
    detail?: string | undefined;
    issues?: ValidationIssue[];
    attempts: number;
    mayHaveApplied?: boolean | undefined;
    cause?: unknown;
  }) {
    const issues = init.issues ?? [];
    super(init.code, init.message, {
      hint: init.hint,
      details: { status: init.status, method: init.method, path: init.path, detail: init.detail, issues, attempts: init.attempts },
      ...(init.cause === undefined ? {} : { cause: init.cause }),
    });
    this.name = 'ApiError';
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.detail = init.detail;
    this.issues = issues;
    this.loc = issues.map((issue) => issue.loc);
    this.attempts = init.attempts;
    this.mayHaveApplied = init.mayHaveApplied === true;
  }

  override withHint(hint: string): ApiError {
    return reworded(this, { hint });
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** The same failure, its message or hint put in the caller's words; the code and the request stay the error's. */
export function reworded(error: ApiError, words: { message?: string; hint?: string | undefined }): ApiError {
  const { code, status, method, path, detail, issues, attempts, mayHaveApplied } = error;
  const { message = error.message, hint = error.hint } = words;
  return new ApiError({ code, message, hint, status, method, path, detail, issues, attempts, mayHaveApplied, cause: error });
}

/** Whether the failure is a read of an agent the service does not have (`GET /agents/{id}` answered 404). */
export function isAgentNotFound(error: unknown): error is ApiError {
  return isApiError(error) && error.code === 'api_not_found' && error.method === 'GET' && error.path.startsWith('/agents/');
}

/** What the caller knows about a request when it fails, for the sentence and the hint. */
export interface FailureContext {
  method: string;
  path: string;
  attempts: number;
  /** The private key, scrubbed from anything the service echoes back. */
  secret: string;
  /** Scrubs the caller's other secrets (`ClientOptions.redact`), before anything is shortened. */
  redact?: ((text: string) => string) | undefined;
  /** What to check when the service answers 404 (e.g. "Check the agent id in your manifest."). */
  notFoundHint?: string | undefined;
  /** How to see whether a request not safe to repeat got through (`Exchange.checkOutcome`). */
  checkOutcome?: string | undefined;
  /** The failure leaves it unknown whether the service acted on the request (`mayHaveActed`, retry.ts): `api_outcome_unknown`. */
  mayHaveActed?: boolean | undefined;
  /** A write answered with a 5xx or left unanswered, which may have been applied (`writeMayHaveLanded`, retry.ts): the error says so. */
  mayHaveApplied?: boolean | undefined;
  /** An earlier attempt of this write may have been applied (`writeMayHaveLanded`): the error says so, whatever the last attempt met. */
  earlierAttemptMayHaveLanded?: boolean | undefined;
}

/** How an error ends when only an earlier attempt of the write may have reached the service. */
const EARLIER_ATTEMPT_MAY_HAVE_LANDED = 'an earlier attempt may have reached it, and the service may have applied it.';

/**
 * Turns a non-2xx answer into an `ApiError` with the right code, sentence and hint. A write that may
 * have been applied (`mayHaveApplied`: a 5xx) says so, as an unanswered one does (`errorFromTransport`).
 */
export function errorFromResponse(status: number, body: string, ctx: FailureContext): ApiError {
  const parsed = scrubParsed(parseErrorBody(body), ctx);
  const code = ctx.mayHaveActed ? 'api_outcome_unknown' : codeForStatus(status);
  // A status HTTP names no reason for (499), answered without words, is said as the number alone.
  const reason = parsed.detail ?? STATUS_CODES[status];
  const retried = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : '';
  // The sentence goes on after the service's words.
  const answered = `${ctx.method} ${displayPath(ctx.path)} failed: the service answered ${status}${reason === undefined ? '' : ` ${withoutFullStop(clip(reason))}`}${retried}`;
  const hint = hintFor(code, ctx, parsed.issues, status);
  const mayHaveApplied = ctx.mayHaveApplied || ctx.earlierAttemptMayHaveLanded;
  return new ApiError({
    code,
    message: ctx.mayHaveActed
      ? `${answered}: the service may have acted on it.`
      : ctx.mayHaveApplied
        ? `${answered}: the service may have applied it.`
        : ctx.earlierAttemptMayHaveLanded
          ? `${answered}: ${EARLIER_ATTEMPT_MAY_HAVE_LANDED}`
          : `${answered}.`,
    hint: ctx.mayHaveActed ? outcomeUnknownHint(ctx) : mayHaveApplied ? mayHaveAppliedHint(hint) : hint,
    status,
    method: ctx.method,
    path: ctx.path,
    detail: parsed.detail,
    issues: parsed.issues,
    attempts: ctx.attempts,
    mayHaveApplied: ctx.mayHaveActed || mayHaveApplied,
  });
}

/** A 2xx answer whose body says `success: false` (or is not what the operation promises). */
export function errorFromBadAnswer(status: number, what: string, ctx: FailureContext, detail?: string): ApiError {
  const scrubbed = detail === undefined ? undefined : scrubEcho(detail, ctx);
  return new ApiError({
    code: 'api_error',
    message: `${ctx.method} ${displayPath(ctx.path)} failed: the service answered ${status} with ${what}${scrubbed ? ` (${clip(scrubbed)})` : ''}.`,
    // A read changes nothing; a write whose answer says it failed was not applied.
    hint: ctx.method === 'GET' || ctx.method === 'HEAD' ? 'Run again, and report it if it persists: a read changes nothing.' : 'The service did not apply the change; run again, and report it if it persists.',
    status,
    method: ctx.method,
    path: ctx.path,
    detail: scrubbed,
    attempts: ctx.attempts,
  });
}

/** A record of a list the client checks (client.ts): a call of the call log, or a phone of `GET /phones`. */
export type RecordKind = 'call record' | 'phone';

/** Where a record of another shape comes from, and what to do about it. */
const MALFORMED_RECORD_HINTS: Record<RecordKind, string> = {
  'call record':
    'The service sent a record of another shape than its interface documents (docs/service-api.md, "Call logs"): report it to the service. With --local or `voxform emulator --data FILE`, correct or delete that record in the data file\'s `call_logs` (.voxform/local.json for --local).',
  phone: 'The service sent a phone of another shape than its interface documents (docs/service-api.md, "Phones"): report it to the service.',
};

/**
 * A 2xx answer of a list read holding a record voxform cannot read (`record.problem`: which record,
 * what is wrong). The read stops: a report missing calls would look whole, and a plan missing a
 * phone would import it again.
 */
export function errorFromMalformedRecord(status: number, record: { kind: RecordKind; problem: string }, ctx: FailureContext): ApiError {
  const detail = clip(scrubEcho(record.problem, ctx));
  return new ApiError({
    code: 'api_error',
    message: `${ctx.method} ${displayPath(ctx.path)} failed: the service answered ${status} with a ${record.kind} voxform cannot read: ${withoutFullStop(detail)}.`,
    hint: MALFORMED_RECORD_HINTS[record.kind],
    status,
    method: ctx.method,
    path: ctx.path,
    detail,
    attempts: ctx.attempts,
  });
}

/** How to tell whether a knowledge file upload got through: nothing voxform reads can show it. */
export const CHECK_KNOWLEDGE_FILES = 'the service cannot list its knowledge files, so look for the file in its dashboard: another upload makes a second one.';

/** What to do when a request not safe to repeat may have got through: check before running it again. */
export function outcomeUnknownHint(ctx: Pick<FailureContext, 'checkOutcome'>): string {
  return `Check before running it again, or it may be done twice: ${ctx.checkOutcome ?? 'the next `voxform plan` shows what the service holds now.'}`;
}

/**
 * How an attempt failed on the way, when no usable answer arrived. `not_retried`: a stopping run
 * ended the wait before another attempt; `too_many_files`: no socket could be opened; `cut_off`: the
 * connection was lost while a streamed answer was read. A time-out or
 * a connection failure or an interruption of a request that may have reached the service
 * (`mayHaveActed`) is `api_outcome_unknown`.
 */
export type TransportFailure = 'timeout' | 'connection' | 'cut_off' | 'tls' | 'too_large' | 'too_many_files' | 'interrupted' | 'not_sent' | 'not_retried';

type TransportContext = FailureContext & { origin: string; timeoutMs: number; maxResponseBytes: number; cause: unknown };

/**
 * No usable answer: a time-out, a failed connection or TLS, an answer too large, or a stopped run. A
 * write that may have been applied (`mayHaveApplied`, or an earlier attempt of it:
 * `earlierAttemptMayHaveLanded`) says so, whichever write it is: "try again" alone would read as
 * "nothing happened".
 */
export function errorFromTransport(kind: TransportFailure, ctx: TransportContext): ApiError {
  const error = unansweredError(kind, ctx);
  if (error.code === 'api_outcome_unknown') return error;
  const thisAttemptMayHaveLanded = ctx.mayHaveApplied === true && (kind === 'timeout' || kind === 'connection' || kind === 'interrupted');
  if (!thisAttemptMayHaveLanded && !ctx.earlierAttemptMayHaveLanded) return error;
  const { code, status, method, path, detail, issues, attempts } = error;
  const sent = kind === 'connection' ? 'the request may have reached it' : 'the request was sent';
  return new ApiError({
    code,
    message: `${error.message.replace(/\.$/, '')}: ${thisAttemptMayHaveLanded ? `${sent}, and the service may have applied it.` : EARLIER_ATTEMPT_MAY_HAVE_LANDED}`,
    hint: mayHaveAppliedHint(error.hint),
    status,
    method,
    path,
    detail,
    issues,
    attempts,
    mayHaveApplied: true,
    cause: ctx.cause,
  });
}

/** What to do after a write that may have been applied: see what the service holds, then what `hint` says. */
function mayHaveAppliedHint(hint: string | undefined): string {
  return `The service may have applied it: \`voxform plan\` shows what it holds. ${hint ?? ''}`.trim();
}

function unansweredError(kind: TransportFailure, ctx: TransportContext): ApiError {
  const retried = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : '';
  const where = `${ctx.method} ${displayPath(ctx.path)} failed`;
  const base = { method: ctx.method, path: ctx.path, attempts: ctx.attempts, cause: ctx.cause };
  if (ctx.mayHaveActed && (kind === 'timeout' || kind === 'connection' || kind === 'interrupted')) {
    const unanswered =
      kind === 'timeout' ? `no complete answer came within ${formatTimeout(ctx.timeoutMs)}` : kind === 'interrupted' ? 'voxform was interrupted before an answer came' : `no answer came (${transportReason(ctx.cause)})`;
    return new ApiError({
      ...base,
      code: 'api_outcome_unknown',
      message: `${where}: the request was sent to ${ctx.origin}, but ${unanswered}${retried}: the service may have acted on it.`,
      hint: kind === 'timeout' ? `${outcomeUnknownHint(ctx)} A slow service may be given longer with --timeout (or VOXFORM_TIMEOUT), e.g. --timeout ${suggestLonger(ctx.timeoutMs)}.` : outcomeUnknownHint(ctx),
    });
  }
  switch (kind) {
    case 'timeout':
      return new ApiError({
        ...base,
        code: 'api_timeout',
        message: `${where}: the service at ${ctx.origin} did not answer within ${formatTimeout(ctx.timeoutMs)}${retried}.`,
        hint: `The service is slow or unreachable: try again later, or give it longer with --timeout (or VOXFORM_TIMEOUT), e.g. --timeout ${suggestLonger(ctx.timeoutMs)}.`,
      });
    case 'tls':
      return new ApiError({
        ...base,
        code: 'api_tls',
        message: `${where}: the secure (TLS) connection to ${ctx.origin} failed: ${tlsReason(ctx.cause)}${retried}.`,
        hint: 'Check the base URL (--base-url, VOXFORM_BASE_URL): an https:// address needs a service speaking TLS with a certificate this machine trusts (NODE_EXTRA_CA_CERTS adds a private CA).',
      });
    case 'too_large':
      return new ApiError({
        ...base,
        code: 'api_response_too_large',
        message: `${where}: the answer from ${ctx.origin} was larger than ${formatSize(ctx.maxResponseBytes)}, the most voxform reads.`,
        hint: 'No answer of the service is this large; check that the base URL (--base-url, VOXFORM_BASE_URL) points at the service.',
      });
    case 'cut_off':
      return new ApiError({
        ...base,
        code: 'api_connection_lost',
        message: `${where}: the service at ${ctx.origin} began its answer, then ${transportReason(ctx.cause)} before the end.`,
        hint: 'Send it again: the answer was lost on the way, not refused. If it keeps happening, check what lies between this machine and the service (a proxy that cuts long answers off).',
      });
    case 'interrupted':
      return new ApiError({ ...base, code: 'api_interrupted', message: `${where}: stopped because voxform was interrupted.`, hint: 'Run the command again to finish its work.' });
    case 'not_sent':
      return new ApiError({ ...base, code: 'api_not_sent', message: `${where}: withdrawn before it was sent (the run is stopping).`, hint: 'Run the command again to finish its work.' });
    case 'not_retried':
      return new ApiError({
        ...base,
        code: 'api_not_sent',
        message: `${where}: not sent again (the run is stopping); attempt ${ctx.attempts} had failed: ${String(ctx.cause)}.`,
        hint: 'Run the command again to finish its work.',
      });
    case 'too_many_files':
      return new ApiError({
        ...base,
        code: 'api_too_many_open_files',
        message: `${where}: no connection to ${ctx.origin} could be opened: this process has as many files open as the system lets it (${errorCode(ctx.cause)}).`,
        hint: openFileLimitHint(true),
      });
    case 'connection':
      return new ApiError({
        ...base,
        code: 'api_unavailable',
        message: `${where}: could not reach the service at ${ctx.origin} (${transportReason(ctx.cause)})${retried}.`,
        hint: nothingListensHere(ctx.origin, ctx.cause)
          ? `Nothing listens at ${ctx.origin} on this machine: start the local service there with \`voxform emulator\` (--port to choose its port), or pass --local for the embedded one.`
          : 'Check the network and the base URL (--base-url, --region), or try again later.',
      });
  }
}

/** A refused connection to this machine: most likely the emulator it names is not running. */
function nothingListensHere(origin: string, cause: unknown): boolean {
  if (errorCode(cause) !== 'ECONNREFUSED') return false;
  try {
    return isLoopback(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** TLS failures: OpenSSL's `ERR_SSL_*`, Node's `ERR_TLS_*`, the certificate verification codes and `EPROTO`. */
export function isTlsError(error: unknown): boolean {
  const code = errorCode(error);
  if (code === undefined) return false;
  return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO' || Object.hasOwn(CERTIFICATE_PROBLEMS, code) || /CERT/.test(code);
}

const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed, and this machine does not trust it',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate this machine does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is signed by an authority this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate is signed by an authority this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate is signed by an authority this machine does not trust',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server did not answer in TLS (is it a plain http:// service?)',
};

/** The TLS failure in words, with its code: `its certificate has expired (CERT_HAS_EXPIRED)`. */
export function tlsReason(error: unknown): string {
  const code = errorCode(error) ?? 'TLS';
  const known = CERTIFICATE_PROBLEMS[code];
  if (known) return `${known} (${code})`;
  // OpenSSL messages look like `80CC…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/…`.
  const message = error instanceof Error ? error.message : String(error);
  const openssl = /:SSL routines:[^:]*:([^:]+)/.exec(message)?.[1];
  // Node's own HTTP client says EPROTO where undici says ERR_SSL_WRONG_VERSION_NUMBER: one failure, one sentence.
  if (openssl === 'wrong version number') return `${CERTIFICATE_PROBLEMS.ERR_SSL_WRONG_VERSION_NUMBER} (${code})`;
  return `${openssl ?? clip(message)} (${code})`;
}

export function codeForStatus(status: number): ApiErrorCode {
  if (status === 401 || status === 403) return 'api_unauthorized';
  if (status === 404) return 'api_not_found';
  if (status === 422) return 'api_validation';
  if (status === 429) return 'api_rate_limited';
  if (status >= 500) return 'api_unavailable';
  return 'api_error';
}

function hintFor(code: ApiErrorCode, ctx: FailureContext, issues: ValidationIssue[], status: number): string | undefined {
  switch (code) {
    case 'api_unauthorized':
      return 'Check VOXFORM_API_KEY: it must be a private key of this account, for this region.';
    case 'api_not_found':
      return ctx.notFoundHint ?? 'Check the id in your manifest or on the command line.';
    case 'api_validation':
      if (issues.some((issue) => issue.loc[0] === 'header' && issue.loc[1] === 'authorization')) {
        return 'Set VOXFORM_API_KEY to your private key.';
      }
      return 'The service rejected the values named above; check them in your manifest.';
    case 'api_rate_limited':
      return rateLimitedHint(true);
    case 'api_unavailable':
      return 'The service is unavailable right now; try again later.';
    case 'api_error':
      // 413: the one refusal of a well-formed request that its size alone explains.
      if (status === 413) return 'What was sent is larger than the service takes: send less (a shorter prompt, message or conversation), then run again.';
      return 'The service refused the request as sent (the sentence above says why): check what the manifests or the command line gave, and report it if they look right.';
    default:
      return undefined;
  }
}

/** `{detail: "…"}`, `{detail: [{loc, msg, type}]}`, `{message: "…"}` or plain text (HTML is dropped). */
export function parseErrorBody(body: string): { detail: string | undefined; issues: ValidationIssue[] } {
  const text = body.trim();
  if (text === '') return { detail: undefined, issues: [] };
  let json: unknown;
  try {
    json = parseOutsideJson(text);
  } catch {
    if (text.startsWith('<')) return { detail: undefined, issues: [] };
    return { detail: text, issues: [] };
  }
  if (typeof json === 'string') return { detail: json, issues: [] };
  if (json === null || typeof json !== 'object') return { detail: text, issues: [] };
  const record = json as Record<string, unknown>;
  const detail = record.detail;
  if (typeof detail === 'string') return { detail, issues: [] };
  if (Array.isArray(detail)) {
    const issues = detail.filter(isIssueLike).map((item) => ({
      loc: Array.isArray(item.loc) ? item.loc.filter((part): part is string | number => typeof part === 'string' || typeof part === 'number') : [],
      msg: typeof item.msg === 'string' ? item.msg : 'is invalid',
      type: typeof item.type === 'string' ? item.type : 'invalid',
    }));
    const joined = issues.map((issue) => (issue.loc.length > 0 ? `${formatDotted(issue.loc)}: ${issue.msg}` : issue.msg)).join('; ');
    return { detail: joined === '' ? undefined : joined, issues };
  }
  if (typeof record.message === 'string') return { detail: record.message, issues: [] };
  if (typeof record.error === 'string') return { detail: record.error, issues: [] };
  return { detail: undefined, issues: [] };
}

function isIssueLike(value: unknown): value is { loc?: unknown[]; msg?: unknown; type?: unknown } {
  return value !== null && typeof value === 'object';
}

/**
 * What the error quotes of an answer, scrubbed as decoded: a service may write the text it echoes
 * with any escape JSON allows (`\u0026` for `&`, as Go does, or every character as `\u…`), which
 * the raw body does not show as any form of the secret; decoded, it is the text itself.
 */
function scrubParsed(parsed: ReturnType<typeof parseErrorBody>, ctx: Pick<FailureContext, 'secret' | 'redact'>): ReturnType<typeof parseErrorBody> {
  const scrubbed = (text: string) => scrubEcho(text, ctx);
  return {
    detail: parsed.detail === undefined ? undefined : scrubbed(parsed.detail),
    issues: parsed.issues.map((issue) => ({ loc: issue.loc.map((part) => (typeof part === 'string' ? scrubbed(part) : part)), msg: scrubbed(issue.msg), type: scrubbed(issue.type) })),
  };
}

/** Replaces every occurrence of the key, also in the escaped forms a service echoes it in (`echoedForms`) and in the text decoded (`redactNeedles`). */
export function scrub(text: string, secret: string): string {
  return secret === '' ? text : redactNeedles(text, echoedForms(secret));
}

/**
 * What the service echoed, with the key and the caller's other secrets scrubbed: before a message
 * shortens it, as a cut through a secret would leave its start, which no later redaction finds.
 */
export function scrubEcho(text: string, ctx: Pick<FailureContext, 'secret' | 'redact'>): string {
  const keyless = scrub(text, ctx.secret);
  return ctx.redact ? ctx.redact(keyless) : keyless;
}

/** The path as a person reads it: `%2B` back to `+`, but the string stays one token. */
export function displayPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** What the service said, as one line of at most 300 characters, control characters escaped for the terminal. */
function clip(text: string): string {
  const oneLine = printable(text.replace(/\s+/g, ' ').trim());
  return shorten(oneLine, 300);
}

/**
 * A time-out as messages name it: `30 s`, `0.2 s`, `1.5 s`; under a second and not in whole tenths,
 * in ms (`1 ms`, `250 ms`), as tenths of a second would round it, down to `0.0 s` for a few ms.
 */
export function formatTimeout(ms: number): string {
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  if (ms < 1000 && ms % 100 !== 0) return `${ms} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Twice the time-out, in the `--timeout` syntax: `60s`, `2m`. */
function suggestLonger(ms: number): string {
  const seconds = Math.max(1, Math.ceil((ms * 2) / 1000));
  return seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`;
}


/** A short reason for a connection failure: the system or undici code when there is one. */
export function transportReason(error: unknown): string {
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was dropped';
  if (code === 'ENOTFOUND') return 'host not found';
  if (code !== undefined) return code;
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of an error or of the first error in its `cause` chain that has one. */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    // AggregateError (happy-eyeballs connect) carries the real errors in `errors`.
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      current = errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Thrown when our own code built a body the schema rejects: a bug, caught before the service sees it. */
export function requestInvalid(operation: string, issues: Array<{ path: Array<string | number>; message: string }>): VoxformError {
  const listed = someOf(
    issues.map((issue) => `${issue.path.length > 0 ? formatDotted(issue.path) : '(body)'} ${issue.message}`),
    5,
    '; ',
  );
  return new VoxformError('api_request_invalid', `voxform built an invalid request for ${operation}: ${listed}.`, {
    hint: 'The request was not sent. If the values come from your manifest, run `voxform validate`; otherwise this is a bug in voxform: please report it.',
    details: { operation, issues: issues.map((issue) => ({ path: issue.path, message: issue.message })) },
  });
}
