import * as validators from './validators/manifest.gen.js';
import { issuesAgainst, type SchemaIssue } from './issues.js';

/** Validates a value against a definition of the manifest schema (`AgentSpec`, `AgentConfigSpec`, …), or the whole (`Manifest`). */
export function validateAgainstManifestDef(name: string, value: unknown): SchemaIssue[] {
  return issuesAgainst(validators, name, 'manifest schema definition', value);
}
