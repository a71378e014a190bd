/**
 * The PostgreSQL connection string as the operator gave it (`--state` or `VOXFORM_STATE`): its
 * password is a secret (registered for redaction, never shown), and how it may be shown.
 */
import { VoxformError } from '../../errors.js';

export interface StateUrl {
  /** Passed to node-postgres as is (TLS options such as `sslmode` and `sslrootcert` included). */
  connectionString: string;
  /** The URL without its password (`postgres://voxform@db.internal:5432/ops?sslmode=require`). */
  display: string;
  /** Values to redact from every output: the password, as written and decoded. */
  secrets: string[];
  /** Whether the URL gives a password (else PGPASSWORD of the environment given, then the driver's .pgpass file). */
  hasPassword: boolean;
  /** The URL to print in a command line to paste: its password replaced by `PASSWORD_PLACEHOLDER`. */
  pastable: string;
  /** Its `connect_timeout`, in seconds (0: wait without a limit); undefined when it sets none. */
  connectTimeoutSeconds?: number;
}

/** What a printed command line shows in place of the database password, for the operator to fill in. */
export const PASSWORD_PLACEHOLDER = 'PASSWORD';

/** Whether a printed command line carries a database URL with `PASSWORD_PLACEHOLDER` for its password. */
export function hasPasswordPlaceholder(text: string): boolean {
  return text.includes(`:${PASSWORD_PLACEHOLDER}@`) || text.includes(`password=${PASSWORD_PLACEHOLDER}`);
}

/** Whether `spec` names a PostgreSQL database rather than a state file path. */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec.trim());
}

/** Query parameters that hold a secret rather than a setting. */
const SECRET_PARAMS = ['password', 'sslpassword'];

/**
 * The TLS options of node-postgres's connection strings, with the values each takes (undefined:
 * any value, a file path or a password). Another `ssl…` option, or another value, would be ignored
 * by the driver, so the connection could go without the TLS the operator meant: refused instead.
 */
const TLS_OPTIONS: Record<string, readonly string[] | undefined> = {
  ssl: ['true', 'false', '1', '0'],
  sslmode: ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'],
  sslcert: undefined,
  sslkey: undefined,
  sslrootcert: undefined,
  sslpassword: undefined,
  sslnegotiation: ['direct', 'postgres'],
  uselibpqcompat: ['true', 'false'],
};

/** A query parameter whose name says it holds a password, in any case (`passwd`, `pwd`, `Password`). */
const PASSWORD_LIKE = /pass|pwd/i;

/**
 * `source` names where the URL was given, for the messages (`--to` for `voxform state migrate`).
 * `registerSecret` hears every secret found, before any refusal is thrown: a refusal may quote the URL.
 */
export function parseStateUrl(spec: string, source = '--state or VOXFORM_STATE', registerSecret: (value: string) => void = () => undefined): StateUrl {
  let url: URL;
  try {
    url = new URL(spec.trim());
  } catch {
    // The message must not repeat the text: it may hold the password.
    throw new VoxformError('state_url_invalid', `The PostgreSQL URL given with ${source} cannot be parsed.`, {
      hint: 'Give postgres://USER:PASSWORD@HOST:PORT/DATABASE (percent-encode special characters in the password), or a file path.',
    });
  }
  const secrets: string[] = [];
  const remember = (value: string) => {
    if (value === '') return;
    const forms = [value];
    try {
      forms.push(decodeURIComponent(value));
    } catch {
      // Not percent-encoded: the value as written is the secret.
    }
    for (const form of forms) {
      secrets.push(form);
      registerSecret(form);
    }
  };
  remember(url.password);
  const secretNames = [...new Set([...url.searchParams.keys()].filter((name) => SECRET_PARAMS.includes(name) || PASSWORD_LIKE.test(name)))];
  for (const name of secretNames) for (const value of url.searchParams.getAll(name)) remember(value);
  // An `@` after the host: a `?`, `#` or `/` in the password was not percent-encoded, so the
  // password's tail was read as the path, query or fragment. The URL is not quoted: it holds it.
  if (/@|%40/i.test(`${url.pathname}${url.search}${url.hash}`)) {
    throw new VoxformError('state_url_invalid', `The PostgreSQL URL given with ${source} has an @ after its host: a character of the password (such as ?, #, / or @) is probably not percent-encoded.`, {
      hint: 'Percent-encode special characters in the password (? is %3F, # is %23, / is %2F, @ is %40): postgres://USER:PASSWORD@HOST:PORT/DATABASE.',
    });
  }
  const shown = new URL(url.href);
  shown.password = '';
  for (const name of secretNames) shown.searchParams.delete(name);
  for (const name of secretNames) {
    if (SECRET_PARAMS.includes(name)) continue;
    throw urlInvalid(shown.href, source, `has the parameter "${name}", which the driver does not know (its value is kept secret)`, 'Give the password in the URL (postgres://USER:PASSWORD@HOST/DATABASE) or as password=, or set PGPASSWORD (docs/state.md).');
  }
  if (!url.hostname && !url.searchParams.get('host')) throw urlInvalid(shown.href, source, 'names no host', 'Give postgres://USER:PASSWORD@HOST:PORT/DATABASE.');
  checkTlsOptions(url, shown.href, source);
  const connectTimeoutSeconds = connectTimeoutOf(url, shown.href, source);
  const pastable = new URL(url.href);
  if (pastable.password !== '') pastable.password = PASSWORD_PLACEHOLDER;
  for (const name of secretNames) if (pastable.searchParams.has(name)) pastable.searchParams.set(name, PASSWORD_PLACEHOLDER);
  return { connectionString: url.href, display: shown.href, secrets: [...new Set(secrets)], hasPassword: secrets.length > 0, pastable: pastable.href, ...(connectTimeoutSeconds === undefined ? {} : { connectTimeoutSeconds }) };
}

/** The refusal of a URL that parses: `shown` is it without its secrets, `problem` completes "The PostgreSQL URL … given with SOURCE". */
function urlInvalid(shown: string, source: string, problem: string, hint: string): VoxformError {
  return new VoxformError('state_url_invalid', `The PostgreSQL URL ${shown} given with ${source} ${problem}.`, { hint });
}

/** `connect_timeout=SECONDS`: whole seconds in decimal digits, as libpq takes it (0: without a limit). */
function connectTimeoutOf(url: URL, shown: string, source: string): number | undefined {
  const value = url.searchParams.get('connect_timeout');
  if (value === null) return undefined;
  if (!/^\d{1,6}$/.test(value)) {
    throw urlInvalid(shown, source, `sets connect_timeout to "${value}", which is not a whole number of seconds`, 'Write connect_timeout=SECONDS in decimal digits (0: wait without a limit), or leave it out (15 s).');
  }
  return Number(value);
}

function checkTlsOptions(url: URL, shown: string, source: string): void {
  for (const [name, value] of url.searchParams) {
    const lower = name.toLowerCase();
    if (!lower.startsWith('ssl') && lower !== 'uselibpqcompat') continue;
    if (!Object.hasOwn(TLS_OPTIONS, name)) throw urlInvalid(shown, source, `has the TLS option "${name}", which the driver does not know`, `Use ${Object.keys(TLS_OPTIONS).join(', ')} (docs/state.md).`);
    const allowed = TLS_OPTIONS[name];
    if (allowed && !allowed.includes(value)) {
      const hint = name === 'sslmode' ? 'For a database across a network, sslmode=verify-full checks the server certificate and its name (docs/state.md).' : `Write ${name}=${allowed[0]} or leave it out.`;
      throw urlInvalid(shown, source, `sets ${name} to "${value}", which is none of ${allowed.join(', ')}`, hint);
    }
  }
}

/**
 * A state spec as a command line voxform prints may carry it: a database URL's password replaced by
 * `PASSWORD` for the operator to fill in (printed, the password would be redacted, and the line
 * would fail when pasted).
 */
export function pastableStateSpec(spec: string): string {
  if (!isPostgresUrl(spec)) return spec;
  try {
    return parseStateUrl(spec).pastable;
  } catch {
    // Nothing of it can be told from a password (a `#` or `@` of one left unencoded is the usual
    // reason it cannot be parsed), and a command may refuse its own arguments before the URL is read.
    return `postgres://USER:${PASSWORD_PLACEHOLDER}@HOST/DATABASE`;
  }
}
