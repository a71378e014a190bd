import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { formatManifest } from '../../src/format/format-manifest.js';
import { validateAgainst } from '../../src/schema/validate.js';
import { listTemplates, readTemplateAt, type Template } from '../../src/templates/catalog.js';
import { resolveVariables } from '../../src/init/expand.js';
import { envReferences, isInitComment, planScaffold, scaffoldTargets, type ScaffoldFile } from '../../src/init/scaffold.js';
import { refuseOutsideProject, writeScaffold } from '../../src/init/write-scaffold.js';
import { isVoxformError } from '../../src/errors.js';
import { CheckoutFiles } from '../../src/project-files/checkout-files.js';
import { makeTree } from '../helpers/cli.js';
import { loadManifests } from '../../src/manifest/load.js';
import { SAMPLE_VALUES } from '../templates/fixtures.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const shippedTemplates = await listTemplates();

/** A shipped template, read once above. */
function readTemplate(name: string): Template {
  const template = shippedTemplates.find((t) => t.name === name);
  if (!template) throw new Error(`no template ${name}`);
  return template;
}

function scaffoldOf(name: string) {
  const template = readTemplate(name);
  const values = resolveVariables(template, SAMPLE_VALUES[name] ?? {}).values;
  return planScaffold({ template, values, agentId: '-OKspareAgent0000001' });
}

function fileOf(files: ScaffoldFile[], name: string): string {
  const file = files.find((f) => f.path === name);
  if (!file) throw new Error(`no ${name}`);
  return file.content;
}

describe('planScaffold, for every shipped template', () => {
  test.each(shippedTemplates.map((t) => t.name))('%s: a valid, formatted manifest and a filled-in prompt', (name) => {
    const template = readTemplate(name);
    expect(resolveVariables(template, SAMPLE_VALUES[name] ?? {}).missing).toEqual([]);
    const scaffold = scaffoldOf(name);
    expect(scaffold.files.map((f) => f.path)).toEqual(['voxform.yaml', `prompts/${name}.md`, '.voxform/manifest.schema.json', '.gitignore']);

    const manifestText = fileOf(scaffold.files, 'voxform.yaml');
    expect(manifestText.split('\n')[0]).toBe('# yaml-language-server: $schema=.voxform/manifest.schema.json');
    expect(formatManifest(manifestText, 'voxform.yaml').changed).toBe(false);
    expect(manifestText).not.toMatch(/\{\{/);
    // Each line of its header but the template's description is one init writes itself: a manifest replacing it loses none of them.
    const headerLines = manifestText.slice(0, manifestText.indexOf('\nversion:')).split('\n').map((line) => line.replace(/^#/, '').trim());
    expect(headerLines.filter((line) => !isInitComment(line))).toEqual([template.description]);

    const manifest = parse(manifestText) as { version: number; agents: Record<string, { id: string; name: string; config: Record<string, unknown> }> };
    expect(validateAgainst('Manifest', manifest)).toEqual([]);
    expect(manifest.version).toBe(1);
    const agent = manifest.agents[name];
    expect(agent?.id).toBe('-OKspareAgent0000001');
    expect(agent?.name).toContain(SAMPLE_VALUES[name]?.business);
    expect(agent?.config.prompt).toEqual({ file: `prompts/${name}.md` });

    const prompt = fileOf(scaffold.files, `prompts/${name}.md`);
    expect(prompt).not.toMatch(/\{\{/);
    expect(prompt).toContain(SAMPLE_VALUES[name]?.business);
    expect(prompt.endsWith('\n')).toBe(true);

    expect(JSON.parse(fileOf(scaffold.files, '.voxform/manifest.schema.json'))).toMatchObject({ title: 'Manifest' });
  });

  test('a value holding a character a reader cannot see is written escaped in the manifest, as fmt writes it', () => {
    const template = readTemplate('receptionist');
    const values = resolveVariables(template, { ...SAMPLE_VALUES.receptionist, business: 'Acme\u202e Dental' }).values;
    const manifestText = fileOf(planScaffold({ template, values, agentId: '-OKspareAgent0000001' }).files, 'voxform.yaml');
    expect(manifestText).not.toContain('\u202e');
    expect(manifestText).toContain('name: "Acme\\u202e Dental receptionist"');
    expect(formatManifest(manifestText, 'voxform.yaml').changed).toBe(false);
  });

  test('a prompt holding a control or an invisible character stays inline in the manifest, escaped, as export keeps it: a prompt file would hold it raw', async () => {
    const template = readTemplate('receptionist');
    const business = 'Acme\u001b]0;pwned\u0007\u202eX ${env:HOME}';
    const values = resolveVariables(template, { ...SAMPLE_VALUES.receptionist, business }).values;
    const scaffold = planScaffold({ template, values, agentId: '-OKspareAgent0000001' });
    expect(scaffold.files.map((f) => f.path)).not.toContain('prompts/receptionist.md');
    const manifestText = fileOf(scaffold.files, 'voxform.yaml');
    expect(manifestText).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(manifestText).toContain('Acme\\e]0;pwned\\a\\u202eX');
    expect(manifestText).not.toContain('The prompt is in prompts/');
    expect(formatManifest(manifestText, 'voxform.yaml').changed).toBe(false);
    // Loaded, the prompt is the one a prompt file would have given, ${env:…} in it text as there.
    const tree = await makeTree({ 'voxform.yaml': manifestText });
    cleanup = tree.cleanup;
    const loaded = await loadManifests({ paths: [], cwd: tree.dir, env: { HOME: '/root' } });
    const expected = template.prompt?.text.replaceAll('{{business}}', business).replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name])).replace(/\n$/, '');
    expect(loaded.state?.agents.get('receptionist')?.config.prompt).toBe(expected);
  });

  test('a value holding ${env:…} is text wherever it lands: escaped in the manifest, as it is in the prompt file', async () => {
    const template = readTemplate('receptionist');
    const values = resolveVariables(template, { ...SAMPLE_VALUES.receptionist, business: 'Acme ${env:HOME}' }).values;
    const scaffold = planScaffold({ template, values, agentId: '-OKspareAgent0000001' });
    expect(scaffold.envVars).toEqual([]);
    expect(fileOf(scaffold.files, 'prompts/receptionist.md')).toContain('Acme ${env:HOME}');
    const tree = await makeTree(Object.fromEntries(scaffold.files.filter((f) => f.mode === 'create').map((f) => [f.path, f.content])));
    cleanup = tree.cleanup;
    const loaded = await loadManifests({ paths: [], cwd: tree.dir, env: { HOME: '/root' } });
    const agent = loaded.state?.agents.get('receptionist');
    expect(agent?.name).toBe('Acme ${env:HOME} receptionist');
    expect(agent?.config.first_message).toContain('Acme ${env:HOME}');
  });

  test('the template comments carry over into the manifest', () => {
    const manifestText = fileOf(scaffoldOf('receptionist').files, 'voxform.yaml');
    expect(manifestText).toContain('first_messsage: false # the service spells it with three s');
  });

  test('a comment above the first key of agent: stays above that key, not above the id put before it', async () => {
    const tree = await makeTree({
      'cm/template.yaml': 'description: C.\nagent:\n  # Comment above name.\n  name: n\n  config:\n    # Comment above first_message.\n    first_message: hi\n',
    });
    cleanup = tree.cleanup;
    const template = await readTemplateAt(path.join(tree.dir, 'cm'));
    const manifestText = fileOf(planScaffold({ template, values: {}, agentId: '-OKspareAgent0000001' }).files, 'voxform.yaml');
    expect(manifestText.slice(manifestText.indexOf('agents:'))).toBe(
      'agents:\n  cm:\n    id: -OKspareAgent0000001\n    # Comment above name.\n    name: n\n    config:\n      # Comment above first_message.\n      first_message: hi\n',
    );
    expect(formatManifest(manifestText, 'voxform.yaml').changed).toBe(false);
  });

  test("the comments above agent: and at the end of its block carry over, above the agent's entry and at the end of it; those of variables: stay in the template", async () => {
    const tree = await makeTree({
      'mini/template.yaml': [
        'description: Minimal template',
        '# The variable the greeting uses.',
        'variables:',
        '  business: { description: The business, required: true }',
        '# One line per business.',
        'agent:',
        '  config:',
        '    first_message: Hello from {{business}}.',
        '  name: "{{business}} line"',
        '  # Attach the FAQ once it is uploaded:',
        '  # knowledge: [faq]',
        '',
      ].join('\n'),
    });
    cleanup = tree.cleanup;
    const template = await readTemplateAt(path.join(tree.dir, 'mini'));
    const manifestText = fileOf(planScaffold({ template, values: { business: 'Acme' }, agentId: '-OKspareAgent0000003' }).files, 'voxform.yaml');
    expect(manifestText.slice(manifestText.indexOf('agents:'))).toBe(
      'agents:\n  # One line per business.\n  mini:\n    id: -OKspareAgent0000003\n    name: "Acme line"\n    config:\n      first_message: Hello from Acme.\n    # Attach the FAQ once it is uploaded:\n    # knowledge: [faq]\n',
    );
    expect(formatManifest(manifestText, 'voxform.yaml').changed).toBe(false);
  });

  test('lists the environment variables the manifest needs', () => {
    expect(scaffoldOf('appointment-booking').envVars).toEqual(['CALENDAR_TOKEN']);
    expect(scaffoldOf('receptionist').envVars).toEqual([]);
  });

  test('lists only the variables the manifest reads: none for ${env:…} in a key or a comment, which are not interpolated', async () => {
    const tree = await makeTree({
      'kw/template.yaml': [
        'description: Keys.',
        'variables:',
        '  word: { description: A word, default: Acme }',
        'agent:',
        '  name: n',
        '  config:',
        '    # Set ${env:NOTE_IN_COMMENT} before plan.',
        '    custom_vocabulary: { keywords: { "{{word}}": 2 } }',
        '    session_data_webhook: "https://hooks.example/x?token=${env:HOOK_TOKEN}"',
        '',
      ].join('\n'),
    });
    cleanup = tree.cleanup;
    const template = await readTemplateAt(path.join(tree.dir, 'kw'));
    const scaffold = planScaffold({ template, values: resolveVariables(template, { word: '${env:HOME}' }).values, agentId: '-OKspareAgent0000001' });
    expect(fileOf(scaffold.files, 'voxform.yaml')).toContain('"${env:HOME}": 2');
    expect(scaffold.envVars).toEqual(['HOOK_TOKEN']);
  });

  test('the targets are known before any value', () => {
    expect(scaffoldTargets(readTemplate('receptionist')).paths.map((p) => [p.path, p.mode])).toEqual([
      ['voxform.yaml', 'create'],
      ['prompts/receptionist.md', 'create'],
      ['.voxform/manifest.schema.json', 'refresh'],
      ['.gitignore', 'merge'],
    ]);
  });
});

describe('envReferences', () => {
  test('finds ${env:NAME} without a default, once each, in order', () => {
    expect(envReferences('a: ${env:B}\nb: ${env:A:-x}\nc: "Bearer ${env:B}" ${env:C}')).toEqual(['B', 'C']);
  });

  test('an escaped $${env:NAME} is text, not a reference: no variable to set', () => {
    expect(envReferences('a: ${env:A}\nb: $${env:B}\nc: ${env:not a name} ${env:A:-}')).toEqual(['A']);
  });
});

describe('writeScaffold', () => {
  const init = { command: 'voxform init', displayDir: 'project', own: { cwd: '/' }, checkout: CheckoutFiles.ANY } as const;
  const files: ScaffoldFile[] = [
    { path: 'voxform.yaml', mode: 'create', content: 'version: 1\n' },
    { path: 'prompts/a.md', mode: 'create', content: '# Role\n' },
    { path: '.voxform/manifest.schema.json', mode: 'refresh', content: '{}\n' },
    { path: '.gitignore', mode: 'merge', content: '.voxform/local.json' },
  ];
  /** Writes as init does: under the root refuseOutsideProject finds once it has checked the files' places. */
  async function write(dir: string, scaffold: ScaffoldFile[], force: boolean) {
    return writeScaffold(dir, scaffold, { force, ...init, existing: await refuseOutsideProject(dir, scaffold, init) });
  }

  test('writes everything into a new folder', async () => {
    const tree = await makeTree({});
    cleanup = tree.cleanup;
    const dir = path.join(tree.dir, 'new/project');
    const result = await write(dir, files, false);
    expect(result).toEqual({ created: ['voxform.yaml', 'prompts/a.md', '.voxform/manifest.schema.json', '.gitignore'], overwritten: [], updated: [], kept: [] });
    expect(await readFile(path.join(dir, 'prompts/a.md'), 'utf8')).toBe('# Role\n');
  });

  test('makes every folder on the way to a file, however deep', async () => {
    const tree = await makeTree({});
    cleanup = tree.cleanup;
    const dir = path.join(tree.dir, 'new');
    const result = await write(dir, [{ path: 'a/b/c.md', mode: 'create', content: 'deep\n' }], false);
    expect(result.created).toEqual(['a/b/c.md']);
    expect(await readFile(path.join(dir, 'a/b/c.md'), 'utf8')).toBe('deep\n');
  });

  test('writes nothing when any file would be overwritten, and names them all', async () => {
    const tree = await makeTree({ 'voxform.yaml': 'mine\n', 'prompts/a.md': 'mine too\n' });
    cleanup = tree.cleanup;
    let caught: unknown;
    await write(tree.dir, files, false).catch((error: unknown) => (caught = error));
    expect(isVoxformError(caught) && caught.code).toBe('would_overwrite');
    expect((caught as Error).message).toContain('voxform.yaml and prompts/a.md');
    await expect(readFile(path.join(tree.dir, '.gitignore'), 'utf8')).rejects.toThrow();
    await expect(readFile(path.join(tree.dir, '.voxform/manifest.schema.json'), 'utf8')).rejects.toThrow();
    expect(await readFile(path.join(tree.dir, 'voxform.yaml'), 'utf8')).toBe('mine\n');
  });

  test('with force: overwrites, refreshes the schema, merges .gitignore', async () => {
    const tree = await makeTree({ 'voxform.yaml': 'mine\n', '.voxform/manifest.schema.json': 'old\n', '.gitignore': 'dist/\n' });
    cleanup = tree.cleanup;
    const result = await write(tree.dir, files, true);
    expect(result).toEqual({ created: ['prompts/a.md'], overwritten: ['voxform.yaml', '.voxform/manifest.schema.json'], updated: ['.gitignore'], kept: [] });
    expect(await readFile(path.join(tree.dir, '.gitignore'), 'utf8')).toContain('dist/\n\n# voxform');
  });

  test('without force, an existing schema copy is kept, not a conflict', async () => {
    const tree = await makeTree({ '.voxform/manifest.schema.json': 'old\n', '.gitignore': '.voxform/\n' });
    cleanup = tree.cleanup;
    const result = await write(tree.dir, files, false);
    expect(result.kept).toEqual(['.voxform/manifest.schema.json']);
    expect(result.updated).toEqual([]);
    expect(await readFile(path.join(tree.dir, '.voxform/manifest.schema.json'), 'utf8')).toBe('old\n');
  });
});
