/**
 * What a failed database step tells the operator: the hint that fits its cause where the server's
 * error code (or the driver's words) says it — a refused password, a connection that timed out, a
 * database that does not exist, a table the role may not use — else the generic one.
 */
import { VoxformError } from '../../errors.js';
import { errorMessage } from '../../secrets/error-message.js';
import { INSUFFICIENT_PRIVILEGE, INVALID_PASSWORD, sqlState, UNKNOWN_DATABASE } from './schema.js';

/** Where the password of a login came from, as far as voxform can tell (never its value). */
type PasswordSource = 'url' | 'PGPASSWORD' | 'pgpass';

export interface FailureContext {
  /** The database as it may be shown (no password). */
  display: string;
  passwordSource: PasswordSource;
  /** How long a connection is waited for; undefined: without a limit. */
  connectTimeoutSeconds: number | undefined;
}

const GENERIC_HINT = "Check the URL, the network, the role's privileges and the TLS options (docs/state.md).";

/** What node-postgres's connection timer ends the socket with. */
const CONNECT_TIMEOUT_MESSAGE = 'timeout expired';

const PASSWORD_SOURCE_WORDS: Record<PasswordSource, string> = {
  url: 'the URL (its password, or password=)',
  PGPASSWORD: 'PGPASSWORD (the URL gives none)',
  pgpass: '~/.pgpass or the file PGPASSFILE names (neither the URL nor PGPASSWORD gives one)',
};

/** A driver or server error of a database step, as a `state_backend_failed` naming the database and fitting its cause. */
export function backendFailure(error: unknown, context: FailureContext): VoxformError {
  const code = sqlState(error);
  const message = errorMessage(error);
  const database = `The state database ${context.display}`;
  const failed = (hint: string) => new VoxformError('state_backend_failed', `${database} failed: ${message}.`, { hint, cause: error });
  if (code === INVALID_PASSWORD) return failed(`The server refused the password. voxform takes it from the URL (postgres://USER:PASSWORD@HOST/DATABASE, or password=), else PGPASSWORD, else ~/.pgpass (or the file PGPASSFILE names); this run's came from ${PASSWORD_SOURCE_WORDS[context.passwordSource]}. Correct it there, or check the user name (docs/state.md).`);
  if (message === CONNECT_TIMEOUT_MESSAGE) {
    const waited = context.connectTimeoutSeconds === undefined ? 'without an answer' : `${context.connectTimeoutSeconds} s without an answer`;
    return new VoxformError('state_backend_failed', `${database} did not answer: this run waited ${waited} to connect.`, {
      hint: 'Check the host and port, and that the network lets this machine reach the server (a firewall that drops packets makes it silent). connect_timeout=SECONDS in the URL sets how long a connection is waited for (docs/state.md).',
      cause: error,
    });
  }
  if (code === UNKNOWN_DATABASE) return failed('Check the database name in the URL (the path after the host), or create the database on the server as a role that may (CREATE DATABASE).');
  const table = code === INSUFFICIENT_PRIVILEGE ? /permission denied for (?:table|relation|sequence) (\S+)/.exec(message)?.[1] : undefined;
  if (table !== undefined) return failed(`This role may not use voxform's table ${table}: as the tables' owner, GRANT SELECT, INSERT, UPDATE on voxform_workspaces, voxform_locks, voxform_history and voxform_test_runs, and SELECT on voxform_schema_version, to it; \`voxform state rm\` also needs DELETE on voxform_workspaces (docs/state.md#permissions).`);
  return failed(GENERIC_HINT);
}
