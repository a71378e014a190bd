/**
 * The files the operator names to the emulator (`--seed`, `--traffic`, `emulator traffic --profile`)
 * are read as every other file input: a regular file within its cap, opened without blocking. A FIFO
 * would hold the open forever (past Ctrl-C), a link to `/dev/zero` be read until memory runs out.
 */
import { execFileSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const INPUTS: Array<[string, (file: string) => string[], (file: string, kind: string) => string]> = [
  ['emulator --seed', (file) => ['emulator', '--port', '0', '--seed', file], (file, kind) => `error[emulator_seed_unreadable]: The seed file ${file} is ${kind}, not a regular file.`],
  ['emulator --traffic', (file) => ['emulator', '--port', '0', '--traffic', file], (file, kind) => `error[traffic_profile_unreadable]: Cannot read the traffic profile ${file}: it is ${kind}, not a regular file.`],
  ['emulator traffic --profile', (file) => ['emulator', 'traffic', '--local', '--profile', file], (file, kind) => `error[traffic_profile_unreadable]: Cannot read the traffic profile ${file}: it is ${kind}, not a regular file.`],
];

describe('a file the operator names to the emulator', () => {
  it.each(INPUTS)('%s refuses a FIFO and a link to a device at once, never waiting on it', { timeout: 20_000 }, async (_name, args, message) => {
    const dir = await tempDir();
    execFileSync('mkfifo', [path.join(dir, 'seed.yaml')]);
    await symlink('/dev/zero', path.join(dir, 'zero.yaml'));
    for (const [file, kind] of [
      ['seed.yaml', 'a FIFO (named pipe)'],
      ['zero.yaml', 'a device'],
    ] as const) {
      const result = await runCliInProcess(args(file), { cwd: dir });
      const shown = args(file).includes('--seed') ? path.join(dir, file) : file;
      expect(result.stderr, file).toContain(message(shown, kind));
      expect(result.code, file).toBe(1);
    }
  });
});
