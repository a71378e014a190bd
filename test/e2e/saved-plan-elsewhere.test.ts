/**
 * A saved plan applied where it was not made says where it was made, not only "stale".
 *
 * Each test's apply runs as a process of its own; the plan it starts from is made in the test's
 * process (`runCliInProcess`: the same commands and redaction), a CLI start-up each saved.
 */
import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { useEmulator } from '../helpers/project.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const manifest = (name: string) => `version: 1\nagents:\n  front-desk:\n    id: "${FRONT_DESK}"\n    name: ${name}\n`;

const tempDir = useTempDirs();
const service = useEmulator({ quiet: true });

describe('a saved plan applied against another service', () => {
  it('made with --local, applied to a URL: says both, sends nothing, shows no key', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest('Desk A') });
    const planned = await runCliInProcess(['plan', '--local', '--out', 'plan.json'], { cwd: dir });
    expect(planned.code, planned.stderr).toBe(0);
    const before = service.emulator.control.requestLog().length;
    const applied = await runCli(['apply', 'plan.json'], { cwd: dir, env: service.env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toBe(
      `error[plan_stale]: The saved plan was made with --local; this apply targets ${service.emulator.url}. Nothing was applied.\n` +
        '  hint: Apply it where it was made, or run `voxform plan --out plan.json -f voxform.yaml` here, review it, and apply the new plan.\n',
    );
    expect(applied.stderr).not.toContain(service.emulator.apiKey);
    expect(service.emulator.control.requestLog().slice(before).filter((entry) => entry.method !== 'GET')).toEqual([]);
  });

  it('says so before reading the other service, which may not even be running', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest('Desk A') });
    expect((await runCliInProcess(['plan', '--local', '--out', 'plan.json'], { cwd: dir })).code).toBe(0);
    const applied = await runCli(['apply', 'plan.json'], { cwd: dir, env: { VOXFORM_API_KEY: service.emulator.apiKey, VOXFORM_BASE_URL: 'http://127.0.0.1:9' } });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('error[plan_stale]: The saved plan was made with --local; this apply targets http://127.0.0.1:9. Nothing was applied.');
  });

  it('says so when no key is set either: the key of another service is not the point', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest('Desk A') });
    expect((await runCliInProcess(['plan', '--local', '--out', 'plan.json'], { cwd: dir })).code).toBe(0);
    const applied = await runCli(['apply', 'plan.json'], { cwd: dir, env: {} });
    expect(applied.stderr).toBe(
      'error[plan_stale]: The saved plan was made with --local; this apply targets a service on the network. Nothing was applied.\n' +
        '  hint: Apply it to the embedded emulator with `voxform apply plan.json --local`, or run `voxform plan --out plan.json -f voxform.yaml` for the service, review it, and apply the new plan.\n',
    );
    expect(applied.code).toBe(1);
    // The commands carry this run's choice of state, as every command line voxform prints does.
    const withState = await runCliInProcess(['apply', 'plan.json', '--state', 'ci state.json'], { cwd: dir, env: {} });
    expect(withState.stderr).toContain(
      "hint: Apply it to the embedded emulator with `voxform apply plan.json --local --state 'ci state.json'`, or run `voxform plan --out plan.json -f voxform.yaml --state 'ci state.json'` for the service,",
    );
  });

  it('names a URL the plan file gives without its credentials or query', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest('Desk A') });
    expect((await runCliInProcess(['plan', '--out', 'plan.json'], { cwd: dir, env: service.env })).code).toBe(0);
    const file = path.join(dir, 'plan.json');
    const saved = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...saved, base_url: 'https://someone:hunter2-secret@api.example.com/v1?token=tok-secret-123' }, null, 2));
    const applied = await runCli(['apply', 'plan.json'], { cwd: dir, env: service.env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(`error[plan_stale]: The saved plan was made for https://api.example.com/v1; this apply targets ${service.emulator.url}.`);
    for (const secret of ['someone', 'hunter2', 'tok-secret']) expect(applied.stderr).not.toContain(secret);
  });
});

describe('a saved plan applied from another project', () => {
  it('other manifests: names the folder it was made from and the one you are in', async () => {
    const a = await tempDir({ 'voxform.yaml': manifest('Desk A') });
    const b = await tempDir({ 'voxform.yaml': manifest('Desk B') });
    expect((await runCliInProcess(['plan', '--out', 'plan.json'], { cwd: a, env: service.env })).code).toBe(0);
    const applied = await runCli(['apply', path.join(a, 'plan.json')], { cwd: b, env: service.env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      `error[plan_stale]: The saved plan was made from ${await realpath(a)}; you are in ${await realpath(b)}, whose manifests differ. Nothing was applied.`,
    );
  });

  it('no manifests here at all: the same, not "no manifest found"', async () => {
    const a = await tempDir({ 'voxform.yaml': manifest('Desk A') });
    const b = await tempDir({});
    expect((await runCliInProcess(['plan', '--out', 'plan.json'], { cwd: a, env: service.env })).code).toBe(0);
    const applied = await runCli(['apply', path.join(a, 'plan.json')], { cwd: b, env: service.env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toBe(
      `error[plan_stale]: The saved plan was made from ${await realpath(a)}; you are in ${await realpath(b)}, which does not hold its manifests. Nothing was applied.\n` +
        `  hint: Apply it where it was made, or run \`voxform plan --out ${path.join(a, 'plan.json')} -f voxform.yaml\` here, review it, and apply the new plan.\n`,
    );
  });

  it('the same manifests in another checkout apply', async () => {
    const a = await tempDir({ 'voxform.yaml': manifest('Desk C') });
    const b = await tempDir({ 'voxform.yaml': manifest('Desk C') });
    expect((await runCliInProcess(['plan', '--out', 'plan.json'], { cwd: a, env: service.env })).code).toBe(0);
    const applied = await runCli(['apply', path.join(a, 'plan.json')], { cwd: b, env: service.env });
    expect(applied.code, applied.stderr).toBe(0);
  });
});
