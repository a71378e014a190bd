/**
 * An agent whose knowledge files the service sent as something else than a list of ids (an object,
 * a string, a list holding a number or null) is planned as holding none of the manifest's files, so
 * apply sets them; plan and drift never stop with "object is not iterable" as an internal error.
 */
import { expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { useRewritingService } from '../helpers/rewriting-proxy.js';

const service = useRewritingService();

interface PlanJson {
  resource_changes: Array<{ address: string; field_changes: Array<{ path: string; before: unknown }> }>;
}

it.each([
  ['an object', { a: 1 }, runCli],
  ['a string', 'kf_1', runCliInProcess],
  ['a list holding a number and null', [5, null], runCliInProcess],
])('files that are %s: plan sets the manifest\'s files, and drift reports it', async (_, files, cli) => {
  const { dir, env, agentId } = await service.example();
  // The manifest agent with knowledge: its live files, as the service sends them.
  service.proxy.rewrite = ({ method, path: target }, text) => {
    if (method !== 'GET' || target !== `/agents/${agentId}`) return text;
    const agent = JSON.parse(text) as { config: Record<string, unknown> };
    agent.config.knowledge_base = { files };
    return JSON.stringify(agent);
  };
  const plan = await cli(['plan', '--format', 'json'], { cwd: dir, env });
  expect(plan.code, plan.stderr).toBe(0);
  const change = (JSON.parse(plan.stdout) as PlanJson).resource_changes.find((c) => c.address === 'agent.front-desk');
  expect(change?.field_changes.find((field) => field.path === 'knowledge')).toMatchObject({ before: [] });
  const drift = await runCliInProcess(['drift'], { cwd: dir, env });
  expect(drift.code, drift.stderr).toBe(2);
  expect(drift.stdout).toContain('~ knowledge: [] → ');
});
