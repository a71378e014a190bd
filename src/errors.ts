import type { ErrorCode } from './error-codes.js';

/** Where in a manifest file a problem is (1-based line and column). */
export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

/** A location as every output writes it: `file:line:col`. */
export function formatSourceLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.col}`;
}

/**
 * An error a user can cause and fix: a stable snake_case `code` (`manifest_invalid`,
 * `reference_missing`, `api_unauthorized`, `plan_stale`, …) and one sentence saying what went wrong
 * and how to fix it. The CLI prints these without a stack trace and exits 1; anything else that
 * escapes a command is a bug.
 */
export class VoxformError extends Error {
  /** One of the codes in src/error-codes.ts (docs/errors.md explains each). */
  readonly code: ErrorCode;
  readonly location: SourceLocation | undefined;
  /** A further sentence on how to fix it, printed on its own line. */
  readonly hint: string | undefined;
  /** Structured detail for `--format json` (never holds a secret). */
  readonly details: unknown;

  constructor(
    code: ErrorCode,
    message: string,
    // `hint` is required (if undefined): every error is written with its way out, or says it has none.
    options: { location?: SourceLocation; hint: string | undefined; details?: unknown; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VoxformError';
    this.code = code;
    this.location = options.location;
    this.hint = options.hint;
    this.details = options.details;
  }

  /**
   * The same failure with another hint, where the caller knows better than the maker what to do (where
   * a value came from, the options the command has); a subclass keeps its own fields (ApiError's request).
   */
  withHint(hint: string): VoxformError {
    return new VoxformError(this.code, this.message, { hint, location: this.location, details: this.details, cause: this });
  }
}

export function isVoxformError(error: unknown): error is VoxformError {
  return error instanceof VoxformError;
}

/**
 * The advice for a process out of open files (EMFILE), a connection's (`api_too_many_open_files`) or
 * a file's (`too_many_open_files`), naming --parallelism where the command has it (`parallelism`):
 * the client's errors name it, and the CLI says them without it for a command that would refuse it.
 */
export function openFileLimitHint(parallelism: boolean): string {
  return `Raise the limit of open files (\`ulimit -n\`, e.g. \`ulimit -n 4096\`) and run the command again${parallelism ? ', or lower --parallelism (each request in flight holds a connection, an open file)' : ''}.`;
}

/** The advice for a rate limit that outlasted the retries; `parallelism` as `openFileLimitHint`'s. */
export function rateLimitedHint(parallelism: boolean): string {
  return `The service is limiting the request rate; ${parallelism ? 'lower --parallelism or ' : ''}try again in a minute.`;
}

/**
 * How every text output leads a problem: its level, then in brackets the code to look up
 * (`error[type_mismatch]`, `warning[secret_in_manifest]`, `mandatory[pii-phone-number]`), so thrown
 * errors, manifest diagnostics and policy findings speak one vocabulary.
 */
export function codeLead(level: string, code: string): string {
  return `${level}[${code}]`;
}
