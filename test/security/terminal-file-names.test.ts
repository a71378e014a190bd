/**
 * A file name is text voxform did not write (docs/security.md, "Printed text cannot drive a
 * terminal"): one holding exactly the sequences voxform writes itself on a terminal — a colour, the
 * progress line's `\r ESC[K` — or one that hides text (`ESC[8m`) is shown escaped on a terminal too,
 * with colour on and with `--no-color`, in every line that names it.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const MANIFEST = 'agents:\n  a:\n    id: -OKdqbqetEcM4ak369ym\nversion: 1\n';
const NAMES = { rewrite: 'evil\r\u001b[Kharmless.yaml', hide: 'hide\u001b[8mx.yaml', recolour: 'red\u001b[31mx\u001b[39m.yaml' };
const SHOWN = { rewrite: 'evil\\r\\u001b[Kharmless.yaml', hide: 'hide\\u001b[8mx.yaml', recolour: 'red\\u001b[31mx\\u001b[39m.yaml' };
/** voxform's own colour sequences, the only ones a terminal may get. */
const OWN_SGR = /\u001b\[(?:1|2|22|31|32|33|35|36|39)m/g;

const tempDir = useTempDirs();

describe('file names on a terminal', () => {
  for (const terminal of [true, 'no-color'] as const) {
    it(`are escaped in fmt --check's list and validate's ✓ line (${terminal === true ? 'colour' : '--no-color'})`, async () => {
      const cwd = await tempDir(Object.fromEntries(Object.values(NAMES).map((name) => [name, MANIFEST])));
      execFileSync('git', ['init', '-q'], { cwd });
      const fmt = await runCliInProcess(['fmt', '--check', '.'], { cwd, terminal });
      for (const shown of Object.values(SHOWN)) expect(fmt.stdout).toContain(`${shown}\n`);
      for (const name of Object.keys(NAMES) as Array<keyof typeof NAMES>) {
        const validate = await runCliInProcess(['validate', '-f', NAMES[name]], { cwd, terminal });
        expect(validate.code).toBe(0);
        expect(validate.stdout).toContain(`${SHOWN[name]} is valid`);
        for (const output of [fmt.stdout, fmt.stderr, validate.stdout, validate.stderr]) {
          expect(output.replace(OWN_SGR, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
          if (terminal === 'no-color') expect(output).not.toContain('\u001b');
        }
      }
    });
  }
});
