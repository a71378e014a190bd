/**
 * A call record of another shape than the service schema's, from the service or a committed
 * `.voxform/local.json`, stops the commands that read the call log with a clear error naming the
 * record and the field (exit 1), never with an internal error.
 *
 * Each test runs one of its commands as the built CLI, the process a user runs, and the other in this
 * process (the same parser, commands and error report); which one alternates, so each command is
 * run as a process for some shape of record.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const HINT =
  '  hint: The service sent a record of another shape than its interface documents (docs/service-api.md, "Call logs"): report it to the service. With --local or `voxform emulator --data FILE`, correct or delete that record in the data file\'s `call_logs` (.voxform/local.json for --local).\n';

type CallRecord = Record<string, unknown> & { call_id: string; ts: number };
interface LocalData {
  call_logs: CallRecord[];
}

/** The folder's account as `--local` first makes it: the default seed. */
let seeded: LocalData;

beforeAll(async () => {
  const dir = await tempDir();
  const made = await runCliInProcess(['logs', '--local', '--limit', '1', '--format', 'json'], { cwd: dir });
  expect(made.code, made.stderr).toBe(0);
  seeded = JSON.parse(await readFile(path.join(dir, '.voxform', 'local.json'), 'utf8')) as LocalData;
});

/** A folder whose `.voxform/local.json` holds the seed with the newest call record changed. */
async function plantedFolder(change: Record<string, unknown>): Promise<{ dir: string; dataFile: string; callId: string }> {
  const data = structuredClone(seeded);
  const newest = data.call_logs.reduce((a, b) => (b.ts > a.ts ? b : a));
  Object.assign(newest, change);
  const dir = await tempDir({ '.voxform/local.json': JSON.stringify(data) });
  return { dir, dataFile: path.join(dir, '.voxform', 'local.json'), callId: newest.call_id };
}

/** A shape of record, the change that plants it, what the error says of it, and which of `logs` and `logs --stats` runs as the built CLI. */
const TRIGGERS: Array<[string, Record<string, unknown>, string, 'logs' | 'logs --stats']> = [
  ['cost_breakdown "x"', { cost_breakdown: 'x' }, 'cost_breakdown is a string, where a list belongs', 'logs'],
  ['cost_breakdown {}', { cost_breakdown: {} }, 'cost_breakdown is an object, where a list belongs', 'logs --stats'],
  ['cost_breakdown 5', { cost_breakdown: 5 }, 'cost_breakdown is the number 5, where a list belongs', 'logs'],
  ['cost_breakdown [null]', { cost_breakdown: [null] }, 'cost_breakdown[0] is null, where an object (key: value pairs) belongs', 'logs --stats'],
  ['call_status 5', { call_status: 5 }, 'call_status is the number 5, where a string belongs', 'logs'],
];

describe('logs --local with a planted call record of another shape', () => {
  it.each(TRIGGERS)('%s: logs and logs --stats stop with api_error naming the record and the field', async (_, change, problem, builtCli) => {
    const { dir, callId } = await plantedFolder(change);
    const expected = `error[api_error]: GET /call-logs failed: the service answered 200 with a call record voxform cannot read: histories[0] (call_id "${callId}"): ${problem}.\n${HINT}`;
    for (const [run, args] of [['logs', ['logs', '--local']], ['logs --stats', ['logs', '--local', '--stats']]] as const) {
      const cli = run === builtCli ? runCli : runCliInProcess;
      const result = await cli([...args], { cwd: dir });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toBe(expected);
      expect(result.stdout).toBe('');
    }
  });

  it.each([
    ['1e300', 1e300, 'ts must be at most 253402300799, found 1e+300', 'logs'],
    ['-1e20', -1e20, 'ts must be at least 0, found -100000000000000000000', 'report'],
  ])('a ts of %s no date can be printed for: logs and report --format json stop with api_error, not "Invalid time value"', async (_, ts, problem, builtCli) => {
    const cliFor = (command: string) => (command === builtCli ? runCli : runCliInProcess);
    const { dir, callId } = await plantedFolder({ ts });
    // Newest first: the record is the first of the page, or, before 1970, the last.
    const place = `histories[${ts > 0 ? 0 : seeded.call_logs.length - 1}]`;
    const message = `GET /call-logs failed: the service answered 200 with a call record voxform cannot read: ${place} (call_id "${callId}"): ${problem}.`;
    const logs = await cliFor('logs')(['logs', '--local'], { cwd: dir });
    expect(logs.code).toBe(1);
    expect(logs.stderr).toBe(`error[api_error]: ${message}\n${HINT}`);
    const report = await cliFor('report')(['report', '--local', '--format', 'json'], { cwd: dir });
    expect(report.code).toBe(1);
    expect(JSON.parse(report.stdout)).toMatchObject({ error: { code: 'api_error', message } });
    expect(report.stdout + report.stderr).not.toContain('internal_error');
  });
});

describe('the same record served by an emulator with --data and read with --base-url', () => {
  it('stops logs with the same error: any service answer of that shape does', async () => {
    const { dataFile, callId } = await plantedFolder({ cost_breakdown: 'x' });
    const emulator = await startEmulator({ port: 0, dataFile });
    try {
      const dir = await tempDir();
      const result = await runCliInProcess(['logs', '--base-url', emulator.url, '--stats'], { cwd: dir, env: { VOXFORM_API_KEY: emulator.apiKey } });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`error[api_error]: GET /call-logs failed: the service answered 200 with a call record voxform cannot read: histories[0] (call_id "${callId}"): cost_breakdown is a string, where a list belongs.\n${HINT}`);
    } finally {
      await emulator.close();
    }
  });
});
