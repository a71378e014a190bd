import type { Agent } from '../schema/types.gen.js';
import type { DesiredAgent } from '../manifest/types.js';
import { comparableLiveAgent, desiredAgentFields } from '../plan/agent-fields.js';
import { agentSensitivePatterns } from '../secrets/schema-paths.js';
import { isUnchanged } from '../plan/compare.js';
import { parseDotted, valueAtPath } from '../util/field-path.js';
import { redactValue } from '../plan/redact.js';

/** Managed fields whose read-back value is not what was sent: the service dropped or rewrote them. */
export function readBackDifferences(agent: DesiredAgent, live: Agent): string[] {
  const comparable = comparableLiveAgent(live);
  const patterns = agentSensitivePatterns(agent);
  const warnings: string[] = [];
  for (const [path, value] of desiredAgentFields(agent)) {
    const actual = valueAtPath(comparable, parseDotted(path));
    if (isUnchanged(value, actual)) continue;
    const sent = JSON.stringify(redactValue(value, path, patterns));
    const kept = actual === undefined ? 'nothing' : JSON.stringify(redactValue(actual, path, patterns));
    const shown = sent === kept ? '' : `: sent ${sent}, the service has ${kept}`;
    warnings.push(`${agent.address}: the service did not keep ${path} as applied${shown}.`);
  }
  return warnings;
}
