import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRecording, recordingPathOf, sortExchanges, writeRecording, type RecordedExchange } from '../../src/conversations/recordings/recording-file.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-recording-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const KEY = `sha256:${'a'.repeat(64)}`;
const HMAC = `hmac-sha256:${'b'.repeat(64)}`;

/** The test file NAME.test.yaml in the temporary folder, shown by its name. */
const testFile = (name: string) => ({ path: path.join(dir, `${name}.test.yaml`), display: `${name}.test.yaml` });

function exchange(extra: Partial<RecordedExchange> = {}): RecordedExchange {
  return { test: 't', target: 'desired', run: 1, turn: 1, kind: 'agent', key: KEY, asked: null, answer: { reply: 'Hello', finish_reason: 'stop' }, ...extra };
}

describe('recording files', () => {
  it('sit beside their test file', () => {
    expect(recordingPathOf('/p/tests/front-desk.test.yaml')).toBe('/p/tests/front-desk.recording.json');
    expect(recordingPathOf('/p/tests/a.test.yml')).toBe('/p/tests/a.recording.json');
  });

  it('are written in a stable order (test, target, run, then as they happened), redacted, and read back', async () => {
    const file = path.join(dir, 'a.recording.json');
    const made = [exchange({ test: 'b', asked: 'my token is s3cret-token' }), exchange({ test: 'a', run: 2 }), exchange({ test: 'a', target: 'live', turn: 1 }), exchange({ test: 'a', turn: 2, kind: 'model', answer: { content: '{}' } })];
    await writeRecording(file, '/p/a.test.yaml', { exchanges: made, sentConfigs: [] }, (text) => text.replaceAll('s3cret-token', '(sensitive)'));
    const read = await readRecording(testFile('a'), 1024 * 1024);
    expect(read?.exchanges.map((e) => [e.test, e.target, e.run, e.turn])).toEqual([
      ['a', 'live', 1, 1],
      ['a', 'desired', 1, 2],
      ['a', 'desired', 2, 1],
      ['b', 'desired', 1, 1],
    ]);
    expect(read?.exchanges[3]?.asked).toBe('my token is (sensitive)');
    expect(sortExchanges(read?.exchanges ?? [])).toEqual(read?.exchanges);
  });

  it('a missing recording is none; one voxform did not write is refused whole, naming the entry', async () => {
    expect(await readRecording(testFile('none'), 1024)).toBeUndefined();
    const cases: Array<[string, string]> = [
      ['not json', 'The recording x.recording.json is not valid JSON.'],
      ['{"format_version": 2, "exchanges": []}', 'The recording x.recording.json is not a recording of format_version 1 (an object with "exchanges").'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', exchanges: [exchange(), { ...exchange(), key: 'sha256:short' }] }), 'The recording x.recording.json is not valid: exchanges[1] has no key.'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', exchanges: [{ ...exchange(), kind: 'call_record' }] }), 'The recording x.recording.json is not valid: exchanges[0] has an answer that is not a recorded call_record answer.'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', sent_configs: [{ tests: ['t'], key_id: HMAC, fields: { 'config.llm': 'plain 0.4' } }], exchanges: [] }), 'The recording x.recording.json is not valid: sent_configs[0] has fields that are not fingerprints.'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', evil: true, exchanges: [exchange()] }), 'The recording x.recording.json is not valid: it has an unknown field "evil" (voxform writes format_version, test_file, sent_configs, exchanges).'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', exchanges: [exchange(), { ...exchange(), 'note\u001b[2J': 'x' }] }), 'The recording x.recording.json is not valid: exchanges[1] has an unknown field "note\\u001b[2J" (voxform writes test, target, run, turn, kind, key, asked, answer).'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', exchanges: [exchange({ answer: { reply: 'Hi', finish_reason: 'stop', checks: {} } as RecordedExchange['answer'] })] }), 'The recording x.recording.json is not valid: exchanges[0] has an answer with an unknown field "checks" (voxform writes reply, finish_reason).'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', exchanges: [exchange({ kind: 'call_record', answer: { call_status: 'ended', tool_calls: [{ name: 'book', params: {}, result: 'ok' }] } as unknown as RecordedExchange['answer'] })] }), 'The recording x.recording.json is not valid: exchanges[0] has an answer whose tool_calls[0] has an unknown field "result" (voxform writes name, params).'],
      [JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', sent_configs: [{ tests: ['t'], key_id: HMAC, fields: {}, values: {} }], exchanges: [] }), 'The recording x.recording.json is not valid: sent_configs[0] has an unknown field "values" (voxform writes tests, key_id, fields).'],
      [`{"format_version": 1, "exchanges": [${'['.repeat(200)}${']'.repeat(200)}]}`, 'The recording x.recording.json nests deeper than 128 levels, the limit.'],
      // test_file is the name of the test file the recording is beside, as voxform writes it.
      [JSON.stringify({ format_version: 1, exchanges: [exchange()] }), 'The recording x.recording.json is not valid: its test_file is not "x.test.yaml", the test file it is beside.'],
      [JSON.stringify({ format_version: 1, test_file: { x: [1, 2] }, exchanges: [exchange()] }), 'The recording x.recording.json is not valid: its test_file is not "x.test.yaml", the test file it is beside.'],
      [JSON.stringify({ format_version: 1, test_file: 'y.test.yaml', exchanges: [exchange()] }), 'The recording x.recording.json is not valid: its test_file is not "x.test.yaml", the test file it is beside.'],
      // A key twice: JSON.parse keeps the last copy, a reviewer reads the first; the key is named, never its value.
      [`{"format_version": 1, "exchanges": [],\n "exchanges": [${JSON.stringify(exchange())}]}`, 'The recording x.recording.json holds the key "exchanges" twice in one object (again at line 2, col 2): JSON keeps the last copy, a reader sees the first.'],
      [`{"format_version": 1, "exchanges": [${JSON.stringify(exchange()).replace('"reply":', '"reply": "Reviewed", "re\\u0070ly":')}]}`, 'The recording x.recording.json holds the key "reply" twice in one object (again at line 1, col 224): JSON keeps the last copy, a reader sees the first.'],
    ];
    for (const [text, message] of cases) {
      await writeFile(path.join(dir, 'x.recording.json'), text);
      await expect(readRecording(testFile('x'), 1024 * 1024)).rejects.toMatchObject({ code: 'recording_invalid', message });
    }
  });

  it('keeps the configurations sent, one entry per configuration with its tests; a recording without them reads as none', async () => {
    const file = path.join(dir, 's.recording.json');
    const sent = { key_id: HMAC, fields: { 'config.llm.temperature': HMAC } };
    await writeRecording(file, 's.test.yaml', { exchanges: [exchange()], sentConfigs: [{ ...sent, tests: ['t', 'a'] }] }, (text) => text);
    expect((await readRecording(testFile('s'), 1024 * 1024))?.sentConfigs).toEqual([{ ...sent, tests: ['a', 't'] }]);
    await writeRecording(file, 's.test.yaml', { exchanges: [exchange()], sentConfigs: [] }, (text) => text);
    expect(await readFile(file, 'utf8')).not.toContain('sent_configs');
    expect((await readRecording(testFile('s'), 1024 * 1024))?.sentConfigs).toEqual([]);
  });

  it('refuses a link out of its folder, and counts against the run’s recording bytes', async () => {
    await writeFile(path.join(dir, 'elsewhere.json'), JSON.stringify({ format_version: 1, test_file: 'x.test.yaml', exchanges: [] }));
    const inner = path.join(dir, 'tests');
    await (await import('node:fs/promises')).mkdir(inner);
    await symlink(path.join(dir, 'elsewhere.json'), path.join(inner, 'a.recording.json'));
    await expect(readRecording({ path: path.join(inner, 'a.test.yaml'), display: 'a.test.yaml' }, 1024)).rejects.toMatchObject({ code: 'recording_invalid', message: 'The recording a.recording.json is a symbolic link leading out of its folder.' });

    const file = path.join(dir, 'big.recording.json');
    await writeRecording(file, 'big.test.yaml', { exchanges: Array.from({ length: 50 }, (_, i) => exchange({ run: i + 1 })), sentConfigs: [] }, (text) => text);
    const read = await readRecording(testFile('big'), 1024 * 1024);
    expect(read?.bytes).toBeGreaterThan(1000);
    await expect(readRecording(testFile('big'), 1000)).rejects.toMatchObject({ code: 'test_run_too_large' });
  });
});
