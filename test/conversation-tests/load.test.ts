import { execFileSync } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTestFiles, findTestSuite } from '../../src/conversations/find-test-files.js';
import { loadTestFiles, MAX_TEST_FILE_BYTES } from '../../src/conversations/load-tests.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const AGENTS = new Set(['front-desk', 'booking']);

async function load(text: string) {
  const dir = await tempDir({ 'tests/a.test.yaml': text });
  return loadTestFiles({ files: [path.join(dir, 'tests/a.test.yaml')], cwd: dir, agents: AGENTS });
}

/** `file:line:col code message`, one line per diagnostic. */
async function problems(text: string): Promise<string[]> {
  const result = await load(text);
  return result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`);
}

describe('loading test files', () => {
  it('normalizes a valid file: defaults filled in, regexes compiled, positions kept', async () => {
    const result = await load(
      [
        'agent: front-desk',
        'metadata: { tier: gold }',
        'tests:',
        '  - name: greets',
        '    turns:',
        '      - expect: [{ contains: Acme }, { regex: "^Hel+o" }]',
        '      - user: Hi',
        '  - name: books',
        '    simulate: { persona: P, goal: G }',
        '    expect:',
        '      - tool_called: find_slots',
        '        args: { day: { regex: "^2026-" }, treatment: cleaning, when: { judge: "a morning" } }',
        '    repeat: 5',
        '    pass_rate: 0.8',
      ].join('\n'),
    );
    expect(result.diagnostics).toEqual([]);
    const [file] = result.files ?? [];
    expect(file).toMatchObject({ display: 'tests/a.test.yaml', agent: 'front-desk', metadata: { tier: gold() } });
    const [greets, books] = file?.tests ?? [];
    expect(greets).toMatchObject({ name: 'greets', location: { file: 'tests/a.test.yaml', line: 4, col: 11 }, repeat: 1, passRate: 1, needsModel: false, simulate: undefined });
    expect(greets?.turns?.[0]?.checks.map((c) => c.kind)).toEqual(['contains', 'regex']);
    expect(greets?.turns?.[1]).toEqual({ user: 'Hi', checks: [] });
    expect(books).toMatchObject({ simulate: { persona: 'P', goal: 'G', maxTurns: 10 }, repeat: 5, passRate: 0.8, needsModel: true });
    const check = books?.expect[0];
    expect(check?.kind === 'tool_called' && Object.fromEntries(Object.entries(check.args ?? {}).map(([k, v]) => [k, v.kind]))).toEqual({ day: 'regex', treatment: 'exact', when: 'judge' });
  });

  it('reports every mistake with file:line:col', async () => {
    expect(
      await problems(
        [
          'agent: front-dsk',
          'tests:',
          '  - name: one',
          '    turns:',
          '      - usr: hello',
          '        expect: [{ contains: a, equals: b }]',
          '  - name: one',
          '    turns: [{ expect: [{ regex: "(unclosed" }] }]',
          '    simulate: { persona: p, goal: g }',
          '  - name: three',
          '    turns: [{ user: hi }]',
          '    expect:',
          '      - { tool_not_called: a, call_status: x }',
          '      - { call_status: chat_completion, args: { a: 1 } }',
          '    repeat: 0',
        ].join('\n'),
      ),
    ).toEqual([
      'tests/a.test.yaml:1:8 reference_missing agent "front-dsk" is not an agent of the manifest; did you mean "front-desk"?',
      'tests/a.test.yaml:5:9 unknown_field unknown field "usr" in tests[0].turns[0]; did you mean "user"?',
      'tests/a.test.yaml:6:18 invalid_value tests[0].turns[0].expect[0] must have exactly one of contains, not_contains, equals, regex, judge',
      // The rules across tests run past schema errors too: one run names every mistake (docs/testing.md).
      'tests/a.test.yaml:7:11 duplicate_item two tests are named "one"; names must be unique within a file',
      'tests/a.test.yaml:7:11 invalid_value test "one" needs exactly one of turns (a scripted conversation) and simulate (a simulated caller)',
      // So do the checks inside a test, also of a test that is wrong as a whole.
      'tests/a.test.yaml:8:33 invalid_value not a valid regular expression: /(unclosed/: Unterminated group',
      'tests/a.test.yaml:13:9 invalid_value tests[2].expect[0] must have exactly one of tool_called, tool_calls, tool_not_called, call_status, judge (found tool_not_called and call_status)',
      'tests/a.test.yaml:14:41 invalid_value args belongs with tool_called: it says which arguments the call must have',
      'tests/a.test.yaml:15:13 invalid_value tests[2].repeat is 0, under the least of 1; give how many times to run the test, 1 or more, or leave it out to run it once',
    ]);
    // Without schema errors: the same rules, and args' regular expressions.
    expect(
      await problems(
        [
          'agent: booking',
          'tests:',
          '  - name: one',
          '    turns: [{ expect: [{ regex: "(unclosed" }] }]',
          '  - name: one',
          '    turns: [{ user: hi }]',
          '    simulate: { persona: p, goal: g }',
          '  - name: three',
          '    turns: [{ user: hi }]',
          '    expect:',
          '      - { tool_not_called: a, call_status: x }',
          '      - { call_status: chat_completion, args: { a: 1 } }',
          '      - { tool_called: a, args: { a: { regex: "[" } } }',
        ].join('\n'),
      ),
    ).toEqual([
      'tests/a.test.yaml:4:33 invalid_value not a valid regular expression: /(unclosed/: Unterminated group',
      'tests/a.test.yaml:5:11 duplicate_item two tests are named "one"; names must be unique within a file',
      'tests/a.test.yaml:5:11 invalid_value test "one" needs exactly one of turns (a scripted conversation) and simulate (a simulated caller)',
      'tests/a.test.yaml:11:9 invalid_value tests[2].expect[0] must have exactly one of tool_called, tool_calls, tool_not_called, call_status, judge (found tool_not_called and call_status)',
      'tests/a.test.yaml:12:41 invalid_value args belongs with tool_called: it says which arguments the call must have',
      'tests/a.test.yaml:13:47 invalid_value not a valid regular expression: /[/: Unterminated character class',
    ]);
  });

  it('says how to give a field its least value: a simulated caller of no turns', async () => {
    expect(await problems(['agent: booking', 'tests:', '  - name: one', '    simulate: { persona: P, goal: G, max_turns: 0 }', '    expect: [{ tool_called: find_slots }]'].join('\n'))).toEqual([
      'tests/a.test.yaml:4:49 invalid_value tests[0].simulate.max_turns is 0, under the least of 1; give how many caller turns the conversation may take, 1 or more, or leave it out for 10',
    ]);
  });

  it('refuses a regex of more quantifiers than a time limit can stop, where it is written', async () => {
    expect(await problems(['agent: booking', 'tests:', '  - name: one', '    turns:', '      - expect:', `          - regex: "${'a?'.repeat(50)}aaaaaaaaaa"`].join('\n'))).toEqual([
      expect.stringMatching(/^tests\/a\.test\.yaml:6:20 invalid_value not a valid regular expression: its quantifiers and alternatives make 50 branch points/),
    ]);
  });

  it('refuses a regex of more alternatives than a time limit can stop, where it is written, before anything is matched', async () => {
    expect(await problems(['agent: booking', 'tests:', '  - name: one', '    turns:', '      - expect:', `          - regex: "${'(a|)'.repeat(46)}${'a'.repeat(46)}"`].join('\n'))).toEqual([
      expect.stringMatching(/^tests\/a\.test\.yaml:6:20 invalid_value not a valid regular expression: its quantifiers and alternatives make 46 branch points/),
    ]);
  });

  it('reports a misspelt check and a bad regex of the same file in one run', async () => {
    expect(
      await problems(['agent: booking', 'tests:', '  - name: one', '    turns:', '      - expect:', '          - contians: x', '          - regex: "(unclosed"'].join('\n')),
    ).toEqual([
      'tests/a.test.yaml:6:13 unknown_field unknown field "contians" in tests[0].turns[0].expect[0]; did you mean "contains"?',
      'tests/a.test.yaml:7:20 invalid_value not a valid regular expression: /(unclosed/: Unterminated group',
    ]);
    // A call check's own rules are not hidden by a schema error elsewhere in the file.
    expect(
      await problems(
        [
          'agent: booking',
          'tests:',
          '  - name: one',
          '    turns: [{ usr: hi }]',
          '    expect:',
          '      - { tool_called: x, call_status: y }',
          '      - { call_status: chat_completion, args: { a: 1 } }',
          '      - { tool_calld: x }',
        ].join('\n'),
      ),
    ).toEqual([
      'tests/a.test.yaml:4:15 unknown_field unknown field "usr" in tests[0].turns[0]; did you mean "user"?',
      'tests/a.test.yaml:6:9 invalid_value tests[0].expect[0] must have exactly one of tool_called, tool_calls, tool_not_called, call_status, judge (found tool_called and call_status)',
      'tests/a.test.yaml:7:41 invalid_value args belongs with tool_called: it says which arguments the call must have',
      // A misspelt kind is reported once, by the schema (not also as "no kind").
      'tests/a.test.yaml:8:11 unknown_field unknown field "tool_calld" in tests[0].expect[2]; did you mean "tool_called"?',
    ]);
  });

  it('refuses a scripted test that checks nothing, at its name, and warns of a simulated one', async () => {
    const checkless = 'checks nothing: it would pass whatever the agent says; give a turn or the test an expect: check';
    expect(await problems(['agent: booking', 'tests:', '  - name: empty expect', '    turns:', '      - user: hi', '        expect: []'].join('\n'))).toEqual([`tests/a.test.yaml:3:11 invalid_value test "empty expect" ${checkless}`]);
    expect(await problems(['agent: booking', 'tests:', '  - name: empty turn', '    turns: [{}]', '    expect: []'].join('\n'))).toEqual([`tests/a.test.yaml:3:11 invalid_value test "empty turn" ${checkless}`]);
    // A check written in a wrong shape is a check: its shape error is the one to fix, alone.
    expect(await problems(['agent: booking', 'tests:', '  - name: map of turns', '    turns:', '      user: hi', '      expect: [{ contains: hello }]'].join('\n'))).toEqual([
      'tests/a.test.yaml:5:7 type_mismatch tests[0].turns: expected a list, found an object',
    ]);
    expect(await problems(['agent: booking', 'tests:', '  - name: map of checks', '    turns:', '      - user: hi', '        expect: { contains: hello }'].join('\n'))).toEqual([
      'tests/a.test.yaml:6:17 type_mismatch tests[0].turns[0].expect: expected a list, found an object',
    ]);
    // One check anywhere is a test: in a turn, or on the call record.
    expect(await problems(['agent: booking', 'tests:', '  - name: one', '    turns: [{}, { user: hi }]', '    expect: [{ call_status: done }]'].join('\n'))).toEqual([]);
    const simulated = await load(['agent: booking', 'tests:', '  - name: chat', '    simulate: { persona: p, goal: g }'].join('\n'));
    expect(simulated.diagnostics.map((d) => `${d.severity} ${d.line}:${d.col} ${d.message}`)).toEqual([`warning 3:11 test "chat" ${checkless}`]);
  });

  it("refuses a turn after the first without the caller's words: only the greeting goes without them", async () => {
    const wordless = "tests[0].turns[1] has no user: only the first turn, the agent's greeting, goes without one; give it the caller's words, or check that reply in the turn before";
    expect(await problems(['agent: booking', 'tests:', '  - name: two', '    turns:', '      - user: hi', '      - expect: [{ contains: book }]'].join('\n'))).toEqual([`tests/a.test.yaml:6:9 invalid_value ${wordless}`]);
    expect(await problems(['agent: booking', 'tests:', '  - name: greets', '    turns: [{ expect: [{ contains: book }] }, { user: hi }]'].join('\n'))).toEqual([]);
  });

  it('reports YAML syntax errors and non-mappings at their place', async () => {
    expect(await problems('agent: booking\ntests:\n  - name: "open\n')).toEqual(['tests/a.test.yaml:3:11 yaml_syntax YAML syntax error: the quote " opened at line 3, column 11 is never closed, so what follows it is read as its text; add the closing " where the text ends']);
    expect(await problems('agent: booking\ntests:\n  - name: one\n    turns: [{ user: &hi hello }]\n    expect: [{ judge: *hii }]\n')).toEqual([
      'tests/a.test.yaml:5:23 yaml_syntax YAML syntax error: the alias *hii refers to no anchor &hii set before it; did you mean &hi?',
    ]);
    expect(await problems('- just a list\n')).toEqual(['tests/a.test.yaml:1:1 not_a_mapping a test file is a mapping with agent and tests']);
  });

  it('refuses a file over the size limit before reading it', async () => {
    const dir = await tempDir({});
    const file = path.join(dir, 'big.test.yaml');
    await writeFile(file, `agent: booking\n#${'x'.repeat(MAX_TEST_FILE_BYTES)}\n`);
    // Its size as precisely as it takes to read larger than the limit ("1.0 MiB" would not).
    await expect(loadTestFiles({ files: [file], cwd: dir, agents: AGENTS })).rejects.toMatchObject({
      code: 'test_file_too_large',
      message: 'big.test.yaml is 1,048,593 bytes; the limit is 1 MiB (1,048,576 bytes).',
    });
  });

  it('lets a test file name no service, judge or file: such fields are unknown', async () => {
    const lines = await problems('agent: booking\nbase_url: http://attacker.example\njudge_url: http://attacker.example\ntests: [{ name: a, turns: [{ user: hi, expect: [{ contains: hi }] }] }]\n');
    expect(lines).toEqual([
      'tests/a.test.yaml:2:1 unknown_field unknown field "base_url" in the test file (known fields: agent, metadata, include_metadata_in_prompt, tests)',
      'tests/a.test.yaml:3:1 unknown_field unknown field "judge_url" in the test file (known fields: agent, metadata, include_metadata_in_prompt, tests)',
    ]);
  });

  it('stops an alias bomb at the YAML reader’s limit', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    const lines = await problems(`${levels.join('\n')}\nagent: booking\ntests: [{ name: a, turns: [{ user: hi }] }]\n`);
    // Where the values made pass 100,000: the eighth *d of line 5, not the first alias line (b).
    expect(lines).toEqual([expect.stringMatching(/^tests\/a.test.yaml:5:36 yaml_alias_limit with this alias, the aliases of this document /)]);
  });

  it('caps regex length in the schema (a long pattern is refused, not run)', async () => {
    const lines = await problems(`agent: booking\ntests:\n  - name: a\n    turns: [{ expect: [{ regex: "${'a'.repeat(501)}" }] }]\n`);
    expect(lines).toEqual(['tests/a.test.yaml:4:33 invalid_value tests[0].turns[0].expect[0].regex is too long: at most 500 characters']);
  });
});

describe('finding test files', () => {
  it('defaults to tests/ beside the first manifest: *.test.yaml and *.test.yml, sorted, hidden folders and other YAML skipped', async () => {
    const dir = await tempDir({
      'voxform.yaml': 'version: 1\n',
      'tests/b.test.yaml': '',
      'tests/a/c.test.yml': '',
      'tests/notes.yaml': '',
      'tests/.hidden/d.test.yaml': '',
      'tests/node_modules/e.test.yaml': '',
    });
    const found = await findTestFiles([], dir, [path.join(dir, 'voxform.yaml')]);
    expect(found.map((f) => path.relative(dir, f))).toEqual(['tests/a/c.test.yml', 'tests/b.test.yaml']);
  });

  it('takes an entry with a test file\'s name that is no regular file, as if named: a link inside the project is read, a FIFO is refused at its name', async () => {
    const test = 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: hi }] }]\n';
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n', 'tests/a.test.yaml': test, 'common/s.test.yaml': test });
    await symlink('../common/s.test.yaml', path.join(dir, 'tests/s.test.yaml'));
    await symlink(dir, path.join(dir, 'tests/folder.test.yaml'));
    execFileSync('mkfifo', [path.join(dir, 'tests/fifo.test.yaml')]);
    const found = await findTestFiles([], dir, [path.join(dir, 'voxform.yaml')]);
    expect(found.map((f) => path.relative(dir, f))).toEqual(['tests/a.test.yaml', 'tests/fifo.test.yaml', 'tests/folder.test.yaml', 'tests/s.test.yaml']);
    const linked = await loadTestFiles({ files: [path.join(dir, 'tests/s.test.yaml')], cwd: dir, agents: AGENTS });
    expect(linked.diagnostics).toEqual([]);
    expect(linked.files).toHaveLength(1);
    await expect(loadTestFiles({ files: [path.join(dir, 'tests/fifo.test.yaml')], cwd: dir, agents: AGENTS })).rejects.toMatchObject({ code: 'tests_unreadable', message: 'tests/fifo.test.yaml is a FIFO (named pipe), not a regular file.' });
  });

  it('does not search a tests folder linked out of the project, the suite or one named, but refuses it at its name (as -f a folder of manifests)', async () => {
    const test = 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: hi }] }]\n';
    const outside = await tempDir({ 'leak.test.yaml': test });
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n', 'inside/a.test.yaml': test });
    await symlink(outside, path.join(dir, 'tests'));
    const manifests = [path.join(dir, 'voxform.yaml')];
    // The folder itself, never a file found in it: nothing outside the project is named or walked.
    expect(await findTestSuite(dir, manifests)).toEqual({ folder: path.join(dir, 'tests'), files: [path.join(dir, 'tests')] });
    for (const given of [[], ['tests']]) {
      const found = await findTestFiles(given, dir, manifests);
      expect(found).toEqual([path.join(dir, 'tests')]);
      await expect(loadTestFiles({ files: found, cwd: dir, agents: AGENTS })).rejects.toMatchObject({ code: 'tests_unreadable', message: expect.stringMatching(/^tests is outside the project, whose root is /) });
    }
    // A link to a folder inside the project is searched, as -f searches one.
    await symlink('inside', path.join(dir, 'linked'));
    expect((await findTestFiles(['linked'], dir, manifests)).map((f) => path.relative(dir, f))).toEqual(['linked/a.test.yaml']);
  });

  it('says where it looked when there are none, and whether the folder is there', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n' });
    const hint = 'Write a test as tests/NAME.test.yaml, beside the manifest (see docs/testing.md), or name files or folders: voxform test PATH…';
    await expect(findTestFiles([], dir, [path.join(dir, 'voxform.yaml')])).rejects.toMatchObject({ code: 'tests_not_found', message: 'No test files: the folder tests does not exist.', hint });
    const empty = await tempDir({ 'voxform.yaml': 'version: 1\n', 'tests/notes.yaml': '' });
    await expect(findTestFiles([], empty, [path.join(empty, 'voxform.yaml')])).rejects.toMatchObject({ code: 'tests_not_found', message: 'No test files: tests holds no *.test.yaml files.', hint });
    const file = await tempDir({ 'voxform.yaml': 'version: 1\n', tests: '' });
    await expect(findTestFiles([], file, [path.join(file, 'voxform.yaml')])).rejects.toMatchObject({ code: 'tests_not_found', message: 'No test files: tests is not a folder.', hint });
    await expect(findTestFiles(['nope'], dir, [])).rejects.toMatchObject({ code: 'tests_not_found', message: 'nope does not exist.' });
  });
});

function gold(): string {
  return 'gold';
}

describe('tool names in checks and mock_tools', () => {
  const FILE = [
    'agent: front-desk',
    'tests:',
    '  - name: books',
    '    simulate: { persona: P, goal: G }',
    '    mock_tools: { find_slot: { returns: [] } }',
    '    expect:',
    '      - tool_called: find_slot',
    '      - tool_not_called: transfer_cal',
    '      - tool_calls: [{ name: find_slots }, { name: nosuch }]',
    '      - tool_not_called: transfer_call',
    '      - tool_called: lookup',
  ].join('\n');
  const tools = { tools: new Set(['find_slots']), callable: new Set(['find_slots', 'lookup', 'transfer_call']) };

  async function loadWith(toolsOf: (agent: string) => typeof tools | undefined) {
    const dir = await tempDir({ 'tests/a.test.yaml': FILE });
    const result = await loadTestFiles({ files: [path.join(dir, 'tests/a.test.yaml')], cwd: dir, agents: AGENTS, toolsOf });
    return { result, lines: result.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.message}`) };
  }

  it('warns at each check that names no tool the manifests give the agent, and refuses a mock of one', async () => {
    const { result, lines } = await loadWith((agent) => (agent === 'front-desk' ? tools : undefined));
    expect(lines).toEqual([
      '5:19 error mock_tools: agent "front-desk" has no tool "find_slot" in the manifests, and only its own tools can be mocked; did you mean "find_slots"?',
      '7:22 warning tool_called: agent "front-desk" has no tool or platform function "find_slot" in the manifests, so the check never sees it called; did you mean "find_slots"?',
      '8:26 warning tool_not_called: agent "front-desk" has no tool or platform function "transfer_cal" in the manifests, so the check never sees it called; did you mean "transfer_call"?',
      '9:52 warning tool_calls: agent "front-desk" has no tool or platform function "nosuch" in the manifests, so the check can never pass; it has find_slots, lookup, transfer_call',
    ]);
    expect(result.files).toBeUndefined();
  });

  it('says nothing when the manifests leave the agent\'s tools to the service', async () => {
    const { result, lines } = await loadWith(() => undefined);
    expect(lines).toEqual([]);
    expect(result.files).toHaveLength(1);
  });
});
