import { FileStateBackend } from '../../src/state/file-backend.js';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStateFile, StateStore } from '../../src/state/state-file.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

describe('the last-apply record of a workspace', () => {
  it('is written by recordApplyEnd with time, user@host, command and counts, and read back', async () => {
    const file = path.join(await tempDir(), 'state.json');
    const store = await StateStore.open(new FileStateBackend(file), 'default@local', 'k');
    await store.recordApplyEnd({ command: 'voxform apply plan.json', outcome: 'failed', applied: 3, failed: 1, skipped: 2 });
    const last = (await readStateFile(file)).workspaces['default@local']?.lastApply;
    expect(last).toEqual({ at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), by: expect.stringMatching(/^.+@.+$/), command: 'voxform apply plan.json', outcome: 'failed', applied: 3, failed: 1, skipped: 2 });
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).workspaces['default@local'])).toContain('lastApply');
  });

  it('is dropped when it is not a record voxform wrote (a hand-edited or older file)', async () => {
    const file = path.join(await tempDir(), 'state.json');
    const workspace = { agents: {}, phones: {}, campaigns: {}, knowledge: {}, credentials: {} };
    await writeFile(file, JSON.stringify({ version: 1, serial: 4, workspaces: { 'a@local': { ...workspace, lastApply: { at: 5 } }, 'b@local': { ...workspace, lastApply: 'yesterday' } } }));
    const state = await readStateFile(file);
    expect(state.workspaces['a@local']?.lastApply).toBeUndefined();
    expect(state.workspaces['b@local']?.lastApply).toBeUndefined();
  });
});
