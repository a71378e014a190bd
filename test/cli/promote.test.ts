/**
 * `voxform promote`'s flags, through the built CLI: an environment `--to` or `--from` mistypes is the
 * flag's mistake, named as such with the likely environment, before anything is read from the service.
 */
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const MANIFEST = [
  'version: 1',
  'agents:',
  '  front-desk:',
  '    id: -OKdqbqetEcM4ak369ym',
  '    config: { prompt: "You are the receptionist of Acme Dental." }',
  'environments:',
  '  staging:',
  '    agents: { front-desk: { id: -OKstagingFrontDesk01 } }',
  '  production:',
  '    promote_from: staging',
  '',
].join('\n');

describe('voxform promote --to / --from', () => {
  it('names the flag that holds an unknown environment, with the one it likely meant, and no manifest error', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    const cases: Array<[string[], string]> = [
      [['--to', 'prod'], 'error[invalid_argument]: --to names the environment "prod", which the manifests do not define; did you mean "production"?'],
      [['--to', 'production', '--from', 'stagin'], 'error[invalid_argument]: --from names the environment "stagin", which the manifests do not define; did you mean "staging"?'],
      [['--to', 'qa'], 'error[invalid_argument]: --to names the environment "qa", which the manifests do not define.'],
    ];
    for (const [flags, message] of cases) {
      const result = await runCliInProcess(['promote', ...flags, '--local', '--dry-run'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`${message}\n  hint: The manifests define "production", "staging" (under \`environments:\`).\n`);
      expect(result.stdout).toBe('');
    }
  });
});
