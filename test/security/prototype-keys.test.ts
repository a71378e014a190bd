/**
 * A manifest's free-form maps may hold any key, `__proto__` included. Walking such a key with
 * `object[key]` reaches Object.prototype: a value written there appears on every object of the
 * process — an option the operator did not pass (`out`) among them. An audit got `plan` to save
 * its plan to a path of the manifest's choosing, outside the project, this way.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

it('a `__proto__` key in a manifest steers no option: plan writes no file and reaches no other object', async () => {
  const outside = await tempDir();
  const planned = path.join(outside, 'plan-written.json');
  const project = await tempDir();
  await writeFile(
    path.join(project, 'voxform.yaml'),
    [
      'version: 1',
      'agents:',
      '  front-desk:',
      '    id: -OKdqbqetEcM4ak369ym',
      '    config:',
      `      voice: { settings: { __proto__: { out: ${JSON.stringify(planned)}, detailedExitcode: true } } }`,
      '',
    ].join('\n'),
  );
  const result = await runCliInProcess(['plan', '--local'], { cwd: project });
  expect(result.stderr).not.toContain('Saved the plan');
  expect(existsSync(planned)).toBe(false);
  expect(result.stderr).not.toMatch(/is not a known field|unexpected problem/);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('~ agent.front-desk');
});
