/** Manifests written to a temporary folder, loaded and checked by the policy with a fixed day. */
import { loadManifests } from '../../src/manifest/index.js';
import type { DesiredState } from '../../src/manifest/types.js';
import { evaluatePolicy, type PolicyOptions } from '../../src/policy/evaluate.js';
import type { PolicyReport } from '../../src/policy/types.js';

/** The day every policy test runs on: waivers are read against it, never against the wall clock. */
export const TODAY = new Date('2026-06-15T12:00:00Z');

export async function loadState(dir: string, env: Record<string, string> = {}): Promise<DesiredState> {
  const result = await loadManifests({ paths: [], cwd: dir, env });
  if (!result.state) throw new Error(`the fixture does not load: ${result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.message}`).join('; ')}`);
  return result.state;
}

export async function policyOf(dir: string, options: Partial<PolicyOptions> = {}): Promise<PolicyReport> {
  return evaluatePolicy(await loadState(dir), { now: () => TODAY, ...options });
}

/** A manifest of one agent `a` (id ag_1) with this config, written as YAML lines under `config:`. */
export function oneAgent(configYaml: string, rest = ''): string {
  const config = configYaml
    .trim()
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');
  return `version: 1\nagents:\n  a:\n    id: ag_1\n    config:\n${config}\n${rest}`;
}
