/** An empty `VOXFORM_STATE` or `--state ""` is refused by every command, never taken for the default state file. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExampleProject, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const COMMANDS = [['status'], ['plan'], ['apply', '--auto-approve'], ['history'], ['drift'], ['state', 'list'], ['state', 'show'], ['state', 'upgrade']];

describe('a state location given empty', () => {
  it.each([
    ['VOXFORM_STATE set to ""', [], { VOXFORM_STATE: '' }, 'error[state_location_empty]: VOXFORM_STATE is set but empty'],
    ['--state ""', ['--state', ''], {}, 'error[state_location_empty]: --state is empty'],
    ['--state " " over a VOXFORM_STATE', ['--state', ' '], { VOXFORM_STATE: 'elsewhere.json' }, 'error[state_location_empty]: --state is empty'],
  ])('%s: every command refuses it, exit 1, and no state file is made', async (_name, stateArgs, env, refusal) => {
    const dir = await tempDir();
    await copyExampleProject(dir);
    for (const command of COMMANDS) {
      const result = await runCliInProcess([...command, ...stateArgs], { cwd: dir, env: { VOXFORM_API_KEY: 'unused-key', ...env } });
      expect({ command, code: result.code, stderr: result.stderr.split('\n')[0] }).toEqual({ command, code: 1, stderr: expect.stringContaining(refusal) });
      expect(result.stderr).toContain('hint: Give a postgres:// URL or a file path');
    }
    expect(existsSync(path.join(dir, '.voxform'))).toBe(false);
  });
});
