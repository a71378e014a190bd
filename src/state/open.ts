/**
 * Opens the state backend the operator chose (never a manifest): `--state URL|PATH`, else
 * `VOXFORM_STATE`, else the default file. A `postgres://` URL's password is registered as a secret first.
 */
import path from 'node:path';
import type { StateBackend } from './backend.js';
import { FileStateBackend } from './file-backend.js';
import { isPostgresUrl, parseStateUrl } from './postgres/url.js';
import { VoxformError } from '../errors.js';
import { requireOptions } from '../util/required-options.js';

export const DEFAULT_STATE_FILE = '.voxform/state.json';

export interface OpenStateOptions {
  /** `--state`, when given. */
  state?: string | undefined;
  /** Where `VOXFORM_STATE` and `PGPASSWORD` are read (the CLI gives process.env). */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Receives every secret of the choice (the database password) for redaction. */
  registerSecret: (value: string) => void;
}

/** The operator's choice as given (flag, then environment, then the default). */
export function stateSpec(options: Pick<OpenStateOptions, 'state' | 'env'>): string {
  return chosenState(options)?.spec ?? DEFAULT_STATE_FILE;
}

/** Where the operator chose the state: what messages about the choice name. */
export type StateSource = '--state' | 'VOXFORM_STATE';

/**
 * The operator's choice (flag, then environment) and which of the two made it; undefined when they
 * made none. A choice made empty is refused, never taken for none: `VOXFORM_STATE: ${{
 * secrets.VOXFORM_STATE }}` of a job the secret does not reach (a fork's pull request) would
 * otherwise run on a new state file, without the team's lock or history.
 */
export function chosenState(options: Pick<OpenStateOptions, 'state' | 'env'>): { spec: string; source: StateSource } | undefined {
  if (options.state !== undefined) return nonEmptyStateSpec(options.state, '--state');
  const fromEnvironment = options.env.VOXFORM_STATE;
  return fromEnvironment === undefined ? undefined : nonEmptyStateSpec(fromEnvironment, 'VOXFORM_STATE');
}

/** `spec` trimmed, as the choice of `source`; an empty one is refused (`state_location_empty`), never taken for the default. */
export function nonEmptyStateSpec(spec: string, source: StateSource): { spec: string; source: StateSource } {
  const trimmed = spec.trim();
  if (trimmed !== '') return { spec: trimmed, source };
  const what = source === '--state' ? '--state is empty' : 'VOXFORM_STATE is set but empty';
  const unset = source === '--state' ? 'leave --state out' : 'unset VOXFORM_STATE';
  throw new VoxformError('state_location_empty', `${what}: it names no state, and voxform does not take it for the default file ${DEFAULT_STATE_FILE}.`, {
    hint: `Give a postgres:// URL or a file path; or, to use ${DEFAULT_STATE_FILE}, ${unset}. In CI, check that the secret it is set from reaches this job (a fork's pull request gets none).`,
  });
}

/**
 * A URL's scheme as it starts a state spec (`pg://`, `postgres:/`): two letters or more, so that
 * `C:/state.json` stays a path; or a database scheme that lost its colon (`postgres//…`).
 */
const URL_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):\/|^(postgres(?:ql)?|pg)\/\//i;

/** The file a state spec names, absolute; undefined for a URL (a database's, or one openStateSpec refuses). */
export function stateFileOf(spec: string, cwd: string): string | undefined {
  return isPostgresUrl(spec) || URL_SCHEME.test(spec.trim()) ? undefined : path.resolve(cwd, spec);
}

export async function openStateBackend(options: OpenStateOptions): Promise<StateBackend> {
  requireOptions('openStateBackend', options, { env: 'object', cwd: 'text', registerSecret: 'function' });
  const chosen = chosenState(options);
  // Messages about the choice name the one that made it, not both.
  return openStateSpec(chosen?.spec ?? DEFAULT_STATE_FILE, { ...options, source: chosen?.source });
}

/** Opens `spec` (a URL or a path relative to `cwd`); `voxform state migrate --to` opens its target through here. */
export async function openStateSpec(spec: string, options: Pick<OpenStateOptions, 'env' | 'cwd' | 'registerSecret'> & { source?: string | undefined }): Promise<StateBackend> {
  if (isPostgresUrl(spec)) {
    let url: ReturnType<typeof parseStateUrl>;
    try {
      url = parseStateUrl(spec, options.source, options.registerSecret);
    } catch (error) {
      // A URL too broken to parse may still hold its password: the whole text is a secret then.
      options.registerSecret(spec);
      throw error;
    }
    // A password left out of the URL is taken from PGPASSWORD, as the driver does (docs/state.md),
    // of the environment given: a library caller's, not the process's.
    const environmentPassword = options.env.PGPASSWORD || undefined;
    if (environmentPassword) options.registerSecret(environmentPassword);
    // Loaded only when asked for: a file-backed run never loads the database driver.
    const { PostgresStateBackend } = await import('./postgres/backend.js');
    return new PostgresStateBackend(url, environmentPassword, options.source);
  }
  const found = URL_SCHEME.exec(spec.trim());
  const scheme = found?.[1] ?? found?.[2];
  if (scheme !== undefined) {
    // A misspelt scheme (`postgress://`, `pg://`, `postgres:/`) is no file name: taken for one, the
    // password would be a folder name, printed and written to disk, and the team's lock skipped.
    options.registerSecret(spec);
    const given = options.source ?? '--state or VOXFORM_STATE';
    // The scheme is PostgreSQL's, mistyped after it: say what is missing, not that the scheme is wrong.
    if (/^postgres(ql)?$/i.test(scheme)) {
      const [typed, missing] = found?.[1] !== undefined ? [`${scheme}:/`, 'two slashes'] : [`${scheme}//`, 'a colon'];
      throw new VoxformError('state_url_invalid', `The state given with ${given} starts with ${typed}, which needs ${missing}: ${scheme}://USER:PASSWORD@HOST:PORT/DATABASE.`, {
        hint: `Write ${scheme}:// at the start of the URL, or give a file path.`,
      });
    }
    throw new VoxformError('state_url_invalid', `The state given with ${given} is a URL with the scheme "${scheme}": voxform keeps its state in a file or in PostgreSQL (postgres:// or postgresql://).`, {
      hint: 'Spell the scheme postgres:// (or postgresql://), or give a file path.',
    });
  }
  const file = path.resolve(options.cwd, spec);
  return new FileStateBackend(file, path.relative(options.cwd, file) || file, options.source);
}
