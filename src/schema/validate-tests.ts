import * as validators from './validators/tests.gen.js';
import { issuesAgainst, type SchemaIssue } from './issues.js';

/** Validates a conversation test file (`TestFile`) or a definition of its schema. */
export function validateAgainstTestsDef(name: string, value: unknown): SchemaIssue[] {
  return issuesAgainst(validators, name, 'test file schema definition', value);
}
