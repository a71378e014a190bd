/**
 * docs/manifest.md stays true: each reference table lists exactly the fields its schema definition
 * has and the read-only list is the schema's (docs/errors.md explains the diagnostic codes: test/docs/errors.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flaggedPaths, knownProperties, schemaNode } from '../../src/schema/introspect.js';
import { repoRoot } from '../helpers/cli.js';

const doc = readFileSync(path.join(repoRoot, 'docs/manifest.md'), 'utf8');

/** The first-column names (`` `name` ``) of the table after a `<!-- marker -->` line. */
function tableAfter(marker: string): string[] {
  const lines = doc.split('\n');
  const at = lines.findIndex((line) => line.trim() === `<!-- ${marker} -->`);
  if (at < 0) throw new Error(`docs/manifest.md has no <!-- ${marker} --> table`);
  const rows = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows.slice(2).map((row) => {
    const cell = row.split('|')[1]?.trim() ?? '';
    const name = /^`([^`]+)`$/.exec(cell)?.[1];
    if (!name) throw new Error(`a row of the ${marker} table does not start with a \`name\`: ${row}`);
    return name;
  });
}

/** The list items (`` - `path` ``) after a `<!-- marker -->` line. */
function listAfter(marker: string): string[] {
  const lines = doc.split('\n');
  const at = lines.findIndex((line) => line.trim() === `<!-- ${marker} -->`);
  const items = [];
  for (const line of lines.slice(at + 1)) {
    const item = /^- `([^`]+)`$/.exec(line.trim());
    if (!item) break;
    items.push(item[1] as string);
  }
  return items;
}

const DEFINITIONS = [
  'Manifest',
  'AgentSpec',
  'AgentConfigSpec',
  'PhoneSpec',
  'PhoneImportSpec',
  'CampaignSpec',
  'KnowledgeSpec',
  'CredentialSpec',
  'EnvironmentSpec',
  'PromotionGates',
  'Defaults',
];

describe('docs/manifest.md', () => {
  it.each(DEFINITIONS)('documents exactly the fields of %s', (definition) => {
    const documented = tableAfter(`schema: ${definition}`);
    expect(new Set(documented).size, 'a field is listed twice').toBe(documented.length);
    expect([...documented].sort()).toEqual(knownProperties(schemaNode(definition, 'manifest')).sort());
  });

  it('lists exactly the read-only fields of the schema', () => {
    expect(listAfter('read-only').sort()).toEqual(flaggedPaths('AgentConfigRead', 'readOnly').sort());
  });

  it('mentions every field of every definition as `name` somewhere', () => {
    for (const definition of DEFINITIONS) {
      for (const field of knownProperties(schemaNode(definition, 'manifest'))) expect(doc).toContain(`\`${field}\``);
    }
  });
});
