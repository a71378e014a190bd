import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Document } from 'yaml';
import { readTemplateAt, type Template } from '../../src/templates/catalog.js';
import { answerProblem, expandTemplate, resolveVariables } from '../../src/init/expand.js';
import { isVoxformError, type VoxformError } from '../../src/errors.js';
import { makeTree } from '../helpers/cli.js';
import { templateFiles } from '../templates/fixtures.js';

let template: Template;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTree({
    ...templateFiles(),
    'keys/template.yaml': [
      'description: Keys and types.',
      'variables:',
      '  word: { description: A word to boost, default: Acme }',
      '  temp: { description: Temperature, default: 0.4 }',
      '  multilingual: { description: Multilingual speech, default: false }',
      'agent:',
      '  config:',
      '    custom_vocabulary: { keywords: { "{{word}}": 2 } }',
      '    llm: { temperature: "{{temp}}" }',
      '    speech_to_text: { multilingual: "{{multilingual}}" }',
      '',
    ].join('\n'),
    'hook/template.yaml': [
      'description: A webhook two variables fill.',
      'variables:',
      '  business: { description: B, required: true }',
      '  scheme: { description: S, required: true }',
      '  host: { description: H, required: true }',
      'agent:',
      '  name: "{{business}}"',
      '  config:',
      '    session_data_webhook: "{{scheme}}://{{host}}/hook"',
      '',
    ].join('\n'),
    'bad/template.yaml': [
      'description: Makes a bad agent.',
      'variables:',
      '  delay: { description: Delay, default: 300 }',
      'agent:',
      '  config:',
      '    flow:',
      '      response_delay: "{{delay}}"',
      '      interruption: { allowd: true }',
      '',
    ].join('\n'),
  }));
  template = await readTemplateAt(path.join(dir, 'tpl'));
});
afterAll(() => cleanup());

describe('resolveVariables', () => {
  const cases: Array<{ name: string; given: Record<string, string | number | boolean>; values: Record<string, unknown>; missing: string[]; unknown: string[] }> = [
    { name: 'defaults fill what is not given', given: { business: 'Acme' }, values: { business: 'Acme', delay: 300 }, missing: [], unknown: [] },
    { name: 'a required variable without a value is missing', given: {}, values: { delay: 300 }, missing: ['business'], unknown: [] },
    { name: 'an empty string is no value for a required variable', given: { business: '' }, values: { delay: 300 }, missing: ['business'], unknown: [] },
    { name: 'an empty string is no value for an optional variable either: its default applies', given: { business: 'Acme', delay: '' }, values: { business: 'Acme', delay: 300 }, missing: [], unknown: [] },
    { name: 'a string takes the type of the default', given: { business: 'Acme', delay: '450' }, values: { business: 'Acme', delay: 450 }, missing: [], unknown: [] },
    { name: 'a string that is not a number stays a string (the schema says why)', given: { business: 'Acme', delay: 'soon' }, values: { business: 'Acme', delay: 'soon' }, missing: [], unknown: [] },
    { name: 'undeclared names are reported in the order given', given: { zeta: 1, business: 'A', alpha: 2 }, values: { business: 'A', delay: 300 }, missing: [], unknown: ['zeta', 'alpha'] },
  ];
  test.each(cases)('$name', ({ given, values, missing, unknown }) => {
    const resolved = resolveVariables(template, given);
    expect(resolved.values).toEqual(values);
    expect(resolved.missing.map((v) => v.name)).toEqual(missing);
    expect(resolved.unknown).toEqual(unknown);
  });
});

describe('expandTemplate', () => {
  test('replaces variables in values and the prompt; a whole-value placeholder keeps its type', () => {
    const expanded = expandTemplate(template, { business: 'Acme Dental', delay: 250 });
    expect(expanded.agent).toEqual({
      name: 'Acme Dental desk',
      config: { prompt: { file: 'prompt.md' }, first_message: 'Hello from Acme Dental!', flow: { response_delay: 250 } },
    });
    expect(expanded.prompt).toEqual({ text: '# Role\nYou answer for Acme Dental.\n', source: path.join(dir, 'tpl/prompt.md') });
  });

  test('keeps the template itself untouched (it works on a copy)', () => {
    expandTemplate(template, { business: 'Once', delay: 1 });
    expect(expandTemplate(template, { business: 'Twice', delay: 2 }).agent.name).toBe('Twice desk');
  });

  test('replaces variables in keys, and numbers and booleans print as such', async () => {
    const keys = await readTemplateAt(path.join(dir, 'keys'));
    const expanded = expandTemplate(keys, resolveVariables(keys, { word: 'Nimbus', multilingual: 'true' }).values);
    expect(expanded.agent).toEqual({
      config: { custom_vocabulary: { keywords: { Nimbus: 2 } }, llm: { temperature: 0.4 }, speech_to_text: { multilingual: true } },
    });
    const doc = new Document();
    doc.contents = expanded.node;
    expect(doc.toString()).toContain('llm: { temperature: 0.4 }');
    expect(doc.toString()).toContain('multilingual: true }');
  });

  test('an agent the schema rejects points into template.yaml', async () => {
    const bad = await readTemplateAt(path.join(dir, 'bad'));
    let caught: unknown;
    try {
      expandTemplate(bad, { delay: 300 });
    } catch (error) {
      caught = error;
    }
    expect(isVoxformError(caught)).toBe(true);
    const error = caught as VoxformError;
    expect(error.code).toBe('template_invalid');
    expect(error.message).toBe('Template bad makes an invalid agent: unknown field "allowd" in flow.interruption; did you mean "allowed"?');
    expect(error.location).toEqual({ file: path.join(dir, 'bad/template.yaml'), line: 8, col: 23 });
  });

  test('refuses to expand without a value for every variable', () => {
    expect(() => expandTemplate(template, { delay: 1 })).toThrow(/needs values for business/);
  });
});

describe('answerProblem: an answer checked before the values still to come', () => {
  test('judges a value only once every variable that fills it is given, and names them all', async () => {
    const hook = await readTemplateAt(path.join(dir, 'hook'));
    expect(answerProblem(hook, { business: 'Acme' }, { answered: 'business', pending: ['scheme', 'host'] })).toBeUndefined();
    expect(answerProblem(hook, { business: 'Acme', scheme: 'ftp' }, { answered: 'scheme', pending: ['host'] })).toBeUndefined();
    const problem = answerProblem(hook, { business: 'Acme', scheme: 'ftp', host: 'x' }, { answered: 'host', pending: [] });
    expect(problem?.code).toBe('init_value_invalid');
    expect(problem?.details).toEqual({ variables: ['scheme', 'host'] });
    expect(answerProblem(hook, { business: 'Acme', scheme: 'https', host: 'x' }, { answered: 'host', pending: [] })).toBeUndefined();
  });

  test('does not blame the answer for a value given before it', async () => {
    const hook = await readTemplateAt(path.join(dir, 'hook'));
    expect(answerProblem(hook, { scheme: 'ftp', host: 'x', business: 'Acme' }, { answered: 'business', pending: [] })).toBeUndefined();
  });
});
