/**
 * What is secret, answered in one place: the fields the schemas mark `x-sensitive`. The other half,
 * values a manifest fills from `${env:…}`, the loader records per agent (`DesiredAgent.sensitivePaths`);
 * `agentSensitivePatterns` in src/plan/agent-fields.ts joins the two for an agent.
 */
import { flaggedPaths } from './introspect.js';

let configPatterns: readonly string[] | undefined;
let manifestPatterns: readonly string[] | undefined;
let fieldNames: ReadonlySet<string> | undefined;

/** Paths inside an agent's config the schema marks secret: `tools[].header`, `session_data_webhook.headers`, … */
export function sensitiveConfigPatterns(): readonly string[] {
  configPatterns ??= flaggedPaths('AgentConfigUpdate', 'sensitive');
  return configPatterns;
}

/** Manifest paths the schema marks secret (`agents.*.config.tools[].header`, `credentials[].api_key`, …). */
export function sensitiveManifestPatterns(): readonly string[] {
  manifestPatterns ??= flaggedPaths('Manifest', 'sensitive', 'manifest');
  return manifestPatterns;
}

/** The names of the fields marked secret anywhere in a manifest (`header`, `headers`, `credentials`, `api_key`, …). */
export function sensitiveFieldNames(): ReadonlySet<string> {
  fieldNames ??= new Set(sensitiveManifestPatterns().map((pattern) => pattern.split('.').pop()!.replace(/\[\]$/, '')));
  return fieldNames;
}
