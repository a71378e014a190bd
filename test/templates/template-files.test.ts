/**
 * The one reader of template files (src/templates/template-files.ts), used by `voxform init` and
 * by a manifest's `template:` alike: the same guards and limits for both.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { isVoxformError } from '../../src/errors.js';
import { MAX_MANIFEST_BYTES, MAX_PROMPT_FILE_BYTES } from '../../src/project-files/limits.js';
import { readTemplateAt } from '../../src/templates/catalog.js';
import { loadManifests } from '../../src/manifest/load.js';
import { readTemplateFile, readTemplateInclude, templateIncludePolicy, templateNamesIn, templateRoot } from '../../src/templates/template-files.js';
import { useTempDirs } from '../helpers/cli.js';
import { templateFiles } from './fixtures.js';

const tempDir = useTempDirs();

async function catalogError(folder: string) {
  try {
    await readTemplateAt(folder);
  } catch (error) {
    if (isVoxformError(error)) return error;
    throw error;
  }
  throw new Error('expected a VoxformError');
}

describe('reading a template file', () => {
  test('reads template.yaml inside its folder as UTF-8 text', async () => {
    const dir = await tempDir(templateFiles());
    const folder = path.join(dir, 'tpl');
    const read = await readTemplateFile(folder, await templateRoot(folder));
    expect(read.ok && read.text).toContain('description:');
    expect(read.ok && read.textProblem).toBeUndefined();
  });

  test('refuses a template.yaml that is a link out of the template folder, without reading it', async () => {
    const dir = await tempDir({ 'tpl/prompt.md': 'x', 'elsewhere.yaml': 'description: planted-secret-7f3a\n' });
    await symlink(path.join(dir, 'elsewhere.yaml'), path.join(dir, 'tpl', 'template.yaml'));
    const folder = path.join(dir, 'tpl');
    const read = await readTemplateFile(folder, await templateRoot(folder));
    expect(read).toMatchObject({ ok: false, reason: 'outside' });
    expect(JSON.stringify(read)).not.toContain('planted-secret-7f3a');
  });

  test('refuses a template.yaml past the manifest size limit', async () => {
    const dir = await tempDir({ 'tpl/template.yaml': `description: ${'x'.repeat(MAX_MANIFEST_BYTES)}\n` });
    const folder = path.join(dir, 'tpl');
    expect(await readTemplateFile(folder, await templateRoot(folder))).toMatchObject({ ok: false, reason: 'too_large' });
  });

  test('notes where the bytes stop being UTF-8', async () => {
    const dir = await tempDir({ 'tpl/template.yaml': Buffer.from([0x64, 0x3a, 0x20, 0xff, 0x0a]) });
    const folder = path.join(dir, 'tpl');
    const read = await readTemplateFile(folder, await templateRoot(folder));
    expect(read.ok && read.textProblem?.at).toBe(3);
  });

  test('reads an included prompt under the prompt file limit, inside the folder only', async () => {
    const dir = await tempDir({ ...templateFiles(), 'outside.md': 'planted-secret-9c1d' });
    const folder = path.join(dir, 'tpl');
    const root = await templateRoot(folder);
    expect(templateIncludePolicy(root)).toEqual({ root, maxBytes: MAX_PROMPT_FILE_BYTES });
    expect(await readTemplateInclude(folder, root, 'prompt.md')).toMatchObject({ ok: true });
    expect(await readTemplateInclude(folder, root, '../outside.md')).toMatchObject({ ok: false, reason: 'outside' });
    expect(await readTemplateInclude(folder, root, 'missing.md')).toMatchObject({ ok: false, reason: 'missing' });
  });

  test('lists the folders holding a template.yaml, sorted', async () => {
    const dir = await tempDir({ ...templateFiles(), 'b/template.yaml': 'x', 'notes/readme.md': 'x' });
    expect(templateNamesIn(dir)).toEqual(['b', 'tpl']);
    expect(templateNamesIn(path.join(dir, 'none'))).toEqual([]);
  });
});

describe("a manifest's template: reads them with these guards", () => {
  test('a template.yaml linked out of its folder is refused at the reference, saying why, without its content', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  desk: { id: ag_1, template: desk }\n', 'elsewhere.yaml': 'description: planted-secret-5e6f\n' });
    await mkdir(path.join(dir, 'templates', 'desk'), { recursive: true });
    await symlink(path.join(dir, 'elsewhere.yaml'), path.join(dir, 'templates', 'desk', 'template.yaml'));
    const result = await loadManifests({ paths: [], cwd: dir, env: {}, templatesDir: path.join(dir, 'templates') });
    const shown = result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`);
    expect(shown).toEqual([
      'voxform.yaml:3:31 file_outside_project template "desk": templates/desk/template.yaml is a symbolic link leading outside the project',
    ]);
    expect(JSON.stringify(result.diagnostics)).not.toContain('planted-secret-5e6f');
  });
});

describe('voxform init reads templates with the same guards', () => {
  test('a prompt linked out of the template folder is refused', async () => {
    const dir = await tempDir({ ...templateFiles(), 'outside.md': 'planted-secret-2b8e' });
    await writeFile(path.join(dir, 'tpl', 'prompt.md'), '');
    const linked = path.join(dir, 'tpl', 'linked.md');
    await symlink(path.join(dir, 'outside.md'), linked);
    const yaml = 'description: T.\nagent:\n  config:\n    prompt: { file: linked.md }\n';
    await writeFile(path.join(dir, 'tpl', 'template.yaml'), yaml);
    const error = await catalogError(path.join(dir, 'tpl'));
    expect(error.code).toBe('template_invalid');
    expect(error.message).toMatch(/the prompt file linked.md must be inside the template folder/);
    expect(error.message).not.toContain('planted-secret-2b8e');
  });

  test('a prompt past the prompt file limit is refused', async () => {
    const dir = await tempDir({ ...templateFiles(), 'tpl/prompt.md': 'x'.repeat(MAX_PROMPT_FILE_BYTES + 1) });
    const error = await catalogError(path.join(dir, 'tpl'));
    expect(error.code).toBe('template_invalid');
    expect(error.message).toMatch(/the prompt file prompt.md is .*; the limit is 2 MiB/);
  });

  test('a template.yaml that is not UTF-8 is refused at its first bad byte', async () => {
    const dir = await tempDir({ ...templateFiles(), 'tpl/template.yaml': Buffer.from('description: T.\nagent: { name: "\xff" }\n', 'latin1') });
    const error = await catalogError(path.join(dir, 'tpl'));
    expect(error.code).toBe('template_invalid');
    expect(error.message).toContain('template.yaml is not valid UTF-8 text');
    expect(error.location).toEqual({ file: path.join(dir, 'tpl', 'template.yaml'), line: 2, col: 17 });
  });
});
