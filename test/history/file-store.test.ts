import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVoxformError } from '../../src/errors.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import { newHistoryId } from '../../src/history/ledger-order.js';
import type { SkippedRecord } from '../../src/history/types.js';
import { appliedRecord as record, ledgerRecords, TEST_SEAL_KEY } from '../helpers/ledger.js';

const agent = { id: 'ag1', config: { prompt: 'hi' }, configHash: `sha256:${'0'.repeat(64)}`, maskedPaths: [] };

describe('FileHistoryStore', () => {
  it('lists a workspace newest first', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const store = new FileHistoryStore(dir);
    const first = await store.append(record('2026-01-01T10:00:00.000Z', 'default@local', { desk: agent }), TEST_SEAL_KEY);
    const second = await store.append(record('2026-01-02T10:00:00.000Z'), TEST_SEAL_KEY);
    await store.append(record('2026-01-03T10:00:00.000Z', 'prod@local', { desk: agent }), TEST_SEAL_KEY);
    expect((await ledgerRecords(store, { workspace: 'default@local' })).map((r) => r.id)).toEqual([second.id, first.id]);
  });

  it('skips a damaged record instead of failing the whole listing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const store = new FileHistoryStore(dir);
    const kept = await store.append(record('2026-01-01T10:00:00.000Z'), TEST_SEAL_KEY);
    await writeFile(path.join(dir, `${newHistoryId(new Date('2026-01-05T00:00:00Z'))}.json`), '{ not json');
    expect((await ledgerRecords(store, { workspace: 'default@local' })).map((r) => r.id)).toEqual([kept.id]);
    expect(await readdir(dir)).toHaveLength(2);
  });

  it('skips, and reports, a file that is not JSON, a record of another shape and one named by another id', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const store = new FileHistoryStore(dir);
    const kept = await store.append(record('2026-01-01T10:00:00.000Z', 'default@local', { desk: agent }), TEST_SEAL_KEY);
    const copy = (id: string, change: (record: Record<string, unknown>) => void) =>
      readFile(path.join(dir, `${kept.id}.json`), 'utf8').then((text) => {
        const damaged = { ...(JSON.parse(text) as Record<string, unknown>), id };
        change(damaged);
        return writeFile(path.join(dir, `${id}.json`), JSON.stringify(damaged));
      });
    await copy('20260102T100000000Z-aaaaaa', (r) => (r.agents = { desk: null }));
    await copy('20260103T100000000Z-bbbbbb', (r) => (r.id = '20260101T100000000Z-cccccc'));
    await writeFile(path.join(dir, '20260104T100000000Z-dddddd.json'), '{ not json');
    await mkdir(path.join(dir, '20260105T100000000Z-eeeeee.json'));
    const skipped: SkippedRecord[] = [];
    expect((await ledgerRecords(store, { workspace: 'default@local', onSkipped: (s) => skipped.push(s) })).map((r) => r.id)).toEqual([kept.id]);
    expect(skipped).toEqual([
      { where: path.join(dir, '20260105T100000000Z-eeeeee.json'), problem: 'it is a folder, not a file' },
      { where: path.join(dir, '20260104T100000000Z-dddddd.json'), problem: 'not JSON' },
      { where: path.join(dir, '20260103T100000000Z-bbbbbb.json'), problem: 'id: not the id its file is named by' },
      { where: path.join(dir, '20260102T100000000Z-aaaaaa.json'), problem: 'agents.desk: not an object' },
    ]);
  });

  it('reports a JSON file not named by a record id (a foreign file, a renamed copy) and passes over names that are not JSON', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const store = new FileHistoryStore(dir);
    const kept = await store.append(record('2026-01-01T10:00:00.000Z'), TEST_SEAL_KEY);
    await writeFile(path.join(dir, 'foreign.json'), '{}');
    await writeFile(path.join(dir, `copy of ${kept.id}.json`), await readFile(path.join(dir, `${kept.id}.json`)));
    await writeFile(path.join(dir, '.gitkeep'), '');
    await writeFile(path.join(dir, `.${kept.id}.json.123.tmp`), '');
    await mkdir(path.join(dir, 'test-runs'));
    await writeFile(path.join(dir, 'test-runs', 'notes.json'), '{}');
    const problem = 'file name: not a record id followed by .json';
    const skipped: SkippedRecord[] = [];
    expect((await ledgerRecords(store, { workspace: 'default@local', onSkipped: (s) => skipped.push(s) })).map((r) => r.id)).toEqual([kept.id]);
    expect(skipped).toEqual([
      { where: path.join(dir, `copy of ${kept.id}.json`), problem },
      { where: path.join(dir, 'foreign.json'), problem },
    ]);
    skipped.length = 0;
    expect((await store.all((s) => skipped.push(s))).map((r) => r.id)).toEqual([kept.id]);
    expect(skipped).toHaveLength(2);
    skipped.length = 0;
    expect(await store.listTestRuns({ workspace: 'default@local', onSkipped: (s) => skipped.push(s) })).toEqual([]);
    expect(skipped).toEqual([{ where: path.join(dir, 'test-runs', 'notes.json'), problem }]);
  });

  it('refuses, with a clear error, a history folder that is a file or is under one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    await writeFile(path.join(dir, 'history'), '');
    for (const folder of [path.join(dir, 'history'), path.join(dir, 'history', 'below')]) {
      const error = await ledgerRecords(new FileHistoryStore(folder), { workspace: 'default@local' }).catch((e: unknown) => e);
      expect(isVoxformError(error) && error.code).toBe('state_unreadable');
      expect((error as Error).message).toBe(`Cannot read the history folder ${folder}: it, or a folder above it, is a file.`);
    }
  });

  it('stops with history_too_large once the records it reads pass the values they may hold together', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const writer = new FileHistoryStore(dir);
    const older = await writer.append(record('2026-01-01T10:00:00.000Z', 'default@local', { desk: agent }), TEST_SEAL_KEY);
    const newer = await writer.append({ ...record('2026-01-02T10:00:00.000Z', 'default@local', { desk: agent }), x_extra: [{}, {}, {}] } as never, TEST_SEAL_KEY);
    const walk = async (store: FileHistoryStore, onSkipped?: (s: SkippedRecord) => void) => {
      const ids: string[] = [];
      for await (const summary of store.summaries({ workspace: 'default@local', onSkipped })) ids.push(summary.id);
      return ids;
    };
    // A record of this shape holds 24 values (28 with the extra field): two fit in 60, never three.
    const reading = () => new FileHistoryStore(dir, undefined, 60);
    expect(await walk(reading())).toEqual([newer.id, older.id]);
    await writer.append(record('2026-01-03T10:00:00.000Z', 'default@local', { desk: agent }), TEST_SEAL_KEY);
    const error = await walk(reading()).catch((e: unknown) => e);
    expect(isVoxformError(error) && error.code).toBe('history_too_large');
    expect((error as Error).message).toBe(
      `The history records in ${dir} hold more than 60 JSON values together (the cap on what one command reads of them), reached at ${older.id}.json; the command stopped there.`,
    );
    // A record past its own budget is still skipped, not a stop.
    const skipped: SkippedRecord[] = [];
    expect(await walk(new FileHistoryStore(dir, { maxBytes: 1 << 20, maxValues: 20, maxDepth: 128 }, 60), (s) => skipped.push(s))).toEqual([]);
    expect(skipped).toHaveLength(3);
  });

  it('keeps of each record only the fields voxform knows: any other a record holds is left out of its summary', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const store = new FileHistoryStore(dir);
    const plain = record('2026-01-01T10:00:00.000Z', 'default@local', { desk: agent });
    const promotedFrom = { workspace: 'staging@local', record: '20251231T100000000Z-aaaaaa' };
    const known = { ...plain, source: { ...plain.source, branch: 'main', promotedFrom }, summary: { ...plain.summary, notApplied: 0 } };
    const extra = 'x'.repeat(1000);
    await store.append({
      ...known,
      notes: extra,
      source: { ...known.source, promotedFrom: { ...promotedFrom, notes: extra }, notes: extra },
      summary: { ...known.summary, notes: extra },
    } as never, TEST_SEAL_KEY);
    const summaries = [];
    for await (const summary of store.summaries({ workspace: 'default@local' })) summaries.push(summary);
    const { agents, ...header } = summaries[0]!;
    const { agents: _, ...knownHeader } = known;
    expect(header).toStrictEqual({ id: summaries[0]!.id, ...knownHeader, previous: null });
    expect(Object.keys(agents)).toEqual(['desk']);
  });

  it('gives two records of the same millisecond different ids that sort by time', () => {
    const at = new Date('2026-11-23T12:05:01.123Z');
    const a = newHistoryId(at);
    expect(a).toMatch(/^20261123T120501123Z-[0-9a-f]{6}$/);
    expect(newHistoryId(at)).not.toBe(a);
    expect(newHistoryId(new Date('2026-11-23T12:05:02Z')) > a).toBe(true);
  });
});
