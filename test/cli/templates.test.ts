import { describe, expect, test } from 'vitest';
import { listTemplates } from '../../src/templates/catalog.js';
import { runCli } from '../helpers/cli.js';

describe('voxform templates', () => {
  test('lists every template with its description and variables', async () => {
    const result = await runCli(['templates']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const template of listTemplates()) {
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
