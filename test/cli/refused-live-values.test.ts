/**
 * An agent update sends back, as the service has them, the fields of each changed top-level key that
 * the manifest does not set (docs/plan.md, the update body). When the service holds one of them in a
 * shape its own schema refuses, the update cannot be sent: apply says which field of the service's
 * is at fault and how to fix it, never that voxform built the request wrong or that the manifest is.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { useRewritingService } from '../helpers/rewriting-proxy.js';

const service = useRewritingService();
const BOOKING = '-OKdqbqetEcM4ak369yn';

it("a field the manifest does not set, held by the service in a shape its schema refuses, is named as the service's", async () => {
  const { dir, env } = await service.example();
  const applied = await runCliInProcess(['apply', '--auto-approve'], { cwd: dir, env });
  expect(applied.code, applied.stderr).toBe(0);
  // The manifest changes a leaf under config.flow; the service holds flow.interruption, which the manifest leaves to it, as a number.
  const manifest = path.join(dir, 'voxform.yaml');
  await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('Please call us back to book.', 'Please call us back to book a visit.'));
  service.proxy.rewrite = ({ method, path: at }, text) => {
    if (method !== 'GET' || at !== `/agents/${BOOKING}`) return text;
    const agent = JSON.parse(text) as { config: { flow: Record<string, unknown> } };
    agent.config.flow.interruption = 5;
    return JSON.stringify(agent);
  };
  const result = await runCliInProcess(['apply', '--auto-approve'], { cwd: dir, env });
  expect(result.code).toBe(1);
  const refused = 'agent.booking: error[api_request_invalid]: The service holds config.flow.interruption in a shape its own schema refuses (must be object); updating config.flow sends back what the manifest does not set as the service has it, so the update was not sent.';
  expect(result.stderr).toContain(`✗ ${refused}`);
  expect(result.stdout).toContain(`  failed: ${refused}\n    hint: Set config.flow.interruption in the manifest (it then sends its own value), or correct it on the service, then run again.`);
  expect(result.stdout + result.stderr).not.toContain('bug in voxform');
  // Nothing reached the service for the agent: the body was refused before it was sent.
  expect((await runCliInProcess(['plan', '--detailed-exitcode'], { cwd: dir, env })).code).toBe(2);
});
