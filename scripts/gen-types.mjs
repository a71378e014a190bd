// Regenerates src/schema/types.gen.ts from schemas/*.schema.json.
// `npm run gen` writes the file; `node scripts/gen-types.mjs --print` prints it (the staleness test uses that).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { compile } from 'json-schema-to-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schemaDir = path.join(root, 'schemas');
const outFile = path.join(root, 'src/schema/types.gen.ts');

const HEADER = `/* eslint-disable */
// DO NOT EDIT: generated from schemas/*.schema.json by \`npm run gen\` (scripts/gen-types.mjs).
// test/schema/types-fresh.test.ts fails when this file is stale.
`;

/** Both schema files as one document: the manifest's $defs beside the service's, refs made local. */
async function loadCombinedSchema() {
  const service = JSON.parse(await readFile(path.join(schemaDir, 'service.schema.json'), 'utf8'));
  const manifest = JSON.parse(await readFile(path.join(schemaDir, 'manifest.schema.json'), 'utf8'));
  const localized = JSON.parse(
    JSON.stringify(manifest).replaceAll('"service.schema.json#/$defs/', '"#/$defs/'),
  );
  const { $defs: manifestDefs, ...manifestRoot } = localized;
  // The conversation test format: its root becomes the TestFile definition beside its own $defs.
  const { $defs: testDefs, $schema: _schema, $id: _id, ...testRoot } = JSON.parse(await readFile(path.join(schemaDir, 'tests.schema.json'), 'utf8'));
  return { ...manifestRoot, $defs: { ...service.$defs, ...manifestDefs, ...testDefs, TestFile: testRoot } };
}

export async function generateTypes() {
  const ts = await compile(await loadCombinedSchema(), 'Manifest', {
    bannerComment: '',
    cwd: schemaDir,
    additionalProperties: false,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    format: true,
    style: { singleQuote: true, printWidth: 110 },
  });
  return `${HEADER}\n${ts.trim()}\n`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  const text = await generateTypes();
  if (process.argv.includes('--print')) process.stdout.write(text);
  else {
    await writeFile(outFile, text);
    console.log(`wrote ${path.relative(root, outFile)}`);
  }
}
