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

/** `source` names where the URL was given, for the messages (`--to` for `voxform state migrate`). */
export function parseStateUrl(spec: string, source = '--state or VOXFORM_STATE'): StateUrl {
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
    secrets.push(value);
    try {
      secrets.push(decodeURIComponent(value));
    } catch {
      // Not percent-encoded: the value as written is the secret.
    }
  };
  remember(url.password);
  for (const name of SECRET_PARAMS) for (const value of url.searchParams.getAll(name)) remember(value);
  const shown = new URL(url.href);
  shown.password = '';
  for (const name of SECRET_PARAMS) shown.searchParams.delete(name);
  if (!url.hostname && !url.searchParams.get('host')) {
    throw new VoxformError('state_url_invalid', `The PostgreSQL URL ${shown.href} given with ${source} names no host.`, {
      hint: 'Give postgres://USER:PASSWORD@HOST:PORT/DATABASE.',
    });
  }
  checkTlsOptions(url, shown.href, source);
  return { connectionString: url.href, display: shown.href, secrets: [...new Set(secrets)] };
}

function checkTlsOptions(url: URL, shown: string, source: string): void {
  for (const [name, value] of url.searchParams) {
    const lower = name.toLowerCase();
    if (!lower.startsWith('ssl') && lower !== 'uselibpqcompat') continue;
    if (!Object.hasOwn(TLS_OPTIONS, name)) {
      throw new VoxformError('state_url_invalid', `The PostgreSQL URL ${shown} given with ${source} has the TLS option "${name}", which the driver does not know.`, {
        hint: `Use ${Object.keys(TLS_OPTIONS).join(', ')} (docs/state.md).`,
      });
    }
    const allowed = TLS_OPTIONS[name];
    if (allowed && !allowed.includes(value)) {
      throw new VoxformError('state_url_invalid', `The PostgreSQL URL ${shown} given with ${source} sets ${name} to "${value}", which is none of ${allowed.join(', ')}.`, {
        hint: name === 'sslmode' ? 'For a database across a network, sslmode=verify-full checks the server certificate and its name (docs/state.md).' : `Write ${name}=${allowed[0]} or leave it out.`,
      });
    }
  }
}
