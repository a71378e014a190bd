/**
 * node-postgres keeps the password it logs in with on the client and on its connection parameters,
 * as a property that is merely not enumerable: `util.inspect(client, { showHidden: true })`, a
 * `console.dir` with it, or a debug log of the backend would print it. It accepts a function in its
 * place and calls it when the server asks for the password, so every client is made and left holding
 * one, whose closure alone keeps the value. The driver stores what the function returned while it
 * logs in, and what it read from PGPASSWORD when the client was made, or from a .pgpass file while
 * logging in: `hideDatabasePassword` moves the value back into a closure each time.
 */
import pg from 'pg';

interface PasswordHolder {
  password?: unknown;
}

function holdersOf(client: pg.Client): PasswordHolder[] {
  return [client as PasswordHolder, (client as unknown as { connectionParameters: PasswordHolder }).connectionParameters];
}

/** Puts the password the client holds, if it holds one as text, into a function's closure. */
function hideDatabasePassword(client: pg.Client): void {
  for (const holder of holdersOf(client)) {
    const value = holder.password;
    if (typeof value !== 'string') continue;
    Object.defineProperty(holder, 'password', { configurable: true, enumerable: false, writable: true, value: () => value });
  }
}

/**
 * A client for `config` that holds no password as text. `environmentPassword`, for a URL without a
 * password: the PGPASSWORD of the environment voxform was given, in place of the one the driver
 * reads from the process's; null for none, so that the driver looks in .pgpass as it would.
 */
export function clientHidingPassword(config: pg.ClientConfig, environmentPassword: string | null | undefined): pg.Client {
  const client = new pg.Client(config);
  if (environmentPassword !== undefined) for (const holder of holdersOf(client)) holder.password = environmentPassword;
  hideDatabasePassword(client);
  return client;
}

/** Connects the client; once it has logged in, or failed to, it holds no password as text again. */
export async function connectHidingPassword(client: pg.Client): Promise<void> {
  try {
    await client.connect();
  } finally {
    hideDatabasePassword(client);
  }
}
