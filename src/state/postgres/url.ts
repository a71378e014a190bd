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

export function parseStateUrl(spec: string): StateUrl {
  let url: URL;
  try {
    url = new URL(spec.trim());
  } catch {
    // The message must not repeat the text: it may hold the password.
    throw new VoxformError('state_url_invalid', 'The PostgreSQL URL given with --state or VOXFORM_STATE cannot be parsed.', {
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
    throw new VoxformError('state_url_invalid', `The PostgreSQL URL ${shown.href} names no host.`, {
      hint: 'Give postgres://USER:PASSWORD@HOST:PORT/DATABASE.',
    });
  }
  return { connectionString: url.href, display: shown.href, secrets: [...new Set(secrets)] };
}
