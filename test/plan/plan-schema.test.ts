/**
 * schemas/plan.schema.json is the published contract of the JSON plan: every JSON plan these
 * scenarios produce (printed with `--format json`, and saved with `--out`) must be valid under an
 * independent Ajv 2020 validator, and documents that are not voxform plans of this format must not.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_JSON_FORMAT_VERSION } from '../../src/plan/format-version.js';
import { repoRoot } from '../helpers/cli.js';
import { callService, startExampleProject, type ExampleProject } from '../helpers/project.js';

type Json = Record<string, unknown>;

// ajv-formats is CommonJS: its function is the default export's `default` under NodeNext.
const addFormats = addFormatsModule.default;

function compileSchema() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  // Editors' annotation, as in the other published schemas: one description per enum value.
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  return readFile(path.join(repoRoot, 'schemas/plan.schema.json'), 'utf8').then((text) => ajv.compile(JSON.parse(text)));
}

let validate: Awaited<ReturnType<typeof compileSchema>>;
let project: ExampleProject;
/** Every JSON plan the scenarios below produced: printed and saved, by name. */
const plans = new Map<string, Json>();

async function planJson(name: string, args: string[] = []): Promise<void> {
  const result = await project.cliInProcess(['plan', '--format', 'json', '--out', `${name}.json`, ...args]);
  expect(result.code, result.stderr).toBe(0);
  plans.set(`${name} (printed)`, JSON.parse(result.stdout) as Json);
  plans.set(`${name} (saved)`, JSON.parse(await readFile(path.join(project.dir, `${name}.json`), 'utf8')) as Json);
}

beforeAll(async () => {
  validate = await compileSchema();
  project = await startExampleProject();
  // Before the first apply: creates, updates, live state unknown, uploads, secrets to fill.
  await planJson('first');
  await planJson('targeted', ['--target', 'phone.+15551230002']);
  expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
  await planJson('converged');
  // Drift on the service, a prompt edited in the manifest, a knowledge file changed.
  const booking = `/agents/${encodeURIComponent('-OKdqbqetEcM4ak369yn')}`;
  const live = (await callService(project, 'GET', booking)) as { name: string };
  await callService(project, 'PUT', booking, { name: live.name, config: { first_message: 'Changed on the dashboard' } });
  const prompt = path.join(project.dir, 'example/prompts/front-desk.md');
  await writeFile(prompt, `${await readFile(prompt, 'utf8')}\n- Always end politely.\n`);
  const faq = path.join(project.dir, 'example/knowledge/faq.md');
  await writeFile(faq, `${await readFile(faq, 'utf8')}\nParking is free after 6 pm.\n`);
  // A warning too (vars without a template): the printed plan lists it in `diagnostics`.
  const manifest = path.join(project.dir, 'voxform.yaml');
  await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('    id: -OKdqbqetEcM4ak369ym\n', '    id: -OKdqbqetEcM4ak369ym\n    vars: { clinic: Acme }\n'));
  await planJson('edited');
  // A campaign's key renamed: the plan says where the state kept it (`moved_from`).
  await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('  recall-reminders:', '  recall-2026:'));
  await planJson('renamed');
}, 120_000);

afterAll(() => project?.close());

describe('schemas/plan.schema.json', () => {
  it('accepts every JSON plan voxform printed or saved in these scenarios', () => {
    expect([...plans.keys()]).toHaveLength(10);
    const actions = new Set<unknown>();
    for (const [name, plan] of plans) {
      expect(validate(plan), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      for (const change of plan.resource_changes as Json[]) actions.add(change.action);
    }
    // The scenarios reach every action and the features a plan can hold.
    expect([...actions].sort()).toEqual(['create', 'no-op', 'update']);
    const all = JSON.stringify([...plans.values()]);
    for (const feature of ['"result_of"', '"from":"manifest"', '"reason":"live_unknown"', '"reason":"content_changed"', '"reason":"drift"', '"drift":true', '"kind":"voxform-plan"', '"code":"vars_without_template"', '"moved_from":"campaign.recall-reminders"']) {
      expect(all).toContain(feature);
    }
    // The warnings are the printed plan's, when there are any; a saved plan keeps none.
    for (const [name, plan] of plans) expect(Array.isArray(plan.diagnostics), name).toBe(name === 'edited (printed)' || name === 'renamed (printed)');
  });

  it('describes the format voxform writes', async () => {
    const schema = JSON.parse(await readFile(path.join(repoRoot, 'schemas/plan.schema.json'), 'utf8')) as { properties: { format_version: { const: string } } };
    expect(schema.properties.format_version.const).toBe(PLAN_JSON_FORMAT_VERSION);
  });

  it('refuses what is not a voxform plan of this format', () => {
    const saved = structuredClone(plans.get('first (saved)')!);
    const changes = saved.resource_changes as Json[];
    const broken: Array<[string, Json]> = [
      ['another format version', { ...saved, format_version: '1.0' }],
      ['a Terraform plan', { format_version: '1.2', terraform_version: '1.9.0', resource_changes: [] }],
      ['a change without its requests', { ...saved, resource_changes: [{ ...changes[0], requests: undefined }] }],
      ['an unknown action', { ...saved, resource_changes: [{ ...changes[0], action: 'delete' }] }],
      ['a no-op that sends requests', { ...saved, resource_changes: [{ ...changes[0], action: 'no-op', field_changes: [] }] }],
      ['a saved plan without its digest', { ...saved, secrets_digest: undefined }],
      ['a saved plan with diagnostics', { ...saved, diagnostics: (plans.get('edited (printed)')!.diagnostics as Json[]) }],
      ['an empty list of diagnostics', { ...plans.get('first (printed)')!, diagnostics: [] }],
      ['a diagnostic that is an error', { ...plans.get('first (printed)')!, diagnostics: [{ severity: 'error', code: 'yaml_syntax', message: 'x', file: 'a.yaml', line: 1, col: 1 }] }],
      ['an unknown operation', { ...saved, resource_changes: [{ ...changes[0], requests: [{ ...(changes[0]!.requests as Json[])[0], operation: 'delete_agent' }] }] }],
      ['a fill that is both a secret and a result', {
        ...saved,
        resource_changes: [{ ...changes[0], requests: [{ ...(changes[0]!.requests as Json[])[0], fills: [{ at: ['x'], result_of: 'a/1', secret: { address: 'a', from: 'live', path: [] } }] }] }],
      }],
    ];
    for (const [what, document] of broken) {
      const json = JSON.parse(JSON.stringify(document)) as Json;
      expect(validate(json), what).toBe(false);
    }
  });
});
