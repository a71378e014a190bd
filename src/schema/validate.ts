import * as serviceValidators from './validators/service.gen.js';
import { issuesAgainst, type SchemaIssue } from './issues.js';
import { validateAgainstManifestDef } from './validate-manifest.js';

/** Names of the service schema's definitions (`UpdateAgentRequest`, `AgentConfigRead`, …) and `Manifest`. */
type SchemaName = string;

/** Validates `value` against a definition of the service schema, or against `Manifest`. */
export function validateAgainst(name: SchemaName, value: unknown): SchemaIssue[] {
  if (name === 'Manifest') return validateAgainstManifestDef(name, value);
  return issuesAgainst(serviceValidators, name, 'schema definition', value);
}
