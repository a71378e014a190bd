import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { listTemplates } from '../../src/templates/catalog.js';
import { makeTree, runCliInProcess } from '../helpers/cli.js';
import { SAMPLE_VALUES } from '../templates/fixtures.js';

describe('voxform templates', () => {
  test('lists every template with its description and variables', async () => {
    const result = await runCliInProcess(['templates']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const template of await listTemplates()) {
      expect(result.stdout).toContain(`${template.name}\n  ${template.description}\n`);
      for (const variable of template.variables) {
        expect(result.stdout).toMatch(new RegExp(`\\n    ${variable.name} +${variable.required ? 'required' : 'optional'}  `));
      }
    }
    expect(result.stdout).toContain('  optional  The name the agent introduces itself with (default: Ava)');
    expect(result.stdout).toContain('Every template also needs agent_id');
    expect(result.stdout).toContain('voxform init --template receptionist');
  });
});

describe('template: + vars: in a manifest', () => {
  test('every template loads, validates, applies to the embedded emulator and then plans to no changes', async () => {
    const agents = (await listTemplates()).map((template, index) => ({
      [template.name]: { id: `-OKspareAgent000000${index + 1}`, template: template.name, vars: SAMPLE_VALUES[template.name] },
    }));
    expect(agents.length).toBeLessThanOrEqual(5); // one spare agent of the seed each
    const manifest = stringify({ version: 1, agents: Object.assign({}, ...agents) });
    const { dir, cleanup } = await makeTree({ 'voxform.yaml': manifest });
    try {
      // Distinct, realistic tokens: every secret is scrubbed from the output however short, so one-letter values would mangle it.
      const env = { CALENDAR_TOKEN: 'calendar-token-1', CRM_WEBHOOK_TOKEN: 'crm-token-2', HELPDESK_TOKEN: 'helpdesk-token-3', SURVEY_WEBHOOK_TOKEN: 'survey-token-4' };
      const validate = await runCliInProcess(['validate'], { cwd: dir, env });
      expect(validate.stderr).toBe('');
      expect(validate.code).toBe(0);
      const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env });
      expect(apply.stderr).not.toMatch(/error/i);
      expect(apply.code).toBe(0);
      const plan = await runCliInProcess(['plan', '--local', '--detailed-exitcode'], { cwd: dir, env });
      expect(plan.stderr).toBe('');
      expect(plan.stdout).toContain('No changes');
      expect(plan.code).toBe(0);
    } finally {
      await cleanup();
    }
  });
});
