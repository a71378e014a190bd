/**
 * The names of the agents that call records and phones name, as `get`, `report` and `logs` show
 * them: an id the service does not know, refuses, or that no request can carry (an empty id a call
 * record holds) names no agent, and is left out instead of stopping the command.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentNamesOnService } from '../../src/api/agent-if-exists.js';
import { emulatorWithClient } from './helpers.js';

let service: Awaited<ReturnType<typeof emulatorWithClient>>;
beforeAll(async () => {
  service = await emulatorWithClient();
});
afterAll(async () => {
  await service.close();
});

it('leaves out an id the service does not know and one no request can carry, and names the others', async () => {
  const [agent] = service.emulator.control.state().agents;
  const names = await agentNamesOnService(service.client, [agent!.id, 'no-such-agent', '', ' ', '.', '..', agent!.id]);
  expect([...names]).toEqual([[agent!.id, agent!.name]]);
});

it('names an agent the service sent without a text name as there, nameless (null)', async () => {
  const names = await agentNamesOnService({ getAgent: async (id) => ({ id, name: id === 'a' ? ({ x: 1 } as unknown as string) : (null as unknown as string), config: {} }) }, ['a', 'b']);
  expect([...names]).toEqual([['a', null], ['b', null]]);
});
