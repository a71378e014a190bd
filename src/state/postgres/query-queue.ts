/**
 * One query at a time on a connection. Operations of one backend share its connections (a plan
 * beside an apply, a run's history written over its lock's connection), so their queries can be
 * asked for together; node-postgres queues them itself, but deprecates that (a warning printed on
 * the run's stderr, and gone in pg 9). Each query here waits for the one asked for before it.
 */
import type pg from 'pg';

/** Makes `client.query` wait for the client's previous query to be answered, failed or not. */
export function queueQueries(client: pg.Client): void {
  const send = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let previous: Promise<unknown> = Promise.resolve();
  const queued = (...args: unknown[]): Promise<unknown> => {
    const answered = previous.then(() => send(...args));
    previous = answered.catch(() => undefined);
    return answered;
  };
  client.query = queued as typeof client.query;
}
