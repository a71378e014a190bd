/**
 * Every operation of the spec is served. The operation list is read from the spec itself — in CI,
 * `shared/` sits beside the repository, i.e. ../shared/spec/voice-agent-api.md from the repo root —
 * and each operation is called with a plausible request; a 404 that means "no such path" ("Not
 * Found", FastAPI's routing answer) or a 405 fails the test.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { specRoutes } from '../../src/emulator/server.js';
import { repoRoot } from '../helpers/cli.js';
import { BOOKING, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

const specPath = path.resolve(repoRoot, '..', 'shared', 'spec', 'voice-agent-api.md');

function specOperations(): Array<{ method: string; path: string }> {
  const text = readFileSync(specPath, 'utf8');
  return [...text.matchAll(/^### (GET|PUT|POST|DELETE|PATCH) `([^`]+)`/gm)].map((m) => ({ method: m[1] as string, path: m[2] as string }));
}

/** Path parameters filled with ids of the default seed. */
function concrete(specPathTemplate: string): string {
  return specPathTemplate
    .replace('{agent_id}', encodeURIComponent(FRONT_DESK))
    .replace('{campaign_id}', 'cmp_recall_2026')
    .replace('{phone}', encodeURIComponent('+15551230001'));
}

/** A plausible body for each operation (validity is not the point: being routed is). */
const bodies: Record<string, unknown> = {
  'POST /api_keys': { type: 'private', name: 'conformance' },
  'POST /user/credentials': { provider: 'openai', api_key: 'sk-test' },
  'PUT /campaigns/{campaign_id}/info': { name: 'Recall', include_metadata_in_prompt: false },
  'POST /campaigns/{campaign_id}/set_caller': { caller: '+15551230001' },
  'POST /phones/{phone}/set_agent': { agent_id: BOOKING },
  'POST /phones/import': { country: 'US', phone: '+15551230002', region: 'us-west', api_key: 'k', api_secret: 's' },
  'PUT /agents/{agent_id}': { name: 'Front desk', config: { first_message: 'Hello' } },
  'POST /register_call': { agent_id: FRONT_DESK },
  'POST /register_sip_call': { agent_id: FRONT_DESK },
  'POST /sip': { init_agent: { agent_id: FRONT_DESK }, region: 'us-west' },
  'POST /chat/completions': { agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'Hi' }] },
  'POST /knowledge/generate_presigned_url': { filename: 'faq.md' },
  'POST /knowledge/create_file': { object_key: 'knowledge/never-uploaded', name: 'faq' },
  'POST /knowledge/set_agent_files': { agent_id: FRONT_DESK, files: [] },
};

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());

describe('conformance with the spec', () => {
  it('finds the spec beside the repository', () => {
    expect(existsSync(specPath), `expected the spec at ${specPath}`).toBe(true);
  });

  const operations = existsSync(specPath) ? specOperations() : [];

  it('reads the operation list from the spec', () => {
    expect(operations.length).toBeGreaterThanOrEqual(17);
  });

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))('serves %s', async (_name, op) => {
    const key = `${op.method} ${op.path}`;
    const res = await client.call(op.method, concrete(op.path), bodies[key] === undefined ? {} : { body: bodies[key] });
    expect(res.status, `${key} answered ${res.status} ${res.text}`).not.toBe(405);
    if (res.status === 404) expect(res.body, `${key} is not routed`).not.toEqual({ detail: 'Not Found' });
    expect(res.status, `${key} answered ${res.status} ${res.text}`).toBeLessThan(500);
  });

  it('routes nothing that the spec does not name, outside /_emulator/', () => {
    const named = new Set(operations.map((op) => `${op.method} ${op.path}`));
    const extra = specRoutes.map((r) => `${r.method} ${r.path}`).filter((r) => !named.has(r));
    expect(extra).toEqual([]);
  });
});
