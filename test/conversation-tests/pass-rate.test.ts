import { describe, expect, it } from 'vitest';
import { expectCode, runCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const MANIFEST = 'version: 1\nagents:\n  desk:\n    id: -OKdqbqetEcM4ak369ym\n    config: { prompt: "You answer the phone for Acme." }\n';
const testFile = (passRate: string) =>
  ['agent: desk', 'tests:', '  - name: never passes', '    turns:', '      - expect: [{ contains: "words no agent says" }]', '    repeat: 2', `    pass_rate: ${passRate}`, ''].join('\n');

describe('pass_rate', () => {
  it('0 is refused at its place: a test no run needs to pass would pass whatever the agent says', { timeout: 120_000 }, async () => {
    for (const zero of ['0', '0.0', '-0']) {
      const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/a.test.yaml': testFile(zero) });
      const result = await runCli(['test', '--local'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).not.toContain('PASS');
      expect(result.stderr).toContain(
        'tests/a.test.yaml:7:16  error[invalid_value]: tests[0].pass_rate is 0: no run would need to pass, so the test would pass whatever the agent says; give the share of runs that must pass, above 0 and at most 1 (0.5: half of them), or leave it out for every run\n',
      );
      expect(result.stderr).toContain('error[tests_invalid]: The test files have 1 error (listed above); no test was run.');
    }
  });

  it('above 0 lets the test fail when no run passes', { timeout: 120_000 }, async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/a.test.yaml': testFile('0.01') });
    const result = expectCode(await runCli(['test', '--local'], { cwd: dir }), 1);
    expect(result.stdout).toContain('FAIL  never passes');
  });
});
