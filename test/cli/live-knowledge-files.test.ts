/**
 * An agent whose knowledge files the service sent as something else than a list of ids (an object,
 * a string, a list holding a number or null) is planned as holding none of the manifest's files, so
 * apply sets them; plan and drift never stop with "object is not iterable" as an internal error.
 */
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { SECRETS, useEmulator } from '../helpers/project.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewriting-proxy.js';

const shared = useEmulator({ quiet: true, webhooks: 'loopback' });
const tempDir = useTempDirs();
let proxy: RewritingProxy;
beforeAll(async () => {
  proxy = await startRewritingProxy(shared.emulator.url);
});
afterAll(async () => {
  await proxy.close();
});

interface PlanJson {
  resource_changes: Array<{ address: string; field_changes: Array<{ path: string; before: unknown }> }>;
}

it.each([
  ['an object', { a: 1 }, runCli],
  ['a string', 'kf_1', runCliInProcess],
  ['a list holding a number and null', [5, null], runCliInProcess],
])('files that are %s: plan sets the manifest\'s files, and drift reports it', async (_, files, cli) => {
  const dir = await tempDir();
  await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'voxform.yaml'));
  await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
  const env = { ...SECRETS, VOXFORM_API_KEY: shared.emulator.apiKey, VOXFORM_BASE_URL: proxy.url };
  // The manifest agent with knowledge: its live files, as the service sends them.
  const agentId = /^\s+id: (\S+)$/m.exec(await readFile(path.join(dir, 'voxform.yaml'), 'utf8'))?.[1] as string;
  proxy.rewrite = ({ method, path: target }, text) => {
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
