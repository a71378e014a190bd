import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileHistoryStore, newHistoryId } from '../../src/history/file-store.js';
import type { HistoryRecord } from '../../src/history/types.js';

function record(at: string, workspace = 'default@local', agents: HistoryRecord['agents'] = {}): Omit<HistoryRecord, 'id'> {
  return {
    workspace,
    at,
    by: 'dev@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: 'a'.repeat(40) },
    summary: { create: 0, update: 1, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents,
  };
}

const agent = { id: 'ag1', config: { prompt: 'hi' }, configHash: 'sha256:x', maskedPaths: [] };

describe('FileHistoryStore', () => {
  it('lists a workspace newest first, filtered by agent and limited', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const store = new FileHistoryStore(dir);
    const first = await store.append(record('2026-01-01T10:00:00.000Z', 'default@local', { desk: agent }));
    const second = await store.append(record('2026-01-02T10:00:00.000Z'));
    await store.append(record('2026-01-03T10:00:00.000Z', 'prod@local', { desk: agent }));
    expect((await store.list({ workspace: 'default@local' })).map((r) => r.id)).toEqual([second.id, first.id]);
    expect((await store.list({ workspace: 'default@local', agent: 'desk' })).map((r) => r.id)).toEqual([first.id]);
    expect((await store.list({ workspace: 'default@local', limit: 1 })).map((r) => r.id)).toEqual([second.id]);
  });

  it('skips a damaged record instead of failing the whole listing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-history-'));
    const store = new FileHistoryStore(dir);
    const kept = await store.append(record('2026-01-01T10:00:00.000Z'));
    await writeFile(path.join(dir, `${newHistoryId(new Date('2026-01-05T00:00:00Z'))}.json`), '{ not json');
    expect((await store.list({ workspace: 'default@local' })).map((r) => r.id)).toEqual([kept.id]);
    expect(await readdir(dir)).toHaveLength(2);
  });

  it('gives two records of the same millisecond different ids that sort by time', () => {
    const at = new Date('2026-11-23T12:05:01.123Z');
    const a = newHistoryId(at);
    expect(a).toMatch(/^20261123T120501123Z-[0-9a-f]{6}$/);
    expect(newHistoryId(at)).not.toBe(a);
    expect(newHistoryId(new Date('2026-11-23T12:05:02Z')) > a).toBe(true);
  });
});
