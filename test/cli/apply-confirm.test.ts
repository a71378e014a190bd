import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { run as apply } from '../../src/cli/commands/apply.js';
import { askYesNo } from '../../src/cli/confirm.js';
import { VoxformError } from '../../src/errors.js';
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

  it.each([
    ['Ctrl-C', '\x03'],
    ['Ctrl-D', '\x04'],
  ])('%s at the question cancels: "Apply cancelled; nothing changed.", exit 130, nothing sent', async (_key, keystroke) => {
    project = await startExampleProject();
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString('utf8')));
    // The real prompt, on a stream driven as a terminal (raw keys), answered with the keystroke.
    const confirm = (question: string) => {
      const answer = askYesNo(question, { input, output, terminal: true });
      setImmediate(() => input.write(keystroke));
      return answer;
    };
    const { ctx, captured, close } = makeContext({ cwd: project.dir, env: project.env, tty: true, confirm });
    try {
      expect(await apply({}, ctx)).toBe(130);
    } finally {
      await close();
    }
    expect(shown).toContain('Apply these changes? (only "yes" is accepted)');
    expect(captured.stderr).toContain('Apply cancelled; nothing changed.');
    expect(captured.stderr).not.toMatch(/bug|error/);
    expect(project.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('the terminal question', () => {
  const ask = async (typed: string) => {
    const input = new PassThrough();
    const answer = askYesNo('Go?', { input, output: new PassThrough(), terminal: true });
    input.write(typed);
    return answer;
  };

  it('takes only "yes" as yes', async () => {
    expect(await ask('yes\r')).toBe(true);
    expect(await ask('y\r')).toBe(false);
    expect(await ask('no\r')).toBe(false);
  });

  it('is interrupted by Ctrl-C, Ctrl-D and the abort signal', async () => {
    await expect(ask('\x03')).rejects.toMatchObject({ code: 'interrupted' });
    await expect(ask('\x04')).rejects.toMatchObject({ code: 'interrupted' });
    const stop = new AbortController();
    const answer = askYesNo('Go?', { input: new PassThrough(), output: new PassThrough(), terminal: true, signal: stop.signal });
    stop.abort();
    await expect(answer).rejects.toBeInstanceOf(VoxformError);
  });
});
