/**
 * `voxform diff` loads the manifests once per environment; a warning both loads find is one
 * warning of the run, said once (docs/security.md §5: `env_value_short` once per variable).
 */
import { expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const MANIFEST = [
  'version: 1',
  'agents:',
  '  front-desk:',
  '    id: -OKdqbqetEcM4ak369ym',
  '    config:',
  '      first_message: "${env:PIN}"',
  '      prompt: "Say the code ${env:PIN} when asked."',
  'environments:',
  '  staging:',
  '    agents: { front-desk: { id: -OKdqbqetEcM4ak369yn } }',
  '  production: {}',
  '',
].join('\n');

it('warns of a short variable once, though both environments read it', async () => {
  const dir = await tempDir({ 'voxform.yaml': MANIFEST });
  const result = await runCliInProcess(['diff', '--env', 'staging', '--env', 'production', '--local'], { cwd: dir, env: { PIN: '4821' } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr.match(/warning\[env_value_short\]/g)).toHaveLength(1);
});
