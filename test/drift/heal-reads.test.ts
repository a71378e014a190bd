/**
 * `voxform drift --heal` reads the deploy ledger as summaries, newest first, and stops once every
 * agent it heals has its record; only that record is read whole, never the whole ledger at once (a
 * long ledger of large records would fill memory). Counted on the file store, in process, beside
 * the walk every plan makes for the ledger's secret places, which reads no other record whole here.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callService, useExampleProjects } from '../helpers/project.js';
import { countLedgerReads } from '../helpers/ledger.js';

const startProject = useExampleProjects();
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('drift --heal reading the ledger', () => {
  it('reads whole only the newest record holding the agent, and no record older than it', async () => {
    const p = await startProject();
    const manifest = path.join(p.dir, 'voxform.yaml');
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('response_delay: 300', 'response_delay: 250'));
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const folder = path.join(p.dir, '.voxform/history');
    const newest = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort().at(-1)?.slice(0, -'.json'.length);
    // Older than every record: a walk that reached it would warn that it is skipped.
    await writeFile(path.join(folder, '20000101T000000000Z-aaaaaa.json'), '{"damaged": true}');
    await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: 'Front desk', config: { first_message: 'Ahoy!' } });

    const counts = countLedgerReads();
    const healed = await p.cliInProcess(['drift', '--heal', '--auto-approve']);
    expect(healed.code, `${healed.stdout}\n${healed.stderr}`).toBe(0);
    expect(healed.stdout).toContain(`Healing front-desk: back to the configuration last applied (${newest}).`);
    // Heal's walk would warn of the damaged record had it reached it. The secret places of the live
    // agents are read from every summary (src/state/trusted-secrets.ts), one at a time and silently:
    // whole, only the newest record of each place, which here is the newest record.
    expect(healed.stderr).not.toContain('is skipped');
    expect(new Set(counts.whole)).toEqual(new Set([newest]));
  }, 120_000);
});
