// What this machine and the emulator allow at all: the agents read by a client that does nothing
// else (an undici pool, the answer's body read and dropped), at the command's parallelism, timed
// from the emulator's request log as the commands are. voxform's network phase can come near this,
// never under it: the difference is what voxform itself costs on the wire's way.
import { Pool } from 'undici';

export async function bareReads(emulator, { apiKey, agentIds, parallelism }) {
  const before = await emulator.lastRequestSeq();
  const pool = new Pool(emulator.url, { connections: parallelism });
  try {
    let next = 0;
    const worker = async () => {
      while (next < agentIds.length) {
        const id = agentIds[next++];
        const answer = await pool.request({ path: `/agents/${encodeURIComponent(id)}`, method: 'GET', headers: { authorization: apiKey } });
        await answer.body.text();
        if (answer.statusCode !== 200) throw new Error(`bare reads: GET /agents/${id} answered ${answer.statusCode}`);
      }
    };
    await Promise.all(Array.from({ length: parallelism }, worker));
  } finally {
    await pool.close();
  }
  const entries = await emulator.requestsSince(before);
  const firstArrival = Math.min(...entries.map((entry) => Date.parse(entry.at)));
  const lastAnswer = Math.max(...entries.map((entry) => Date.parse(entry.at) + entry.duration_ms));
  return { requests: entries.length, networkMs: lastAnswer - firstArrival };
}
