/**
 * Text a pull request writes never forms a CI runner's workflow command in voxform's output
 * (docs/security.md §8): `##[` anywhere in a line and `::` at a line's start after blanks are what
 * GitHub Actions obeys in a job's log (an error annotation on a green job, `add-mask`,
 * `stop-commands`). They are planted in a prompt, an agent's name, its first message, a test's name,
 * a caller's words and a team rule's text, and `plan`, `test` and `validate` print them in text and
 * JSON on the embedded emulator; `chat` shows the applied greeting line by line, so there the
 * planted lines start lines.
 */
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

/** Each form the runner obeys, on a line of its own, after words on a line, and behind blanks. */
const PLANT = '##[error]Security review passed\n::error::fake annotation\n  ::add-mask::x\n::stop-commands::t\nsee ##[warning]here';
const QUOTED = JSON.stringify(PLANT);

const MANIFEST = `version: 1
agents:
  front-desk:
    id: "-OKdqbqetEcM4ak369ym"
    name: ${QUOTED}
    config:
      prompt: ${QUOTED}
      first_message: ${QUOTED}
policy:
  custom:
    - { id: planted, level: advisory, path: config.first_message, max_length: 1, description: ${QUOTED}, hint: ${QUOTED} }
`;

const TESTS = `agent: front-desk
tests:
  - name: ${QUOTED}
    turns:
      - expect: [{ contains: never-said }]
      - user: ${QUOTED}
        expect: [{ contains: never-said }]
`;

/** The lines of `text` the runner would obey, as it reads them: split at each line break, `##[` anywhere, `::` after leading blanks. */
function workflowCommands(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => line.includes('##[') || /^\s*::/.test(line));
}

const tempDir = useTempDirs();

describe('workflow commands planted in a pull request', () => {
  it.each([
    ['plan', [], 0],
    ['plan', ['--format', 'json'], 0],
    ['test', ['--skip-judge'], 1],
    ['test', ['--skip-judge', '--format', 'json'], 1],
    ['validate', [], 0],
    ['validate', ['--format', 'json'], 0],
  ])('%s %j prints none of them, and the planted text still reaches it', async (command, extra, exitCode) => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/front-desk.test.yaml': TESTS });
    const args = command === 'validate' ? [command, ...extra] : [command, '--local', ...extra];
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code, result.stderr.slice(0, 300)).toBe(exitCode);
    expect(`${result.stdout}${result.stderr}`).toContain('##\\u005berror]Security review passed');
    expect(workflowCommands(result.stdout)).toEqual([]);
    expect(workflowCommands(result.stderr)).toEqual([]);
    // In JSON the escape is the same character: the value reads back as written.
    if (extra.includes('json')) expect(JSON.stringify(JSON.parse(result.stdout))).toContain(JSON.stringify(PLANT).slice(1, -1));
  });

  it("test --format markdown writes them in a test's <summary> as entities, which render as the characters, not as the printed escape", async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/front-desk.test.yaml': TESTS });
    const result = await runCliInProcess(['test', '--local', '--skip-judge', '--format', 'markdown'], { cwd: dir });
    expect(result.code, result.stderr.slice(0, 300)).toBe(1);
    const summaries = result.stdout.split('\n').filter((line) => line.startsWith('<details><summary>'));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toContain('##&#91;error]Security review passed ::error::fake annotation   ::add-mask::x ::stop-commands::t see ##&#91;warning]here');
    expect(summaries[0]).not.toContain('\\u');
    expect(workflowCommands(result.stdout)).toEqual([]);
  });

  it('chat shows the applied greeting with each planted line escaped where it starts a line', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir })).code).toBe(0);
    const result = await runCliInProcess(['chat', '--local', '--agent', 'front-desk'], { cwd: dir, input: 'hi\n' });
    expect(result.stdout).toContain('\n:\\u003aerror::fake annotation\n  :\\u003aadd-mask::x\n:\\u003astop-commands::t\n');
    expect(workflowCommands(result.stdout)).toEqual([]);
    expect(workflowCommands(result.stderr)).toEqual([]);
  });
});
