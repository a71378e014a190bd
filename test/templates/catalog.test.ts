import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { listTemplates, readTemplate, readTemplateAt, templateNames } from '../../src/templates/catalog.js';
import { variablesIn } from '../../src/templates/substitute.js';
import { isVoxformError, type VoxformError } from '../../src/errors.js';
import { makeTree } from '../helpers/cli.js';
import { templateFiles } from './fixtures.js';

const REQUIRED_TEMPLATES = ['appointment-booking', 'lead-qualification', 'post-call-survey', 'receptionist', 'support-triage'];

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function tree(files: Record<string, string>): Promise<string> {
  const made = await makeTree(files);
  cleanup = made.cleanup;
  return made.dir;
}

async function errorOf(fn: () => Promise<unknown>): Promise<VoxformError> {
  try {
    await fn();
  } catch (error) {
    if (isVoxformError(error)) return error;
    throw error;
  }
  throw new Error('expected a VoxformError');
}

const templates = await listTemplates();

describe('the shipped templates', () => {

  test('include the five a business runs', () => {
    expect(templateNames()).toEqual(expect.arrayContaining(REQUIRED_TEMPLATES));
  });

  test.each(templates.map((t) => [t.name, t] as const))('%s: one-line description, described variables, a careful prompt', (_name, template) => {
    expect(template.description).toMatch(/^[A-Z].{20,160}\.$/);
    expect(template.description).not.toContain('\n');
    expect(template.variables.length).toBeGreaterThan(0);
    for (const variable of template.variables) {
      expect(variable.description.length).toBeGreaterThan(10);
      expect(variable.required !== (variable.default !== undefined)).toBe(true);
    }
    expect(template.variables.find((v) => v.name === 'business')?.required).toBe(true);
    // The prompt is Markdown with the sections a voice agent needs.
    expect(template.prompt).toBeDefined();
    const prompt = template.prompt?.text ?? '';
    expect(prompt).toMatch(/^# Role\n/);
    expect(prompt).toMatch(/^# Never\n/m);
    expect(prompt.split('\n').length).toBeGreaterThan(40);
    // Every variable the template declares is used somewhere.
    const used = new Set([...variablesIn(prompt), ...variablesIn(template.document.toString())]);
    for (const variable of template.variables) expect(used, `${variable.name} is declared but unused`).toContain(variable.name);
  });

  test('appointment-booking has calendar tools with typed params and a token from the environment', async () => {
    const booking = await readTemplate('appointment-booking');
    const tools = booking.document.getIn(['agent', 'config', 'tools']) as { toJSON(): Array<Record<string, unknown>> };
    const list = tools.toJSON();
    expect(list.map((t) => t.name)).toEqual(expect.arrayContaining(['check_availability', 'book_appointment']));
    for (const tool of list) {
      expect(tool.webhook).toMatch(/^\{\{calendar_api_url\}\}\//);
      expect(['GET', 'POST']).toContain(tool.method);
      expect(tool.header).toEqual({ authorization: 'Bearer ${env:CALENDAR_TOKEN}' });
      for (const param of tool.params as Array<Record<string, unknown>>) {
        expect(Object.keys(param).sort()).toEqual(['description', 'name', 'required', 'type']);
      }
    }
  });

  test('support-triage transfers to a number variable and lists the queues', async () => {
    const triage = await readTemplate('support-triage');
    const transfer = (triage.document.getIn(['agent', 'config', 'flow', 'call_transfer']) as { toJSON(): Record<string, unknown> }).toJSON();
    expect(transfer.phone).toBe('{{support_number}}');
    expect((transfer.phones as unknown[]).length).toBeGreaterThanOrEqual(2);
  });

  test('the outbound templates let the callee speak first and handle voicemail', async () => {
    for (const name of ['lead-qualification', 'post-call-survey']) {
      const flow = ((await readTemplate(name)).document.getIn(['agent', 'config', 'flow']) as { toJSON(): Record<string, unknown> }).toJSON();
      expect(flow.user_start_first).toBe(true);
      expect(flow.voicemail).toMatchObject({ message: expect.any(String) });
    }
  });
});

describe('readTemplate', () => {
  test('an unknown name suggests the closest template and lists them all', async () => {
    const error = await errorOf(() => readTemplate('receptionst'));
    expect(error.code).toBe('template_unknown');
    expect(error.message).toContain('did you mean "receptionist"?');
    expect(error.hint).toContain('support-triage');
  });

  test('reads a template from a folder path', async () => {
    const dir = await tree(templateFiles());
    const template = await readTemplate('./tpl', { cwd: dir });
    expect(template.name).toBe('./tpl');
    expect(template.dir).toBe(path.join(dir, 'tpl'));
    expect(template.variables).toEqual([
      { name: 'business', description: 'The business', required: true, default: undefined },
      { name: 'delay', description: 'Response delay in ms', required: false, default: 300 },
    ]);
    expect(template.prompt?.text).toContain('{{ business }}');
  });

  test('a folder without template.yaml is a clear error', async () => {
    const dir = await tree({ 'empty/readme.md': 'x' });
    expect((await errorOf(() => readTemplate('./empty', { cwd: dir }))).code).toBe('template_unknown');
  });
});

describe('a broken template fails with file:line:col', () => {
  const cases: Array<{ name: string; files: Record<string, string>; code: string; message: RegExp; file: string; line: number; col: number }> = [
    {
      name: 'an undeclared {{variable}} in template.yaml',
      files: templateFiles({
        yaml: 'description: T.\nvariables:\n  business: { description: B, required: true }\nagent:\n  name: "{{business}} for {{ buisness }}"\n',
      }),
      code: 'template_unknown_variable',
      message: /uses \{\{buisness\}\}, which it does not declare; did you mean \{\{business\}\}\?/,
      file: 'tpl/template.yaml',
      line: 5,
      col: 27,
    },
    {
      name: 'an undeclared {{variable}} in the prompt',
      files: templateFiles({ prompt: '# Role\n\nYou work for {{business}} in {{city}}.\n' }),
      code: 'template_unknown_variable',
      message: /uses \{\{city\}\}/,
      file: 'tpl/prompt.md',
      line: 3,
      col: 30,
    },
    {
      name: 'an id in the agent',
      files: templateFiles({ yaml: 'description: T.\nagent:\n  id: ag_1\n  name: X\n' }),
      code: 'template_invalid',
      message: /must not set id/,
      file: 'tpl/template.yaml',
      line: 3,
      col: 3,
    },
    {
      name: 'a variable both required and defaulted',
      files: templateFiles({ yaml: 'description: T.\nvariables:\n  a: { description: A, required: true, default: x }\nagent: { name: X }\n' }),
      code: 'template_invalid',
      message: /is required and has a default/,
      file: 'tpl/template.yaml',
      line: 3,
      col: 34,
    },
    {
      name: 'a variable neither required nor defaulted',
      files: templateFiles({ yaml: 'description: T.\nvariables:\n  a: { description: A }\nagent: { name: X }\n' }),
      code: 'template_invalid',
      message: /needs required: true or a default/,
      file: 'tpl/template.yaml',
      line: 3,
      col: 3,
    },
    {
      name: 'the reserved agent_id',
      files: templateFiles({ yaml: 'description: T.\nvariables:\n  agent_id: { description: A, required: true }\nagent: { name: X }\n' }),
      code: 'template_invalid',
      message: /agent_id is built in/,
      file: 'tpl/template.yaml',
      line: 3,
      col: 3,
    },
    {
      name: 'a misspelt top-level key',
      files: templateFiles({ yaml: 'description: T.\nvariabels: {}\nagent: { name: X }\n' }),
      code: 'template_invalid',
      message: /"variabels" is not known at the top of template.yaml; did you mean "variables"\?/,
      file: 'tpl/template.yaml',
      line: 2,
      col: 1,
    },
    {
      name: 'a missing prompt file',
      files: { 'tpl/template.yaml': 'description: T.\nagent:\n  config:\n    prompt: { file: missing.md }\n' },
      code: 'template_invalid',
      message: /the prompt file missing.md does not exist/,
      file: 'tpl/template.yaml',
      line: 4,
      col: 21,
    },
    {
      name: 'a prompt file outside the template',
      files: { 'tpl/template.yaml': 'description: T.\nagent:\n  config:\n    prompt: { file: ../secret.md }\n', 'secret.md': 'x' },
      code: 'template_invalid',
      message: /must be inside the template folder/,
      file: 'tpl/template.yaml',
      line: 4,
      col: 21,
    },
    {
      name: 'a YAML syntax error',
      files: { 'tpl/template.yaml': 'description: T.\nagent:\n  name: [oops\n' },
      code: 'template_invalid',
      message: /Template tpl: /,
      file: 'tpl/template.yaml',
      line: 4,
      col: 1,
    },
  ];

  test.each(cases)('$name', async ({ files, code, message, file, line, col }) => {
    const dir = await tree(files);
    const error = await errorOf(() => readTemplateAt(path.join(dir, 'tpl')));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.location).toEqual({ file: path.join(dir, file), line, col });
  });
});
