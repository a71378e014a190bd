// The wire's own ratio on this machine: the agents' GETs sent by a bare undici pool (the socket
// library voxform uses, nothing of voxform around it) from the benchmark's process, at the same
// parallelism, timed from the emulator's request log like the commands. A command's network
// phase cannot be expected below this: what is left above 1 × floor here is the emulator's
// timer, loopback and the machine's scheduling, not the client.
import { Pool } from 'undici';

/** Sends `count` reads of agents (`agentId(i)`) `parallelism` at a time; resolves with the network phase in ms and the request count. */
export async function wireReference(emulator, { count, parallelism, agentId, apiKey }) {
  const url = new URL(emulator.url);
  const prefix = url.pathname.replace(/\/$/, '');
  const pool = new Pool(url.origin, { connections: parallelism });
  const before = await emulator.lastRequestSeq();
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const answer = await pool.request({ method: 'GET', path: `${prefix}/agents/${agentId(next++)}`, headers: { authorization: apiKey } });
      await answer.body.text();
      if (answer.statusCode !== 200) throw new Error(`the wire reference's read answered ${answer.statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: parallelism }, sender));
  } finally {
    await pool.close();
  }
  const entries = await emulator.requestsSince(before);
  const firstArrival = Math.min(...entries.map((entry) => Date.parse(entry.at)));
  const lastAnswer = Math.max(...entries.map((entry) => Date.parse(entry.at) + entry.duration_ms));
  return { networkMs: lastAnswer - firstArrival, requests: entries.length };
}
