/**
 * The published manifest schema (what editors read, what `voxform schema` prints) accepts exactly
 * what voxform accepts. Every manifest of the repository, its docs and its templates, and a table
 * of cases for each rule, is checked twice: by an independent JSON Schema 2020-12 validator (a
 * fresh Ajv 2020 instance compiled here from schemas/*.json, not our generated validators) and
 * by `voxform validate` (its library entry, loadManifests).
 *
 * A schema judges one document: it cannot know whether a referenced agent exists, whether a file
 * or an env variable is there, or whether defaults, a template or the base of an overlay fill in a
 * required field. Those verdicts are voxform's alone. For the problems a schema can see
 * (SCHEMA_CODES) the two verdicts must agree, in both directions.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadManifests } from '../../src/manifest/index.js';
import { bundleManifestSchema, loadSchemas } from '../../src/schema/load.js';
import { readTemplate, templateNames } from '../../src/templates/catalog.js';
import { resolveVariables } from '../../src/init/expand.js';
import { planScaffold } from '../../src/init/scaffold.js';
import { repoRoot, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { documentedManifests } from '../helpers/doc-example.js';
import { SAMPLE_VALUES } from '../templates/fixtures.js';

/**
 * Diagnostics a schema gives too: a field it does not know, a value of the wrong type or form, a
 * repeated item, a field only the service sets, a malformed key. Every other code (references,
 * files, the environment, fields merged in, templates, duplicates across files, the operator's
 * policies) is voxform's alone.
 */
const SCHEMA_CODES = new Set(['unknown_field', 'type_mismatch', 'invalid_value', 'duplicate_item', 'read_only_field', 'invalid_name', 'not_a_mapping']);

const tempDir = useTempDirs();

function independentValidator() {
  const { service, manifest } = loadSchemas();
  // strict: false — editors ignore annotations they do not know (x-sensitive, enumDescriptions, …).
  // Formats (a date, a URI) are checked, as the editors' JSON schema support checks them.
  const ajv = addFormatsModule.default(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema(service);
  return ajv.compile(manifest);
}
const editorAccepts = independentValidator();

/** The editor's verdict on a file: every YAML document of it is a manifest fragment. */
function editorVerdict(text: string): { valid: boolean; errors: string[] } {
  const errors: string[] = [];
  for (const doc of parseAllDocuments(text, { merge: true })) {
    const value = doc.toJS({ maxAliasCount: 10_000 }) as unknown;
    if (value === null || value === undefined) continue;
    if (!editorAccepts(value)) errors.push(...(editorAccepts.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
  }
  return { valid: errors.length === 0, errors };
}

interface VoxformVerdict {
  /** No error diagnostics at all. */
  valid: boolean;
  /** Errors the schema could have found. */
  schemaErrors: string[];
  errors: string[];
}

async function voxformVerdict(dir: string, file: string, env: Record<string, string> = {}): Promise<VoxformVerdict> {
  const result = await loadManifests({ paths: [file], cwd: dir, env });
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  return {
    valid: errors.length === 0,
    schemaErrors: errors.filter((d) => SCHEMA_CODES.has(d.code)).map((d) => `${d.code} ${d.message}`),
    errors: errors.map((d) => `${d.code} ${d.message}`),
  };
}

/** The two verdicts agree: the editor rejects exactly when voxform finds a problem a schema can find. */
function expectAgreement(name: string, editor: { valid: boolean; errors: string[] }, voxform: VoxformVerdict): void {
  expect({ name, editorValid: editor.valid, voxformSchemaValid: voxform.schemaErrors.length === 0, editor: editor.errors, voxform: voxform.errors }).toMatchObject({
    editorValid: voxform.schemaErrors.length === 0,
  });
  if (voxform.valid) expect(editor.valid, `${name}: voxform accepts it, the editor must too: ${editor.errors.join('; ')}`).toBe(true);
}

interface Case {
  name: string;
  yaml: string;
  env?: Record<string, string>;
  /** voxform's verdict: valid, invalid for a reason a schema can see, or invalid for another reason. */
  voxform: 'valid' | 'schema' | 'other';
}

const AGENT = 'agents:\n  a:\n    id: ag_1\n';
const cases: Case[] = [
  { name: 'null clears config fields at every depth', voxform: 'valid', yaml: `${AGENT}    config:\n      voice: null\n      llm: { temperature: null }\n      flow: { call_transfer: { phone: null, phones: [{ phone: "+15551239999", description: null }] } }\n      tools: [{ name: t, header: { x-token: null } }]\n      session_data_webhook: null\n` },
  { name: 'config: null', voxform: 'valid', yaml: `${AGENT}    config: null\n` },
  { name: 'empty sections', voxform: 'valid', yaml: 'version: 1\ndefaults:\nagents:\nphones:\ncampaigns:\nknowledge:\ncredentials:\nenvironments:\n' },
  { name: 'defaults.config null and empty overlay sections', voxform: 'valid', yaml: `defaults: { config: null }\n${AGENT}environments:\n  staging:\n    agents:\n    defaults:\n    credentials:\n` },
  { name: 'a webhook url that defaults supply', voxform: 'valid', yaml: `defaults:\n  config: { session_data_webhook: { url: "https://hooks.example.com/end" } }\n${AGENT}    config: { session_data_webhook: { headers: { x-token: abc } } }\n` },
  {
    name: 'an overlay that completes a webhook and changes a phone import',
    voxform: 'valid',
    yaml: `${AGENT}phones:\n  "+15551230002":\n    agent: a\n    import: { country: US, region: us-west, api_key: "\${env:K}", api_secret: "\${env:S}" }\nenvironments:\n  staging:\n    agents: { a: { config: { extra_prompt_webhook: { headers: { x-token: abc } } } } }\n    phones: { "+15551230002": { import: { region: us-east } } }\n    credentials: [{ provider: openai }]\n`,
    env: { K: 'key', S: 'secret' },
  },
  { name: 'an E.164 transfer number', voxform: 'valid', yaml: `${AGENT}    config: { flow: { call_transfer: { phone: "+15551239999" } } }\n` },
  { name: 'a transfer number from the environment', voxform: 'valid', yaml: `${AGENT}    config: { flow: { call_transfer: { phone: "\${env:TRANSFER}" } } }\n`, env: { TRANSFER: '+15551239999' } },
  { name: 'an escaped $${env:…} transfer number: the text ${env:…}, no reference, no number', voxform: 'schema', yaml: `${AGENT}    config: { flow: { call_transfer: { phone: "$\${env:TRANSFER}" } } }\n`, env: { TRANSFER: '+15551239999' } },
  { name: 'a non-E.164 transfer number', voxform: 'schema', yaml: `${AGENT}    config: { flow: { call_transfer: { phone: "555-1234" } } }\n` },
  { name: 'a non-E.164 number in the transfer list', voxform: 'schema', yaml: `${AGENT}    config: { flow: { call_transfer: { phones: [{ phone: "+1 555 123 9999" }] } } }\n` },
  { name: 'a non-E.164 campaign caller', voxform: 'schema', yaml: 'campaigns:\n  c: { id: cmp_1, caller: "5551230001" }\n' },
  { name: 'a phone key that is not E.164', voxform: 'schema', yaml: 'phones:\n  "5551230001": {}\n' },
  { name: 'an unknown config field', voxform: 'schema', yaml: `${AGENT}    config: { voice: { speed: 1 } }\n` },
  { name: 'a field only the service sets', voxform: 'schema', yaml: `${AGENT}    config: { voice: { provider: openai } }\n` },
  { name: 'a wrong type', voxform: 'schema', yaml: `${AGENT}    config: { flow: { response_delay: slow } }\n` },
  { name: 'null as a list item', voxform: 'schema', yaml: `${AGENT}    config: { tools: [null] }\n` },
  { name: 'null outside a config', voxform: 'schema', yaml: `${AGENT}    name: null\n` },
  { name: 'a resource that is null', voxform: 'schema', yaml: 'agents:\n  a: null\n' },
  { name: 'a region other than us or eu', voxform: 'schema', yaml: `region: ap\n${AGENT}` },
  { name: 'version 2', voxform: 'schema', yaml: `version: 2\n${AGENT}` },
  { name: 'an unknown top-level section', voxform: 'schema', yaml: 'agnets: {}\n' },
  { name: 'an unknown field in an overlay', voxform: 'schema', yaml: `${AGENT}environments:\n  staging:\n    agents: { a: { conifg: {} } }\n` },
  { name: 'a knowledge file listed twice', voxform: 'schema', yaml: `${AGENT}    knowledge: [faq, faq]\nknowledge:\n  faq: { file: faq.md }\n` },
  { name: 'a phone bound to an agent the manifest lacks', voxform: 'other', yaml: 'phones:\n  "+15551230001": { agent: nobody }\n' },
  { name: 'a prompt file that does not exist', voxform: 'other', yaml: `${AGENT}    config: { prompt: { file: prompts/missing.md } }\n` },
  { name: 'an env variable that is not set', voxform: 'other', yaml: `${AGENT}    config: { first_message: "\${env:NOT_SET}" }\n` },
  { name: 'a webhook without url that nothing completes', voxform: 'other', yaml: `${AGENT}    config: { session_data_webhook: { headers: { x-token: abc } } }\n` },
];

describe('the published manifest schema and voxform agree', () => {
  it('validates a manifest written exactly as the published schema describes (self-check of the validator)', () => {
    expect(editorVerdict('agents: { a: { id: x, config: { voice: null } } }\n').valid).toBe(true);
    expect(editorVerdict('agents: { a: { id: 1 } }\n').valid).toBe(false);
  });

  it('voxform schema prints the same definitions the file holds', () => {
    const bundled = bundleManifestSchema() as { $defs: Record<string, unknown> };
    const manifestDefs = (loadSchemas().manifest as { $defs: Record<string, unknown> }).$defs;
    for (const name of Object.keys(manifestDefs)) expect(bundled.$defs[name], name).toBeDefined();
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const dir = await tempDir({ 'voxform.yaml': c.yaml });
    const editor = editorVerdict(c.yaml);
    const voxform = await voxformVerdict(dir, 'voxform.yaml', c.env);
    expect({ voxform: voxform.valid ? 'valid' : voxform.schemaErrors.length > 0 ? 'schema' : 'other', errors: voxform.errors }).toMatchObject({ voxform: c.voxform });
    expect(editor.valid, `editor: ${editor.errors.join('; ')}`).toBe(c.voxform !== 'schema');
    expectAgreement(c.name, editor, voxform);
  });

  it('`voxform validate` itself gives the verdicts its library entry gives (two cases through the CLI)', async () => {
    for (const c of [cases[0], cases.find((k) => k.voxform === 'schema')] as Case[]) {
      const dir = await tempDir({ 'voxform.yaml': c.yaml });
      const cli = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir, env: c.env });
      const library = await voxformVerdict(dir, 'voxform.yaml', c.env);
      const json = JSON.parse(cli.stdout) as { summary: { errors: number }; policy: { summary: { mandatory: number } } | null };
      // validate's exit code also counts mandatory policy violations (docs/policy.md); the manifest's verdict is its errors.
      const violations = json.policy?.summary.mandatory ?? 0;
      expect({ name: c.name, code: cli.code, valid: json.summary.errors === 0 }).toEqual({ name: c.name, code: library.valid && violations === 0 ? 0 : 1, valid: library.valid });
    }
  });

  it('agents.example.yaml: both accept it', async () => {
    const text = readFileSync(path.join(repoRoot, 'agents.example.yaml'), 'utf8');
    const voxform = await voxformVerdict(repoRoot, 'agents.example.yaml');
    expect(voxform.errors).toEqual([]);
    expectAgreement('agents.example.yaml', editorVerdict(text), voxform);
  });

  const documented = documentedManifests();
  it('finds the manifests of README.md and docs/', () => {
    expect(documented.length).toBeGreaterThanOrEqual(5);
  });

  it.each(documented)('%s', async (name, yaml) => {
    const dir = await tempDir({ 'voxform.yaml': yaml });
    expectAgreement(name, editorVerdict(yaml), await voxformVerdict(dir, 'voxform.yaml'));
  });

  it.each(templateNames())('template %s: its `voxform init` scaffold and a manifest using it', async (name) => {
    const template = await readTemplate(name);
    // The tokens the template's webhooks and tools take from the environment.
    const templateText = readFileSync(path.join(repoRoot, 'templates', name, 'template.yaml'), 'utf8');
    const env = Object.fromEntries([...templateText.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => [m[1] as string, 'token']));
    const values = resolveVariables(template, SAMPLE_VALUES[name] ?? {}).values;
    const scaffold = planScaffold({ template, values, agentId: '-OKspareAgent0000001' });
    const dir = await tempDir();
    for (const file of scaffold.files) {
      await mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
      await writeFile(path.join(dir, file.path), file.content);
    }
    const scaffolded = readFileSync(path.join(dir, 'voxform.yaml'), 'utf8');
    const fromScaffold = await voxformVerdict(dir, 'voxform.yaml', env);
    expect(fromScaffold.errors).toEqual([]);
    expectAgreement(`${name} scaffold`, editorVerdict(scaffolded), fromScaffold);

    const vars = Object.entries(SAMPLE_VALUES[name] ?? {}).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', ');
    const using = `agents:\n  a:\n    id: ag_1\n    template: ${name}\n    vars: { ${vars} }\n`;
    const usingDir = await tempDir({ 'voxform.yaml': using });
    const fromTemplate = await voxformVerdict(usingDir, 'voxform.yaml', env);
    expect(fromTemplate.errors).toEqual([]);
    expectAgreement(`${name} used by a manifest`, editorVerdict(using), fromTemplate);
  });
});
