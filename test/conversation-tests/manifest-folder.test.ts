import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

describe('-f FOLDER with the tests beside the manifest, in FOLDER/tests', () => {
  it('test, validate and plan read the manifests of the folder, never its test files', { timeout: 120_000 }, async () => {
    const dir = await tempDir({
      'config/voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: -OKdqbqetEcM4ak369ym\n    config: { prompt: "v1" }\n',
      // A manifest in a subfolder, first in path order: the tests are still those beside the folder's top.
      'config/agents/more.yaml': 'phones:\n  "+15551230001": { agent: desk }\n',
      'config/tests/a.test.yaml': 'agent: desk\ntests:\n  - name: greets\n    turns:\n      - expect: [{ contains: Acme }]\n',
    });
    const test = await runCliInProcess(['test', '-f', 'config', '--local'], { cwd: dir });
    expect(test.stderr).toBe('');
    expect(test.stdout).toContain('config/tests/a.test.yaml (agent desk)\n  PASS  greets  [desired 1/1]\n');
    expect(test.code).toBe(0);
    const validate = await runCliInProcess(['validate', '-f', 'config'], { cwd: dir });
    expect(validate.stdout + validate.stderr).not.toContain('a.test.yaml');
    expect(validate.code).toBe(0);
    const plan = await runCliInProcess(['plan', '-f', 'config', '--local'], { cwd: dir });
    expect(plan.stderr).not.toContain('a.test.yaml');
    expect(plan.code).toBe(0);
  });
});
