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
import { chosenState, DEFAULT_STATE_FILE } from './choice.js';

export interface OpenStateOptions {
  /** `--state`, when given. */
  state?: string | undefined;
  /** Where `VOXFORM_STATE` and `PGPASSWORD` are read (the CLI gives process.env). */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Receives every secret of the choice (the database password) for redaction. */
  registerSecret: (value: string) => void;
}

/**
 * A URL's scheme as it starts a state spec (`pg://`, `postgres:/`): two letters or more, so that
 * `C:/state.json` stays a path; or a database scheme that lost its colon (`postgres//…`) or both
 * its slashes (`postgres:USER:PASSWORD@…`), the third group saying which.
 */
const URL_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):\/|^(postgres(?:ql)?|pg)(\/\/|:)/i;

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
      // What was typed is what the pattern matched: `postgres:/`, `postgres:` or `postgres//`.
      const missing = found?.[3] === '//' ? 'a colon' : 'two slashes';
      throw new VoxformError('state_url_invalid', `The state given with ${given} starts with ${found?.[0]}, which needs ${missing}: ${scheme}://USER:PASSWORD@HOST:PORT/DATABASE.`, {
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
