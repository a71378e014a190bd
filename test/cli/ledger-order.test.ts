/**
 * The ledger is in the order applies were appended, whatever the applying machines' clocks say:
 * three applies in the test's process, the second on a clock ten minutes ahead, the third on one
 * behind it (the clock injected, as another machine's). `history` lists the third first; `drift
 * --heal` puts back the third's configuration; `rollback previous` goes back to the second's. A record
 * dated far ahead of the clock is refused by name, never healed back to nor reported as the deploy.
 */
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import type { CliResult } from '../helpers/cli.js';
import { callService, useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const START = Date.parse('2026-11-30T08:00:00.000Z');
const MINUTE = 60_000;

afterEach(() => {
  vi.useRealTimers();
});

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

/** An apply of the prompt with `line` appended, on a machine whose clock says `clock`. */
async function applyAt(p: ExampleProject, line: string | undefined, clock: number): Promise<void> {
  if (line !== undefined) await appendFile(path.join(p.dir, 'example/prompts/front-desk.md'), `${line}\n`);
  vi.setSystemTime(clock);
  expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
}

/** Changes the live agent as a dashboard would (read-only fields are not part of an update). */
async function editFirstMessageLive(p: ExampleProject, text: string): Promise<void> {
  const live = (await callService(p, 'GET', `/agents/${encodeURIComponent(FRONT_DESK)}`)) as Agent;
  const config = structuredClone(live.config) as Record<string, Record<string, unknown> | undefined>;
  delete config.voice?.provider;
  delete (config.flow?.voicemail as Record<string, unknown> | undefined)?.action;
  delete config.llm?.model;
  delete config.speech_to_text?.provider;
  await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: live.name, config: { ...config, first_message: text } });
}

async function livePrompt(p: ExampleProject): Promise<string> {
  return String(((await callService(p, 'GET', `/agents/${encodeURIComponent(FRONT_DESK)}`)) as Agent).config?.prompt);
}

describe('the ledger order', () => {
  it('is the order of the applies, not of their clocks: heal and rollback previous follow it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const p = await startProject();
    await applyAt(p, undefined, START);
    await applyAt(p, 'line B', START + 10 * MINUTE);
    await applyAt(p, 'line C', START + MINUTE);

    const history = JSON.parse(expectCode(await p.cliInProcess(['history', '--format', 'json']), 0).stdout) as { records: Array<{ id: string; at: string }> };
    const [c, b, a] = history.records;
    expect(history.records.map((record) => record.at)).toEqual([START + MINUTE, START + 10 * MINUTE, START].map((ms) => new Date(ms).toISOString()));
    expect([c, b, a].map((record) => record?.id).sort().reverse()).toEqual([c?.id, b?.id, a?.id]);

    // A dashboard edit; the heal puts back what was applied last: C, line C included.
    await editFirstMessageLive(p, 'Edited on the dashboard.');
    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 0).stdout;
    expect(healed).toContain(`Healing front-desk: back to the configuration last applied (${c?.id}).`);
    expect(await livePrompt(p)).toContain('line B\nline C');

    const back = expectCode(await p.cliInProcess(['rollback', 'previous', '--auto-approve']), 0).stdout;
    expect(back).toContain(`to ${b?.id} (`);
    expect(await livePrompt(p)).toMatch(/line B$/);
  }, 120_000);

  it('refuses a record dated far ahead of the clock by name: a heal or a report never takes it for what runs', async () => {
    const p = await startProject();
    await applyAt(p, undefined, Date.now());
    await applyAt(p, 'line B', Date.now());
    const ledger = path.join(p.dir, '.voxform/history');
    const [oldest] = (await readdir(ledger)).filter((name) => name.endsWith('.json')).sort();
    const planted = { ...JSON.parse(await readFile(path.join(ledger, oldest as string), 'utf8')), id: '20991231T235959999Z-ffffff', at: '2099-12-31T23:59:59.999Z' };
    await writeFile(path.join(ledger, `${planted.id}.json`), JSON.stringify(planted, null, 2));
    const refusal = `error[history_record_ahead]: History record ${path.join('.voxform', 'history', `${planted.id}.json`)} is dated more than 24 hours ahead of this machine's clock`;

    await editFirstMessageLive(p, 'Edited on the dashboard.');
    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 1);
    expect(healed.stderr).toContain(refusal);
    expect(await livePrompt(p)).toMatch(/line B$/);

    const report = expectCode(await p.cliInProcess(['report', '--agent', 'front-desk', '--since-deploy']), 1);
    expect(report.stderr).toContain(refusal);
  }, 120_000);
});
