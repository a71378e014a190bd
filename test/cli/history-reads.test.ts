/**
 * `voxform history`, `rollback`, `report` and `promote` read the ledger as summaries, newest first,
 * and `history` stops once it has what it needs; a record is read whole only where its configurations
 * are used (the JSON of the records shown, the record a rollback restores, the record a promotion
 * gives the target). Counted on the file store, in process.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { HistoryRecord } from '../../src/history/types.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { git, initRepository } from '../helpers/git.js';
import { STAGED_MANIFEST } from '../helpers/project.js';
import { countLedgerReads } from '../helpers/ledger.js';

const tempDir = useTempDirs();
const FRONT = '-OKdqbqetEcM4ak369ym';
const BILLING = '-OKdqbqetEcM4ak369yn';
const MANIFEST = `version: 1\nagents:\n  front-desk:\n    id: "${FRONT}"\n    config:\n      first_message: "Hello"\n  billing:\n    id: "${BILLING}"\n    config:\n      first_message: "Hi"\n`;
const RECORDS = 10;

function id(index: number): string {
  return `20261123T1${index}0000000Z-aaaaaa`;
}

/** Record `index` (0 the oldest): front-desk changes in every record, billing only in the first. */
function record(index: number): HistoryRecord {
  const agent = (agentId: string, message: string) => ({ id: agentId, config: { first_message: message }, configHash: `sha256:${createHash('sha256').update(message).digest('hex')}`, maskedPaths: [] });
  return {
    id: id(index),
    workspace: 'default@local',
    at: `2026-11-23T1${index}:00:00.000Z`,
    by: 'dev@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: String(index).repeat(40), branch: 'main' },
    summary: { create: 0, update: 1, unchanged: 1, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: {
      'front-desk': agent(FRONT, index === 0 ? '${env:UNSET_GREETING}' : `front${index}`),
      billing: agent(BILLING, 'bill'),
    },
  };
}

async function project(): Promise<string> {
  const dir = await tempDir({ 'voxform.yaml': MANIFEST });
  const folder = path.join(dir, '.voxform/history');
  await mkdir(folder, { recursive: true });
  for (let index = 0; index < RECORDS; index++) await writeFile(path.join(folder, `${id(index)}.json`), JSON.stringify(record(index)));
  return dir;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('reading the ledger', () => {
  it('history stops once the records shown and the versions before theirs are read, and reads none whole for text', async () => {
    const dir = await project();
    const counts = countLedgerReads();
    const result = await runCliInProcess(['history', '--local', '--limit', '2'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${id(9)}  2026-11-23T19:00:00.000Z  applied\n`);
    expect(result.stdout).toContain(`${id(8)}  2026-11-23T18:00:00.000Z  applied\n`);
    expect(result.stdout.match(/agents changed: front-desk\n/g)).toHaveLength(2);
    expect(counts).toEqual({ summarized: 3, whole: [] });
  });

  it('history --format json reads whole the records it shows, and no other', async () => {
    const dir = await project();
    const counts = countLedgerReads();
    const result = await runCliInProcess(['history', '--local', '--limit', '2', '--format', 'json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout) as { records: Array<{ id: string; agents_changed: string[]; agents: Record<string, { config: unknown }> }> };
    expect(document.records.map((shown) => [shown.id, shown.agents_changed, shown.agents['front-desk']?.config])).toEqual([
      [id(9), ['front-desk'], { first_message: 'front9' }],
      [id(8), ['front-desk'], { first_message: 'front8' }],
    ]);
    expect(counts).toEqual({ summarized: 3, whole: [id(9), id(8)] });
  });

  it('history of an agent the manifests name stops as early; the oldest record changes every agent it holds', async () => {
    const dir = await project();
    const counts = countLedgerReads();
    const result = await runCliInProcess(['history', '--local', '--agent', 'billing', '--limit', '10'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${id(0)}  2026-11-23T10:00:00.000Z  applied\n  by dev@laptop, commit 0000000 on main\n  plan 0 to create, 1 to update, 1 unchanged; 1 applied, 0 failed, 0 skipped\n  agents changed: billing, front-desk (first record: every agent)\n`);
    expect(counts).toEqual({ summarized: RECORDS, whole: [] });
  });

  it('rollback reads whole only the record it restores', async () => {
    const dir = await project();
    const counts = countLedgerReads();
    const result = await runCliInProcess(['rollback', id(0), '--local', '--auto-approve'], { cwd: dir });
    // The restored record reads a variable that is not set: refused once it is read, before any apply.
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Record ${id(0)} cannot be restored`);
    expect(counts).toEqual({ summarized: RECORDS, whole: [id(0)] });
  });

  it('report reads the ledger as summaries, none whole, and still names the fields each version changed', async () => {
    const dir = await project();
    const counts = countLedgerReads();
    const result = await runCliInProcess(['report', '--local', '--format', 'json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { agents: Array<{ agent_id: string; deploys: Array<{ record_id: string; changed_fields: string[] }> }> };
    const deploys = (agent: string) => report.agents.find((reported) => reported.agent_id === agent)?.deploys.map((deploy) => [deploy.record_id, deploy.changed_fields]);
    expect(deploys(FRONT)).toContainEqual([id(9), ['first_message']]);
    // The first record of an agent: what it changed is not known (null), never an empty list.
    expect(deploys(BILLING)).toEqual([[id(0), null]]);
    expect(counts).toEqual({ summarized: RECORDS, whole: [] });
  });

  it("promote reads the source's ledger as summaries, and whole only the record it promotes", async () => {
    const emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'none' });
    cleanups.push(() => emulator.close());
    // Gates that walk the ledger: the soak (how long the configuration has run) and the call evidence.
    const manifest = STAGED_MANIFEST.replace('    promote_from: staging\n', '    promote_from: staging\n    gates: { min_calls: 1, soak: 1d }\n');
    const dir = await tempDir({ 'voxform.yaml': manifest, '.gitignore': '.voxform/\n' });
    const cli = (args: string[]) => runCliInProcess(args, { cwd: dir, env: { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey } });
    initRepository(dir, 'v1');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    await writeFile(path.join(dir, 'voxform.yaml'), manifest.replace('Acme Dental.', 'Acme Dental. Be brief.'));
    git(dir, 'commit', '-qam', 'v2');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);

    const counts = countLedgerReads();
    const result = await cli(['promote', '--to', 'production', '--dry-run']);
    const promoted = /^Promoting staging \(record (\S+), commit [0-9a-f]{7}\) to production\.$/m.exec(result.stdout)?.[1];
    expect(result.stdout).toContain('  ✗ min_calls 1  front-desk ran 0 calls with this configuration, 1 required\n');
    expect(result.stdout).toMatch(/^ {2}✗ soak 1d +deployed .+ ago, 1d required$/m);
    expect(result.code).toBe(1);
    // Each of staging's 3 records summarized twice: by the gates, and by the plan's walk for the
    // ledger's secret places (every workspace of the service), which reads none whole (none took a value from the environment).
    expect(counts).toEqual({ summarized: 6, whole: [promoted] });
  });
});
