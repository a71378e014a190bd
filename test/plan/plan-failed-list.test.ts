/** plan_failed lists as many problems as validate shows, then how many more and the total; JSON's details keeps every one. */
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

describe('a plan that fails for many resources', () => {
  it('shows the first 50 problems and "…and N more" with the total', async () => {
    const agents = Array.from({ length: 60 }, (_, i) => `  desk-${i}:\n    id: -OKmissingAgent${String(i).padStart(5, '0')}\n`).join('');
    const cwd = await tempDir({ 'voxform.yaml': `version: 1\nagents:\n${agents}` });
    const text = await runCliInProcess(['plan', '--local'], { cwd });
    expect(text.code).toBe(1);
    expect(text.stderr.match(/^ {2}voxform\.yaml:\d+:\d+: /gm)).toHaveLength(49);
    expect(text.stderr).toContain('\n  …and 10 more (60 in all; `--format json` lists every one in its details)');
    const json = await runCliInProcess(['plan', '--local', '--format', 'json'], { cwd });
    const error = (JSON.parse(json.stdout) as { error: { code: string; message: string; details: unknown[] } }).error;
    expect(error.code).toBe('plan_failed');
    expect(error.details).toHaveLength(60);
    expect(error.message.split('\n')).toHaveLength(51);
  });
});
