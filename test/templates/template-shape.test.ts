/**
 * The rules of a template.yaml (src/templates/template-shape.ts), checked once for `voxform init`
 * and a manifest's `template:` alike.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkTemplateShape } from '../../src/templates/template-shape.js';
import { loadManifests } from '../../src/manifest/load.js';
import { readTemplateAt } from '../../src/templates/catalog.js';
import { isVoxformError } from '../../src/errors.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const valid = {
  description: 'A desk.',
  variables: { business: { description: 'The business', required: true }, delay: { description: 'Delay', default: 300 } },
  agent: { name: '{{business}} desk', config: { first_message: 'Hi' } },
};

describe('checkTemplateShape', () => {
  test('reads a valid template: its description, variables in order, and agent', () => {
    const shape = checkTemplateShape(valid);
    expect(shape.problems).toEqual([]);
    expect(shape.description).toBe('A desk.');
    expect(shape.variables).toEqual([
      { name: 'business', description: 'The business', required: true, default: undefined },
      { name: 'delay', description: 'Delay', required: false, default: 300 },
    ]);
    expect(shape.agent).toEqual(valid.agent);
  });

  test('names every problem, with the place to point at', () => {
    const shape = checkTemplateShape({
      descripton: 'typo',
      variables: { agent_id: { description: 'x', required: true }, '1bad': {}, both: { description: 'B', required: true, default: 1 }, none: { description: 'N' } },
      agent: { id: 'ag_1', vars: {}, nme: 'X' },
    });
    expect(shape.problems.map((p) => [p.code, p.message, p.places[0]])).toEqual([
      ['unknown_field', '"descripton" is not known at the top of template.yaml; did you mean "description"?', { path: ['descripton'], at: 'key' }],
      ['template_invalid', 'needs a one-line description', { path: ['description'], at: 'value' }],
      ['template_invalid', 'agent_id is built in (every `voxform init` asks for it); remove it from variables', { path: ['variables', 'agent_id'], at: 'key' }],
      ['template_invalid', 'the variable name "1bad" must be letters, digits and _, not starting with a digit', { path: ['variables', '1bad'], at: 'key' }],
      ['template_invalid', 'variable both is required and has a default; keep one of the two', { path: ['variables', 'both', 'required'], at: 'value' }],
      ['template_invalid', 'variable none needs required: true or a default', { path: ['variables', 'none'], at: 'key' }],
      ['template_invalid', 'a template must not set id: each manifest adopts its own live agent', { path: ['agent', 'id'], at: 'key' }],
      ['template_invalid', 'a template must not set vars: templates do not nest', { path: ['agent', 'vars'], at: 'key' }],
      ['unknown_field', '"nme" is not known in agent; did you mean "name"?', { path: ['agent', 'nme'], at: 'key' }],
    ]);
  });

  test('refuses what is not a mapping, and an agent that is not one', () => {
    expect(checkTemplateShape(['a']).problems.map((p) => p.message)).toEqual(['template.yaml must be a mapping with description, variables and agent']);
    const shape = checkTemplateShape({ description: 'D.', agent: 'x' });
    expect(shape.agent).toBeUndefined();
    expect(shape.problems.map((p) => p.message)).toEqual(['needs an agent: a mapping with name and config (an agent of a manifest, without id)']);
  });
});

describe('init and a manifest judge a template alike', () => {
  const broken = 'description: A desk.\nvariables:\n  agent_id: { description: The id, required: true }\nagent: { name: X }\n';

  test('voxform init refuses it at the place', async () => {
    const dir = await tempDir({ 'templates/desk/template.yaml': broken });
    let caught: unknown;
    await readTemplateAt(path.join(dir, 'templates', 'desk')).catch((error: unknown) => (caught = error));
    expect(isVoxformError(caught) && [caught.code, caught.message, caught.location]).toEqual([
      'template_invalid',
      'Template desk: agent_id is built in (every `voxform init` asks for it); remove it from variables.',
      { file: path.join(dir, 'templates', 'desk', 'template.yaml'), line: 3, col: 3 },
    ]);
  });

  test('a manifest using it gets the same sentence at the same place', async () => {
    const dir = await tempDir({
      'templates/desk/template.yaml': broken,
      'voxform.yaml': 'version: 1\nagents:\n  desk: { id: ag_1, template: desk }\n',
    });
    const result = await loadManifests({ paths: [], cwd: dir, env: {}, templatesDir: path.join(dir, 'templates') });
    const shown = result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`);
    expect(shown).toEqual(['templates/desk/template.yaml:3:3 template_invalid agent_id is built in (every `voxform init` asks for it); remove it from variables']);
  });
});
