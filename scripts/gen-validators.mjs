// Regenerates src/schema/validators/: every definition of schemas/*.schema.json compiled by Ajv
// ahead of time (standalone code), so no command pays for compiling schemas at start-up (about
// 0.12 s saved on every run). One module per schema file: a command loads the validators of the
// documents it checks only (validate the manifest's, the client the service's). `npm run gen`
// writes them; test/schema/types-fresh.test.ts fails when one is stale.
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { internalManifestSchema } from './gen-manifest-schema.mjs';

// CommonJS modules: their exports arrive under `default`.
const Ajv2020 = Ajv2020Module.default;
const standaloneCode = standaloneModule.default;
const addFormats = addFormatsModule.default;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schemaDir = path.join(root, 'schemas');
const outDir = path.join(root, 'src/schema/validators');

const header = (schemaFile, exported) => `// @ts-nocheck
/* eslint-disable */
// DO NOT EDIT: generated from schemas/${schemaFile} by \`npm run gen\` (scripts/gen-validators.mjs).
// Exports one Ajv validate function per definition, by its name${exported}. test/schema/types-fresh.test.ts fails when stale.
`;

/** The text of each generated module, by its file name in src/schema/validators/. */
export async function generateValidators() {
  const service = JSON.parse(await readFile(path.join(schemaDir, 'service.schema.json'), 'utf8'));
  // voxform checks manifests once nulls are taken out and env references, templates and defaults
  // are resolved: the strict view of the published schema (see gen-manifest-schema.mjs).
  const manifest = internalManifestSchema(JSON.parse(await readFile(path.join(schemaDir, 'manifest.schema.json'), 'utf8')));
  const tests = JSON.parse(await readFile(path.join(schemaDir, 'tests.schema.json'), 'utf8'));
  const schemas = [service, manifest, tests];
  const definitions = (schema) => Object.fromEntries(Object.keys(schema.$defs).map((name) => [name, `${schema.$id}#/$defs/${name}`]));
  return {
    'service.gen.ts': compiled(schemas, 'service.schema.json', definitions(service), ''),
    'manifest.gen.ts': compiled(schemas, 'manifest.schema.json', { Manifest: manifest.$id, ...definitions(manifest) }, ', and the whole document as `Manifest`'),
    'tests.gen.ts': compiled(schemas, 'tests.schema.json', { TestFile: tests.$id, ...definitions(tests) }, ', and the whole document as `TestFile`'),
  };
}

/** One module: the validate functions of `refs` (export name → schema reference), each schema it refers to compiled in. */
function compiled(schemas, schemaFile, refs, exported) {
  // allErrors: a manifest's every mistake is reported in one run. optimize off: smaller code, and
  // validation stays far faster than anything else a command does.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true, optimize: false } });
  addFormats(ajv);
  // Our own annotation: values that must never be printed, logged or stored.
  ajv.addKeyword({ keyword: 'x-sensitive', schemaType: 'boolean' });
  // Editors' annotation (VS Code, the YAML language server): one description per value of an enum.
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  for (const schema of schemas) ajv.addSchema(schema);
  let code = standaloneCode(ajv, refs).replace(/^"use strict";/, '');
  // Ajv's ESM output still `require`s its small runtime helpers: import them instead, as ESM needs.
  const imports = [];
  // Node hands an ESM importer a CommonJS module's `module.exports` as the default export; bundling
  // test runners hand over `exports.default` instead. The expressions below work under both.
  code = code.replace(/const (\w+) = require\("([^"]+)"\)((?:\.\w+)*);/g, (_whole, local, specifier, member) => {
    const module = `${local}Module`;
    imports.push(`import * as ${module} from '${specifier}.js';`);
    const value = member.startsWith('.default')
      ? `(${module}.default?.default ?? ${module}.default)${member.slice('.default'.length)}`
      : `(${module}.default ?? ${module})${member}`;
    return `const ${local} = ${value};`;
  });
  if (/\brequire\(/.test(code)) throw new Error('the generated validators still require() something: extend the rewrite above');
  return `${header(schemaFile, exported)}${imports.join('\n')}\n${code}\n`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  const modules = await generateValidators();
  await mkdir(outDir, { recursive: true });
  // A module no schema generates any more goes: nothing may import validators left stale.
  for (const file of await readdir(outDir)) if (!Object.hasOwn(modules, file)) await rm(path.join(outDir, file));
  for (const [file, text] of Object.entries(modules)) {
    await writeFile(path.join(outDir, file), text);
    console.log(`wrote ${path.relative(root, path.join(outDir, file))}`);
  }
}
