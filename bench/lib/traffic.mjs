// Seeds synthetic calls into a running emulator (docs/traffic.md): one POST /_emulator/traffic.
// Other benchmarks (the call report's) reuse it to fill an emulator with 100,000 call records.
import { request } from 'undici';

/**
 * Adds `total` calls (rounded up to a multiple of the account's agents) spread over the agents of
 * the emulator at `url`; resolves with the summary the emulator answers (`calls`, `agents`, …).
 * `until` fixes the window's end (Unix seconds) so runs are comparable; default now.
 */
export async function seedTraffic(url, { total = 100_000, agents = 9, profile = 'steady', seed = 1, until } = {}) {
  const body = { profile, seed, calls: Math.ceil(total / agents), ...(until === undefined ? {} : { until }) };
  const response = await request(`${url}/_emulator/traffic`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`POST /_emulator/traffic: ${response.statusCode} ${JSON.stringify(answer)}`);
  return answer;
}
