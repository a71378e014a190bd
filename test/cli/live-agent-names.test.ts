/**
 * An agent whose name the service sent as something else than text (an object, a number) is an
 * agent without a name: report and get agents list it by its id, never stopping with "text.replace
 * is not a function" as an internal error, get phones shows it as `(no name)`, not as gone, and plan
 * sets the manifest's name.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { useRewritingService } from '../helpers/rewriting-proxy.js';

const service = useRewritingService();

it.each([
  ['an object', { x: 1 }],
  ['a number', 5],
])('a name that is %s: report, get agents and plan read the agent', async (_, name) => {
  const { dir, env, agentId } = await service.example();
  service.proxy.rewrite = ({ method, path }, text) => (method === 'GET' && path === `/agents/${agentId}` ? JSON.stringify({ ...(JSON.parse(text) as object), name }) : text);
  // Run where no manifest names the agent, so the report asks the service for its name.
  const report = await runCli(['report', '--format', 'json'], { cwd: path.join(dir, 'example'), env });
  expect(report.code, report.stderr).toBe(0);
  const listed = await runCliInProcess(['get', 'agents', '--format', 'json'], { cwd: path.join(dir, 'example'), env });
  expect(listed.code, listed.stderr).toBe(0);
  expect((JSON.parse(listed.stdout) as { agents: Array<{ id: string; name: unknown; exists: boolean }> }).agents.find((agent) => agent.id === agentId)).toMatchObject({ name: null, exists: true });
  // get phones tells the nameless agent from a gone one, as get agents does with `exists`: the
  // service's first number is made to answer with the agent, and its second with one that is gone.
  const rewriteAgent = service.proxy.rewrite;
  service.proxy.rewrite = (request, text) => {
    if (request.method !== 'GET' || request.path !== '/phones') return rewriteAgent(request, text);
    const [first, second, ...rest] = JSON.parse(text) as object[];
    return JSON.stringify([{ ...first, agent_id: agentId }, { ...second, agent_id: 'agent-gone-0000' }, ...rest]);
  };
  const phones = await runCliInProcess(['get', 'phones', '--format', 'json'], { cwd: path.join(dir, 'example'), env });
  const [first, second] = (JSON.parse(phones.stdout) as { phones: Array<{ number: string }> }).phones;
  expect([first, second]).toMatchObject([
    { agent_id: agentId, agent_name: null, agent_exists: true },
    { agent_id: 'agent-gone-0000', agent_name: null, agent_exists: false },
  ]);
  const table = await runCliInProcess(['get', 'phones'], { cwd: path.join(dir, 'example'), env });
  expect(table.stdout).toContain(`${agentId} (no name)`);
  expect(table.stdout).toContain('agent-gone-0000 (not found)');
  const plan = await runCliInProcess(['plan'], { cwd: dir, env });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('~ name: ');
});
