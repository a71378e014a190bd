/**
 * An error that comes after a command has printed on stdout goes to stderr as text, with
 * `--format json` too (docs/errors.md): stdout stays the one document the command printed, never
 * that document with an error envelope glued after it. The real CLI, as a script runs it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import { acquireStateLock } from '../../src/state/lock.js';
import { callService, startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

it('drift --heal --format json whose heal is refused by a lock: stdout is the drift report alone, the refusal comes on stderr, exit 1', async () => {
  const p = (project = await startExampleProject());
  await writeFile(path.join(p.dir, 'voxform.yaml'), 'version: 1\nagents:\n  front-desk:\n    id: -OKspareAgent0000001\n    config:\n      first_message: "v1"\n');
  expect((await p.cli(['apply', '--auto-approve'])).code).toBe(0);
  const id = '-OKspareAgent0000001';
  const live = (await callService(p, 'GET', `/agents/${id}`)) as Agent;
  await callService(p, 'PUT', `/agents/${id}`, { name: live.name, config: { first_message: 'edited on the dashboard' } });

  // Another run holds the state: the heal is refused after the report was printed.
  const lock = await acquireStateLock(path.join(p.dir, '.voxform/state.json'), { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
  try {
    // As a process, and as a command line run inside another (`ci run`): the same rule.
    for (const healed of [await p.cli(['drift', '--heal', '--auto-approve', '--format', 'json']), await p.cliInProcess(['drift', '--heal', '--auto-approve', '--format', 'json'])]) {
      expect(healed.code, healed.stderr).toBe(1);
      const report = JSON.parse(healed.stdout) as { resources: Array<{ address: string; class: string }> };
      expect(report.resources.map((resource) => [resource.address, resource.class])).toEqual([['agent.front-desk', 'outside']]);
      expect(healed.stderr).toMatch(/^error\[state_locked\]: /m);
    }
  } finally {
    await lock.release();
  }
});
