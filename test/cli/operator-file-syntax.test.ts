/**
 * A file the operator names on the command line that is not valid YAML or JSON stops the command
 * with exit 1 and an error at its place, `file:line:col`, saying what was wrong there and how to fix
 * it: `emulator --seed`, a traffic profile (`emulator --traffic`, `emulator traffic --profile`),
 * `webhook serve --prefetch-response`, and a saved plan given to `apply`. The text of the file is
 * never quoted raw: a control character at the place is shown escaped, and the text around it not at all.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const ESCAPE = '\u001b';
/** Text near the mistake that no error may quote. */
const NEARBY = 'sk-nearby-0123456789abcdef';

const FILES: Array<[string, string, string, (file: string) => string[], (dir: string) => RegExp]> = [
  [
    'a YAML seed',
    'seed.yaml',
    `agents:\n  - id: ag_1\n    name: [unclosed\n`,
    (file) => ['emulator', '--port', '0', '--seed', file],
    (dir) => new RegExp(`^error\\[emulator_seed_invalid\\]: ${path.join(dir, 'seed.yaml')}:4:1: The seed file is not valid YAML: flow sequence .*\\n {2}hint: Fix the seed at that line and column`),
  ],
  [
    'a JSON seed',
    'seed.json',
    `{\n  "keys": [{"type": "private", "key": "${NEARBY}"}],\n  "agents": [${ESCAPE}]\n}\n`,
    (file) => ['emulator', '--port', '0', '--seed', file],
    (dir) => new RegExp(`^error\\[emulator_seed_invalid\\]: ${path.join(dir, 'seed.json')}:3:14: The seed file is not valid JSON: expected a value .*, found "\\\\u001b"\\.\\n {2}hint: `),
  ],
  [
    'a YAML traffic profile (emulator --traffic)',
    'profile.yaml',
    'extends: light\ncalls_per_agent: : 3\n',
    (file) => ['emulator', '--port', '0', '--traffic', file],
    () => /^error\[traffic_profile_invalid\]: profile\.yaml:2:18: The traffic profile is not valid YAML: nested mappings are not allowed in compact mappings\.\n {2}hint: Fix the profile at that line and column/,
  ],
  [
    'a JSON traffic profile (emulator traffic --profile)',
    'profile.json',
    `{\n  "extends": "light",\n  "calls_per_agent": 3,\n}\n`,
    (file) => ['emulator', 'traffic', '--local', '--profile', file],
    () => /^error\[traffic_profile_invalid\]: profile\.json:4:1: The traffic profile is not valid JSON: expected another item after the comma \(JSON allows no comma before "}"\), found "}"\.\n {2}hint: /,
  ],
  [
    'a prefetch answer',
    'answer.json',
    `{\n  "extra_prompt": "${NEARBY}"\n  "metadata": {}\n}\n`,
    (file) => ['webhook', 'serve', '--port', '0', '--prefetch-response', file],
    () => /^error\[webhook_response_invalid\]: answer\.json:3:3: --prefetch-response answer\.json is not valid JSON: expected "," or "}", found "\\""\.\n {2}hint: Fix the JSON at that line and column/,
  ],
  [
    'a saved plan (apply PLANFILE)',
    'plan.json',
    `{\n  "kind": "voxform-plan",\n  "secrets_digest": "${NEARBY}",\n  ${ESCAPE}\n}\n`,
    (file) => ['apply', file],
    (dir) => new RegExp(`^error\\[plan_unreadable\\]: ${path.join(dir, 'plan.json')}:4:3: Cannot read the plan: it stops being JSON here, where JSON expected a key in double quotes; voxform saves plans as JSON, so it was damaged or is another file\\.\\n {2}hint: Make it again with \`voxform plan --out FILE\``),
  ],
];

describe('a file the operator names that is not valid YAML or JSON', () => {
  it.each(FILES)('%s: exit 1, file:line:col, what and how to fix, nothing of it quoted raw', async (_name, file, text, args, expected) => {
    const dir = await tempDir({ [file]: text });
    const result = await runCliInProcess(args(file), { cwd: dir });
    expect(result.stderr).toMatch(expected(dir));
    expect(result.stderr).not.toContain(ESCAPE);
    expect(result.stderr).not.toContain(NEARBY);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(1);
  });

  it('gives the place in --format json too', async () => {
    const dir = await tempDir({ 'profile.json': '{"calls_per_agent": 3 4}' });
    const result = await runCliInProcess(['emulator', 'traffic', '--local', '--profile', 'profile.json', '--format', 'json'], { cwd: dir });
    expect(JSON.parse(result.stdout || result.stderr)).toMatchObject({ error: { code: 'traffic_profile_invalid', location: { file: 'profile.json', line: 1, col: 23 } } });
    expect(result.code).toBe(1);
  });
});
