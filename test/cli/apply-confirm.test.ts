import { afterEach, describe, expect, it } from 'vitest';
import { run as apply } from '../../src/cli/commands/apply.js';
import { makeContext } from '../helpers/context.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('voxform apply on a terminal', () => {
  it('asks first, and changes nothing when the answer is not yes', async () => {
    project = await startExampleProject();
    const questions: string[] = [];
    const { ctx, captured, close } = makeContext({ cwd: project.dir, env: project.env, tty: true, confirm: async (q) => (questions.push(q), false) });
    try {
      expect(await apply({}, ctx)).toBe(1);
    } finally {
      await close();
    }
    expect(questions).toEqual(['\nApply these changes?']);
    expect(captured.stdout).toContain('Plan: 3 to create, 4 to update, 0 unchanged');
    expect(captured.stderr).toContain('Apply cancelled; nothing changed.');
    expect(project.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('applies when the answer is yes', async () => {
    project = await startExampleProject();
    let asked = 0;
    const yes = makeContext({ cwd: project.dir, env: project.env, tty: true, confirm: async () => (asked++, true) });
    try {
      expect(await apply({}, yes.ctx)).toBe(0);
    } finally {
      await yes.close();
    }
    expect(asked).toBe(1);
    expect(yes.captured.stdout).toContain('Apply complete: 7 applied, 0 failed, 0 skipped.');
  });
});
