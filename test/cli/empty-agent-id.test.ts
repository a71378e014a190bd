/**
 * A call record whose agent_id is empty (from the service, or a committed `.voxform/local.json`)
 * names no agent: `report` and `get agents` count and list the call without a name, instead of
 * stopping with "voxform needs a non-empty agent id to build this request"; the report's headings
 * call them `(no agent id)`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

it('report and get agents read a call record with an empty agent_id', async () => {
  const dir = await tempDir();
  const made = await runCliInProcess(['logs', '--local', '--limit', '1'], { cwd: dir });
  expect(made.code, made.stderr).toBe(0);
  const dataFile = path.join(dir, '.voxform', 'local.json');
  const data = JSON.parse(await readFile(dataFile, 'utf8')) as { call_logs: Array<{ ts: number; agent_id: string }> };
  const newest = data.call_logs.reduce((a, b) => (b.ts > a.ts ? b : a));
  newest.agent_id = '';
  await writeFile(dataFile, JSON.stringify(data));

  const report = await runCli(['report', '--local', '--format', 'json'], { cwd: dir });
  expect(report.code, report.stderr).toBe(0);
  const agents = (JSON.parse(report.stdout) as { agents: Array<{ agent_id: string; calls: number; service_name: string | null }> }).agents;
  expect(agents.find((agent) => agent.agent_id === '')).toMatchObject({ calls: 1, service_name: null });
  // The reports' headings name those calls, never as an empty code span or an empty title.
  const markdown = await runCli(['report', '--local'], { cwd: dir });
  expect(markdown.code, markdown.stderr).toBe(0);
  expect(markdown.stdout).toContain('\n### (no agent id)\n');
  expect(markdown.stdout).not.toContain('### ``');
  const html = await runCli(['report', '--local', '--format', 'html', '--out', 'report.html'], { cwd: dir });
  expect(html.code, html.stderr).toBe(0);
  expect(await readFile(path.join(dir, 'report.html'), 'utf8')).toContain('<h2>(no agent id) <span class="meta">');

  const listed = await runCliInProcess(['get', 'agents', '--local'], { cwd: dir });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stderr).toBe('');
});
