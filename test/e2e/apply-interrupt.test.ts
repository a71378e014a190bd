/**
 * `voxform apply` stopped while its writes are on the wire (Ctrl-C, SIGTERM, a state write that
 * fails): what reached the service is reported, recorded in the state and the history as far as
 * they can be written, and the next plan and `rollback previous` start from it. The writes are held
 * on their way: by the project's proxy until the test releases them, or by the emulator (fault
 * latency) where the run must also find its next write slow. The test acts once they have arrived,
 * so what it does always falls while they are in flight. The stopped run is a process of its own
 * (what a signal does is what a process does); the applies that set the scene and the commands that
 * read back what it recorded run in the test's process (`cliInProcess`), the same commands without
 * a process's start-up, except a next command the test names (the next plan, `rollback previous`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { thisRun } from '../../src/util/run-identity.js';
import { SAME_SIGNAL_REPEAT_MS } from '../../src/cli/signal-trap.js';
import { spawnCli, useTempDirs } from '../helpers/cli.js';
import { callService, startExampleProject, type ExampleProject } from '../helpers/project.js';

const tempDir = useTempDirs();
let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** Spare agents of the emulator's default seed, by local name. */
const AGENTS = { 'front-desk': '-OKspareAgent0000001', booking: '-OKspareAgent0000002', billing: '-OKspareAgent0000003' };

/** A manifest of `agents` (local name → id), each with `first_message`. */
function manifest(agents: Record<string, string>, firstMessage: string): string {
  const entries = Object.entries(agents).map(([name, id]) => `  ${name}:\n    id: ${id}\n    config:\n      first_message: "${firstMessage}"\n`);
  return `version: 1\nagents:\n${entries.join('')}`;
}

async function projectWith(agents: Record<string, string>, firstMessage: string): Promise<ExampleProject> {
  project = await startExampleProject();
  await writeFile(path.join(project.dir, 'voxform.yaml'), manifest(agents, firstMessage));
  return project;
}

/** The real CLI as a child process in the project, its output collected. */
function runInProject(p: ExampleProject, args: string[], extraEnv: Record<string, string> = {}) {
  return spawnCli(p.dir, { ...p.env, ...extraEnv }, args);
}

/** Waits until `count` requests `method path…` have arrived at the emulator (held there by a fault's latency); their paths. */
async function arrived(p: ExampleProject, method: string, pathPrefix: string, count = 1): Promise<string[]> {
  for (;;) {
    const matching = p.emulator.control.requestLog().filter((entry) => entry.method === method && entry.path.startsWith(pathPrefix));
    if (matching.length >= count) return matching.map((entry) => entry.path);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits out the window in which the same signal again is the first delivered twice: the next one is a second Ctrl-C. */
function pastSameSignalRepeat(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SAME_SIGNAL_REPEAT_MS));
}

function liveAgent(p: ExampleProject, id: string): Promise<Agent> {
  return callService(p, 'GET', `/agents/${encodeURIComponent(id)}`) as Promise<Agent>;
}

/** An operator's rule pack that fails from a timer of its own, outside what voxform awaits, on SIGUSR2. */
const STRAY_ERROR_PACK = `
process.on('SIGUSR2', () => setTimeout(() => { throw new Error('a timer of the pack failed'); }));
export const rules = [{ id: 'passes', level: 'advisory', summary: 'Passes.', hint: 'None.', check: () => [] }];
`;

describe('apply stopped while its writes are in flight', () => {
  it('a second SIGINT stops at once, and says that writes in flight may have reached the service unrecorded', async () => {
    const p = await projectWith(AGENTS, 'v2');
    // Held for good: the second signal does not wait for them.
    const puts = p.hold('PUT', '/agents/');
    const run = runInProject(p, ['apply', '-f', 'voxform.yaml', '--auto-approve', '--parallelism', '2']);
    await puts.arrived(2);
    run.child.kill('SIGINT');
    while (!run.output.stderr.includes('Stopping:')) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(run.output.stderr).toContain('waiting for 2 in flight (Ctrl-C again stops at once, without recording them)…');
    await pastSameSignalRepeat();
    run.child.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);
    expect(run.output.stderr).toContain(
      // The plan to run is this run's: its -f carried, as every printed command carries it.
      'error[interrupted]: voxform stopped at once, on the second signal; writes in flight may have reached the service, and neither the state nor the history records them.\n  hint: Run `voxform plan -f voxform.yaml` to see where things stand.\n',
    );
  });

  it('a second SIGINT still records in the history every change the state records: the writes accepted before it', async () => {
    const p = await projectWith(AGENTS, 'v2');
    // One agent's write held for good; the other two are answered, and recorded once the first signal flushes the state.
    const heldPut = p.hold('PUT', `/agents/${AGENTS.booking}`);
    const run = runInProject(p, ['apply', '--auto-approve', '--parallelism', '3']);
    await heldPut.arrived();
    while (agentsUpdated(p).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill('SIGINT');
    await run.stderrShows('✓ agent.front-desk: updated');
    await run.stderrShows('✓ agent.billing: updated');
    await pastSameSignalRepeat();
    run.child.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);

    const state = JSON.parse(await readFile(path.join(p.dir, '.voxform/state.json'), 'utf8')) as { workspaces: Record<string, { agents: Record<string, unknown> }> };
    const recordedInState = Object.values(state.workspaces).flatMap((workspace) => Object.keys(workspace.agents)).sort();
    expect(recordedInState).toEqual(['agent.billing', 'agent.front-desk']);
    const history = JSON.parse((await p.cliInProcess(['history', '--format', 'json'])).stdout) as { records: Array<{ outcome: string; summary: Record<string, unknown>; agents: Record<string, unknown> }> };
    expect(history.records).toHaveLength(1);
    // The write still held when the run stopped has an unknown outcome: it counts as failed, its agent left out.
    expect(history.records[0]).toMatchObject({ outcome: 'interrupted', summary: { applied: 2, failed: 1 } });
    expect(Object.keys(history.records[0]!.agents).map((name) => `agent.${name}`).sort()).toEqual(recordedInState);
  });

  it('drift --heal --format json stopped at once: stdout is one document, the interrupt (the report waits for the heal it would tell of)', async () => {
    const agents = { 'front-desk': AGENTS['front-desk'] };
    const p = await projectWith(agents, 'v1');
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const live = await liveAgent(p, agents['front-desk']);
    await callService(p, 'PUT', `/agents/${encodeURIComponent(agents['front-desk'])}`, { name: live.name, config: { first_message: 'edited on the dashboard' } });
    const puts = p.hold('PUT', '/agents/');
    const run = runInProject(p, ['drift', '--heal', '--auto-approve', '--format', 'json']);
    await puts.arrived();
    run.child.kill('SIGINT');
    await run.stderrShows('Stopping:');
    await pastSameSignalRepeat();
    run.child.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);
    // The report is printed after the heal, with what it did: stopped at once, there is no outcome to tell, and stdout holds the interrupt alone.
    const envelope = JSON.parse(run.output.stdout) as { error: { code: string; message: string; hint: string } };
    expect(envelope.error.code).toBe('interrupted');
    expect(envelope.error.message).toBe('voxform stopped at once, on the second signal; writes in flight may have reached the service, and neither the state nor the history records them.');
    expect(envelope.error.hint).toBe('Run `voxform plan` to see where things stand.');
  });

  it('on SIGINT with every write waiting to be retried, says at once that it stops, before it saves the state and the history', async () => {
    const p = await projectWith(AGENTS, 'v2');
    p.emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', rateLimit: { burst: 0, retryAfterSeconds: 60, limited: 1000 } }]);
    // VOXFORM_DEBUG: each retry's line says the update waits out its Retry-After, so none is on the wire.
    const run = runInProject(p, ['apply', '-f', 'voxform.yaml', '--auto-approve'], { VOXFORM_DEBUG: '1' });
    while ((run.output.stderr.match(/429 Too Many Requests; attempt 2/g) ?? []).length < Object.keys(AGENTS).length) await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);
    expect(run.output.stderr).toContain('Stopping: no new write is sent (Ctrl-C again stops at once)…\n');
    expect(run.output.stdout).toContain('Apply interrupted: 0 applied, 0 failed, 0 skipped, 3 not applied.\n');
  });

  it('on SIGINT while writes answered with 503 wait to be retried, reports them as failed, possibly applied, never as not applied', async () => {
    const p = await projectWith(AGENTS, 'v2');
    p.emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', errorRate: 1, errorStatus: 503 }]);
    // A 5xx promises nothing of what the service did: unlike a 429's, the withdrawn retry's write may have landed.
    const run = runInProject(p, ['apply', '-f', 'voxform.yaml', '--auto-approve'], { VOXFORM_DEBUG: '1' });
    while ((run.output.stderr.match(/503 Service Unavailable; attempt 2/g) ?? []).length < Object.keys(AGENTS).length) await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill('SIGINT');
    expect(await run.exited, run.output.stderr).toBe(130);
    expect(run.output.stdout).toContain('Apply interrupted: 0 applied, 3 failed, 0 skipped, 0 not applied.\n');
    expect(run.output.stdout).not.toContain('not applied:');
    expect(run.output.stdout).toContain('the service may have applied it');
  });

  it('on SIGINT reports the changes the service accepted as applied, records them, and the next plan shows only the rest', async () => {
    const p = await projectWith(AGENTS, 'v2');
    const puts = p.hold('PUT', '/agents/');
    const run = runInProject(p, ['apply', '--auto-approve', '--parallelism', '2']);
    const reachedPaths = await puts.arrived(2);
    run.child.kill('SIGINT');
    await run.stderrShows('Stopping:');
    puts.release();
    expect(await run.exited, run.output.stderr).toBe(130);
    const { stdout, stderr } = run.output;
    expect(stderr).not.toMatch(/unexpected problem|\n\s+at |Warning/);
    const reached = Object.entries(AGENTS).filter(([, id]) => reachedPaths.includes(`/agents/${id}`)).map(([name]) => `agent.${name}`);
    const rest = Object.keys(AGENTS).map((name) => `agent.${name}`).filter((address) => !reached.includes(address));
    expect(reached).toHaveLength(2);
    expect(stdout).toContain('Apply interrupted: 2 applied, 0 failed, 0 skipped, 1 not applied.\n');
    expect([...stdout.matchAll(/^ {2}applied: (\S+)$/gm)].map((m) => m[1]).sort()).toEqual([...reached].sort());
    expect([...stdout.matchAll(/^ {2}not applied: (\S+)$/gm)].map((m) => m[1])).toEqual(rest);
    for (const [name, id] of Object.entries(AGENTS)) {
      expect((await liveAgent(p, id)).config.first_message).toBe(reached.includes(`agent.${name}`) ? 'v2' : 'Hello! How can I help?');
    }

    const status = await p.cliInProcess(['status']);
    expect(status.stdout).toContain('interrupted: 2 applied, 0 failed, 0 skipped');
    const history = JSON.parse((await p.cliInProcess(['history', '--format', 'json', '--limit', '1'])).stdout);
    expect(history.records[0]).toMatchObject({ outcome: 'interrupted', summary: { applied: 2 } });
    expect(Object.keys(history.records[0].agents).map((name) => `agent.${name}`).sort()).toEqual([...reached].sort());
    const next = JSON.parse((await p.cli(['plan', '--format', 'json'])).stdout) as { resource_changes: Array<{ address: string; action: string }> };
    expect(next.resource_changes.filter((change) => change.action !== 'no-op').map((change) => change.address)).toEqual(rest);
  });

  it('on SIGTERM records the accepted change in the history, so `rollback previous` returns to the configuration before it', async () => {
    const agents = { 'front-desk': AGENTS['front-desk'] };
    const p = await projectWith(agents, 'v1');
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    await writeFile(path.join(p.dir, 'voxform.yaml'), manifest(agents, 'v2'));
    const puts = p.hold('PUT', '/agents/');
    const run = runInProject(p, ['apply', '--auto-approve']);
    await puts.arrived();
    run.child.kill('SIGTERM');
    await run.stderrShows('Stopping:');
    puts.release();
    expect(await run.exited, run.output.stderr).toBe(130);
    // No key sent it: the way to stop at once is another signal.
    expect(run.output.stderr).toContain('Stopping: no new write is sent; waiting for 1 in flight (a second signal stops at once, without recording them)…\n');
    expect(run.output.stderr).not.toContain('Ctrl-C');
    expect(run.output.stdout).toContain('\n  applied: agent.front-desk\n\nApply interrupted: 1 applied, 0 failed, 0 skipped, 0 not applied.\n');
    expect((await liveAgent(p, agents['front-desk'])).config.first_message).toBe('v2');

    const history = JSON.parse((await p.cliInProcess(['history', '--format', 'json', '--limit', '1'])).stdout);
    expect(history.records[0]).toMatchObject({ outcome: 'interrupted', agents: { 'front-desk': { config: { first_message: 'v2' } } } });
    const rollback = await p.cli(['rollback', 'previous', '--auto-approve']);
    expect(rollback.stderr).not.toContain('error');
    expect(rollback.code).toBe(0);
    expect((await liveAgent(p, agents['front-desk'])).config.first_message).toBe('v1');
  });

  it('a stray error (a policy pack\'s timer) stops it as SIGTERM does: the accepted change recorded in the state and the history, then the error, exit 1', async () => {
    const agents = { 'front-desk': AGENTS['front-desk'] };
    const p = await projectWith(agents, 'v1');
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    await writeFile(path.join(p.dir, 'voxform.yaml'), manifest(agents, 'v2'));
    // A pack whose timer throws, outside anything voxform awaits, when the test says (SIGUSR2).
    const packDir = await tempDir({ 'stray-pack.mjs': STRAY_ERROR_PACK });
    const puts = p.hold('PUT', '/agents/');
    const run = runInProject(p, ['apply', '--auto-approve'], { VOXFORM_POLICY_PACKS: path.join(packDir, 'stray-pack.mjs') });
    await puts.arrived();
    run.child.kill('SIGUSR2');
    // Before, the error ended the run at once, the write in flight unrecorded.
    await Promise.race([run.stderrShows('Stopping:'), run.exited]);
    expect(run.output.stderr).toContain('Stopping:');
    puts.release();
    expect(await run.exited, run.output.stderr).toBe(1);
    expect(run.output.stderr.match(/error\[internal_error\]/g)).toHaveLength(1);
    expect(run.output.stdout).toContain('\n  applied: agent.front-desk\n\nApply interrupted: 1 applied, 0 failed, 0 skipped, 0 not applied.\n');
    expect(run.output.stderr).toMatch(/\nerror\[internal_error\]: voxform hit an unexpected problem \(this is a bug; please report it\): a timer of the pack failed\n {2}hint: .*\n$/);
    expect(run.output.stderr).not.toContain('error[interrupted]');
    const history = JSON.parse((await p.cliInProcess(['history', '--format', 'json', '--limit', '1'])).stdout);
    expect(history.records[0]).toMatchObject({ outcome: 'interrupted', agents: { 'front-desk': { config: { first_message: 'v2' } } } });
    const next = JSON.parse((await p.cliInProcess(['plan', '--format', 'json'])).stdout) as { resource_changes: Array<{ action: string }> };
    expect(next.resource_changes.filter((change) => change.action !== 'no-op')).toEqual([]);
  });

  it('announces only the change whose write went out: one waiting its turn in the client is not said to be updating', async () => {
    const p = await projectWith(AGENTS, 'v2');
    const puts = p.hold('PUT', '/agents/');
    // One request on the wire at a time: the next change's PUT waits in the client's queue meanwhile.
    const run = runInProject(p, ['apply', '--auto-approve', '--parallelism', '1']);
    const [reachedPath] = await puts.arrived();
    run.child.kill('SIGINT');
    await run.stderrShows('Stopping:');
    puts.release();
    expect(await run.exited, run.output.stderr).toBe(130);
    const reached = Object.entries(AGENTS).find(([, id]) => reachedPath === `/agents/${id}`)?.[0];
    expect([...run.output.stderr.matchAll(/^(\S+): updating…$/gm)].map((m) => m[1])).toEqual([`agent.${reached}`]);
    expect(run.output.stdout).toContain('Apply interrupted: 1 applied, 0 failed, 0 skipped, 2 not applied.\n');
    expect(p.emulator.control.requestLog().filter((entry) => entry.method === 'PUT')).toHaveLength(1);
  });

  it('lists a change stopped between its writes as partly applied, naming what reached the service', async () => {
    project = await startExampleProject();
    const p = project;
    const imports = p.hold('POST', '/phones/import');
    const run = runInProject(p, ['apply', '--auto-approve']);
    await imports.arrived();
    run.child.kill('SIGINT');
    await run.stderrShows('Stopping:');
    imports.release();
    expect(await run.exited, run.output.stderr).toBe(130);
    const { stdout } = run.output;
    const counts = /^Apply interrupted: (\d+ applied, (\d+) partly applied, 0 failed, 0 skipped, (\d+) not applied)\.$/m.exec(stdout);
    expect(counts, stdout).not.toBeNull();
    expect(stdout).toContain('  partly applied: phone.+15551230002 (import_phone reached the service; set_phone_agent did not)\n');
    expect(p.emulator.control.requestLog().filter((entry) => entry.path === '/phones/+15551230002/set_agent')).toEqual([]);

    // The history and status say what apply said: the partly applied and not applied changes too.
    const [, said, partly, notApplied] = counts as RegExpExecArray;
    expect((await p.cliInProcess(['history'])).stdout).toContain(`; ${said}\n`);
    expect((await p.cliInProcess(['status'])).stdout).toMatch(new RegExp(`^Last apply: .*, interrupted: ${said}$`, 'm'));
    const history = JSON.parse((await p.cliInProcess(['history', '--format', 'json'])).stdout) as { records: Array<{ summary: Record<string, unknown> }> };
    expect(history.records[0]?.summary).toMatchObject({ partly_applied: Number(partly), not_applied: Number(notApplied) });
    const status = JSON.parse((await p.cliInProcess(['status', '--format', 'json'])).stdout) as { last_apply: Record<string, unknown> };
    expect(status.last_apply).toMatchObject({ outcome: 'interrupted', partly_applied: Number(partly), not_applied: Number(notApplied) });

    const next = JSON.parse((await p.cliInProcess(['plan', '--format', 'json'])).stdout) as { resource_changes: Array<{ address: string; requests: Array<{ operation: string }> }> };
    const phone = next.resource_changes.find((change) => change.address === 'phone.+15551230002');
    expect(phone?.requests.map((request) => request.operation)).toEqual(['set_phone_agent']);
  });
});

/** The agents (by address) whose PUT the emulator answered with success. */
function agentsUpdated(p: ExampleProject): string[] {
  const paths = p.emulator.control.requestLog().filter((entry) => entry.method === 'PUT' && entry.status === 200).map((entry) => entry.path);
  return Object.entries(AGENTS).filter(([, id]) => paths.includes(`/agents/${id}`)).map(([name]) => `agent.${name}`);
}

describe('apply whose state write fails midway', () => {
  /** Runs apply over the three agents, does `meddle` once the first PUT is on the wire, and returns the run's output. */
  async function applyMeddledWith(meddle: (p: ExampleProject) => Promise<void>) {
    const p = await projectWith(AGENTS, 'v2');
    // Held by the emulator, not the proxy: the next PUT must be slow as well, or it reaches the
    // service before the run sees what was meddled with.
    p.emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', latencyMs: 2_000 }]);
    const run = runInProject(p, ['apply', '--auto-approve', '--parallelism', '1']);
    await arrived(p, 'PUT', '/agents/');
    await meddle(p);
    const code = await run.exited;
    const { stdout, stderr } = run.output;
    expect(stderr).not.toMatch(/unexpected problem|\n\s+at |Warning|PromiseRejection/);
    const reached = agentsUpdated(p);
    expect(reached.length).toBeGreaterThan(0);
    expect(reached.length).toBeLessThan(3);
    // Every change that reached the service is listed as applied, the one whose state write was
    // refused marked so; the rest as not applied.
    const listed = [...stdout.matchAll(/^ {2}applied(, not recorded in the state)?: (\S+)$/gm)];
    expect(listed.map((m) => m[2]).sort()).toEqual([...reached].sort());
    expect(listed.some((m) => m[1] !== undefined)).toBe(true);
    const notApplied = Object.keys(AGENTS).map((name) => `agent.${name}`).filter((address) => !reached.includes(address));
    expect([...stdout.matchAll(/^ {2}not applied: (\S+)$/gm)].map((m) => m[1]).sort()).toEqual(notApplied.sort());
    return { p, code, stdout, stderr, reached };
  }

  it('the lock forced open: lists what reached the service, then the lock error, exit 1', async () => {
    const { code, stdout, stderr, reached } = await applyMeddledWith(async (p) => {
      // `voxform state unlock --force`, in-process: done long before the held PUT is answered.
      const backend = new FileStateBackend(path.join(p.dir, '.voxform/state.json'));
      const holder = await backend.readLock();
      await backend.forceUnlock(holder!.lockId, thisRun('voxform state unlock --force', undefined));
    });
    expect(code).toBe(1);
    // Who forced it open, and when: this process, as `voxform state unlock --force` records itself.
    const by = `\\S+@\\S+ \\(pid ${process.pid}, "voxform state unlock --force"\\) at [\\d:.TZ-]+`;
    expect(stdout).toMatch(new RegExp(`^Apply stopped: the state lock \\w+ was forced open by ${by}\\. ${reached.length} applied, 0 failed, 0 skipped, ${3 - reached.length} not applied\\.$`, 'm'));
    expect(stderr).toMatch(new RegExp(`\\nerror\\[state_lock_lost\\]: The state lock of \\S*state\\.json is no longer held by this run: the state lock \\w+ was forced open by ${by}\\.\\n {2}hint: .+\\n$`));
  });

  it('the lock forced open while live state is read: error[state_lock_lost] with a hint, nothing applied, exit 1', async () => {
    const p = await projectWith(AGENTS, 'v2');
    p.emulator.control.setFaults([{ path: '/agents/*', method: 'GET', latencyMs: 2_000 }]);
    const run = runInProject(p, ['apply', '--auto-approve', '--parallelism', '1']);
    await arrived(p, 'GET', '/agents/');
    const backend = new FileStateBackend(path.join(p.dir, '.voxform/state.json'));
    const holder = await backend.readLock();
    await backend.forceUnlock(holder!.lockId, thisRun('voxform state unlock --force', undefined));
    expect(await run.exited).toBe(1);
    expect(run.output.stderr).toMatch(/^error\[state_lock_lost\]: Apply stopped before anything was applied: the state lock \w+ was forced open by \S+@\S+ \(pid \d+, "voxform state unlock --force"\) at [\d:.TZ-]+\.\n {2}hint: Nothing was applied or written; .+\n$/);
    expect(agentsUpdated(p)).toEqual([]);
  });

  it('the lock forced open while a campaign and a credential are written: the next plan takes them as unknown and sends them again, a revert included', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const manifest = path.join(p.dir, 'voxform.yaml');
    const original = await readFile(manifest, 'utf8');
    await writeFile(manifest, original.replace('include_metadata_in_prompt: true', 'include_metadata_in_prompt: false'));
    const credential = () => p.emulator.control.state().credentials.find((c) => c.provider === 'openai')?.fingerprint;
    const firstKey = credential();
    const campaignWrites = p.hold('PUT', '/campaigns/');
    const credentialWrites = p.hold('POST', '/user/credentials');
    const run = runInProject(p, ['apply', '--auto-approve'], { OPENAI_API_KEY: 'sk-another-openai-key' });
    await campaignWrites.arrived();
    await credentialWrites.arrived();
    const backend = new FileStateBackend(path.join(p.dir, '.voxform/state.json'));
    await backend.forceUnlock((await backend.readLock())!.lockId, thisRun('voxform state unlock --force', undefined));
    campaignWrites.release();
    credentialWrites.release();
    expect(await run.exited).toBe(1);
    expect(run.output.stdout).toContain('  applied, not recorded in the state: campaign.recall-reminders\n');
    expect(run.output.stdout).toContain('  applied, not recorded in the state: credential.openai\n');
    expect(p.emulator.control.state().campaigns.find((c) => c.id === 'cmp_recall_2026')?.include_metadata_in_prompt).toBe(false);
    expect(credential()).not.toBe(firstKey);

    // Back to what the state last recorded: the service holds the lost run's values, so both are sent again.
    await writeFile(manifest, original);
    const plan = await p.cli(['plan']);
    expect(plan.stdout).toContain('~ campaign.recall-reminders (cmp_recall_2026) will be updated (live state unknown');
    expect(plan.stdout).toContain('~ credential.openai will be set (live state unknown');
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    expect(p.emulator.control.state().campaigns.find((c) => c.id === 'cmp_recall_2026')?.include_metadata_in_prompt).toBe(true);
    expect(credential()).toBe(firstKey);
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('the state written by someone else meanwhile: lists what reached the service, records the run in the history, then the conflict, exit 1', async () => {
    const { p, code, stdout, stderr, reached } = await applyMeddledWith(async (p) => {
      // Another run writes the state without the lock.
      await writeFile(path.join(p.dir, '.voxform/state.json'), JSON.stringify({ version: 1, serial: 100, workspaces: {} }));
    });
    expect(code).toBe(1);
    expect(stdout).toContain(`\nApply finished with errors: ${reached.length} applied, 0 failed, 0 skipped, ${3 - reached.length} not applied.\n`);
    expect(stderr).toMatch(/\nerror\[state_conflict\]: The state in \S*state\.json changed under this run \(it read serial 0; serial 100 is stored now\); nothing was written\.\n {2}hint: .+\n$/);
    p.emulator.control.clearFaults();
    const history = JSON.parse((await p.cliInProcess(['history', '--format', 'json', '--limit', '1'])).stdout);
    expect(history.records[0]).toMatchObject({ outcome: 'failed', summary: { applied: reached.length } });
    expect(Object.keys(history.records[0].agents).map((name) => `agent.${name}`).sort()).toEqual([...reached].sort());
  });
});
