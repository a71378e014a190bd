import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertPlanFresh, type SavedPlan } from '../../src/plan/plan-file.js';
import type { DesiredState } from '../../src/manifest/types.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { canonicalJson, fingerprintKey, fingerprintKeyId, hashValue, keyedHash, sha256 } from '../../src/util/hash.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

/** Every string anywhere in a parsed JSON document: what an attacker holding the file can try as a salt. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return [...Object.keys(value), ...Object.values(value).flatMap(stringsIn)];
  return [];
}

/**
 * An offline guess at `secret` from the file alone: every unkeyed construction voxform used (or
 * might), salted with any string the file holds. A hit means the file confirms the guess.
 */
function confirmsGuess(fileText: string, secret: string): boolean {
  const hashes = new Set(fileText.match(/(?:sha256|hmac-sha256):[0-9a-f]{64}/g) ?? []);
  const candidates = [sha256(secret), hashValue(secret), sha256(canonicalJson(secret))];
  for (const salt of stringsIn(JSON.parse(fileText))) candidates.push(hashValue([salt, secret]), hashValue([salt, [secret]]), sha256(`${salt}\0${secret}`));
  return candidates.some((candidate) => hashes.has(candidate));
}

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('fingerprints in the state file and saved plans', () => {
  const SHORT = { HOOK_TOKEN: 'k9Zq', OPENAI_API_KEY: 'sk-4' };

  it('cannot be tested offline: keyed with a key derived from the API key, which neither file holds', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'], SHORT)).code).toBe(0);
    expect((await p.cliInProcess(['plan', '--out', 'plan.json'], SHORT)).code).toBe(0);
    const state = await readFile(path.join(p.dir, '.voxform/state.json'), 'utf8');
    const plan = await readFile(path.join(p.dir, 'plan.json'), 'utf8');
    const key = fingerprintKey(p.emulator.apiKey);

    for (const text of [state, plan]) {
      expect(text).not.toContain(p.emulator.apiKey);
      expect(text).not.toContain(key);
      for (const secret of Object.values(SHORT)) {
        expect(text).not.toContain(secret);
        expect(confirmsGuess(text, secret)).toBe(false);
      }
    }
    expect(JSON.parse(state)).not.toHaveProperty('salt');
    // What the state does hold for the header is the HMAC under the key: testable only with the API key.
    const applied = (JSON.parse(state) as { workspaces: Record<string, { agents: Record<string, { applied: Record<string, string> }> }> }).workspaces;
    const frontDesk = Object.values(applied)[0]?.agents['agent.front-desk']?.applied ?? {};
    expect(frontDesk['config.session_data_webhook.headers.x-hook-token']).toBe(keyedHash(key, SHORT.HOOK_TOKEN));
    expect(keyedHash(fingerprintKey('another-api-key'), SHORT.HOOK_TOKEN)).not.toBe(keyedHash(key, SHORT.HOOK_TOKEN));
    expect((JSON.parse(plan) as { fingerprint_key_id: string }).fingerprint_key_id).toBe(fingerprintKeyId(key));
  });

  it('still notices a changed secret: a credential key (state), and a ${env:} value after a saved plan', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'], SHORT)).code).toBe(0);
    const same = await p.cliInProcess(['plan', '--detailed-exitcode'], SHORT);
    expect(same.code).toBe(0);

    const changedCredential = await p.cliInProcess(['plan'], { ...SHORT, OPENAI_API_KEY: 'sk-5' });
    expect(changedCredential.stdout).toMatch(/credential\.openai[\s\S]*api_key[^\n]*\(sensitive value changed\)/);

    expect((await p.cliInProcess(['plan', '--out', 'plan.json'], SHORT)).code).toBe(0);
    const stale = await p.cliInProcess(['apply', 'plan.json'], { ...SHORT, HOOK_TOKEN: 'k9Zr' });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('the value of a ${env:…} secret changed');
  });

  it('a saved plan made with another API key is refused as stale, saying so', () => {
    const saved = { fingerprint_key_id: fingerprintKeyId(fingerprintKey('old-api-key')) } as SavedPlan;
    expect(() => assertPlanFresh({ ...saved, base_url: 'local' }, { fingerprints: new Map(), desired: {} as DesiredState, serviceId: 'local', fingerprintKey: fingerprintKey('new-api-key'), workspace: emptyWorkspace() })).toThrowError(
      'The saved plan was made with another API key, so voxform cannot check it is still current. Nothing was applied.',
    );
  });
});
