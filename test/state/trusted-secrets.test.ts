/**
 * Every command learns from the deploy ledger which live values came from `${env:…}`: one record
 * at a time, whole only where an agent took a value from the environment at a place no newer record
 * recorded, never every record of every workspace at once (a ledger of thousands of records, or a planted one, would fill memory).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { HistoryRecord } from '../../src/history/types.js';
import { REDACTED, SecretRegistry } from '../../src/secrets/redact.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { readTrustedSecrets } from '../../src/state/trusted-secrets.js';
import { appliedRecord, TEST_SEAL_KEY } from '../helpers/ledger.js';

/** An apply's record of agent `desk` (id ag_1) with `config`, `maskedPaths` its places filled from the environment. */
function record(workspace: string, at: string, config: Record<string, unknown>, maskedPaths: string[]): Omit<HistoryRecord, 'id'> {
  return appliedRecord(at, workspace, { desk: { id: 'ag_1', config, configHash: `sha256:${'0'.repeat(64)}`, maskedPaths } });
}

describe('readTrustedSecrets', () => {
  it("reads whole only the records with a value from the environment, the newest of a place across the service's workspaces, and learns their places", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-trusted-'));
    const backend = new FileStateBackend(path.join(dir, 'state.json'));
    const withPlace = await backend.history.append(record('default@local', '2026-01-01T10:00:00.000Z', { first_message: 'Code ${env:PROMO_CODE}.' }, ['first_message']), TEST_SEAL_KEY);
    await backend.history.append(record('default@local', '2026-01-02T10:00:00.000Z', { first_message: 'Hello.' }, []), TEST_SEAL_KEY);
    // Another workspace of the service, though the state holds none of it (removed with `state rm`): its ledger is evidence too.
    const newestOfPlace = await backend.history.append(record('prod@local', '2026-01-03T10:00:00.000Z', { first_message: 'Code ${env:PROMO_CODE}.' }, ['first_message']), TEST_SEAL_KEY);
    await backend.history.append(record('default@elsewhere', '2026-01-04T10:00:00.000Z', { prompt: 'Say ${env:PROMO_CODE}' }, ['prompt']), TEST_SEAL_KEY);
    const exported = vi.spyOn(backend, 'exportHistory');
    const read = vi.spyOn(backend.history, 'read');

    const registry = new SecretRegistry();
    const trusted = await readTrustedSecrets(backend, 'default@local', {}, registry, 'service');

    expect(exported).not.toHaveBeenCalled();
    // Another service's record is never read; the older record of the same place is not read either.
    expect(read.mock.calls.map(([, id]) => id)).toEqual([newestOfPlace.id]);
    expect(withPlace.id).not.toBe(newestOfPlace.id);
    // The place the ledger recorded: the live value's part the reference filled is a secret, though the job holds no variable.
    trusted.livePaths('ag_1', { first_message: 'Code SPRING-26.' });
    expect(registry.redact('the code is SPRING-26')).toBe(`the code is ${REDACTED}`);
  });

  it('reads whole, newest first, only a record that recorded a place no newer record did', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vf-trusted-'));
    const backend = new FileStateBackend(path.join(dir, 'state.json'));
    const promptOnly = await backend.history.append(record('default@local', '2026-01-01T10:00:00.000Z', { prompt: 'Say ${env:PROMO_CODE}' }, ['prompt']), TEST_SEAL_KEY);
    await backend.history.append(record('default@local', '2026-01-02T10:00:00.000Z', { first_message: 'Old ${env:PROMO_CODE}.' }, ['first_message']), TEST_SEAL_KEY);
    const newest = await backend.history.append(record('default@local', '2026-01-03T10:00:00.000Z', { first_message: 'Code ${env:PROMO_CODE}.' }, ['first_message']), TEST_SEAL_KEY);
    const read = vi.spyOn(backend.history, 'read');

    const registry = new SecretRegistry();
    const trusted = await readTrustedSecrets(backend, 'default@local', {}, registry, 'service');

    expect(read.mock.calls.map(([, id]) => id)).toEqual([newest.id, promptOnly.id]);
    expect(trusted.ledgerPlaces('ag_1').sort()).toEqual(['first_message', 'prompt']);
    trusted.livePaths('ag_1', { first_message: 'Code SPRING-26.', prompt: 'Say AUTUMN-11' });
    expect(registry.redact('SPRING-26 and AUTUMN-11')).toBe(`${REDACTED} and ${REDACTED}`);
  });
});
