import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import { validateAgainst } from '../../src/schema/validate.js';
import { acquireStateLock } from '../../src/state/lock.js';
import { repoRoot } from '../helpers/cli.js';
import { callService, SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';
import { STATE_FORMAT_VERSION } from '../../src/state/format-version.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/**
 * An example project applied once: the service in the state most tests start from. The apply runs in
 * the test's process (setup, not what those tests are about); the test of the apply itself runs it
 * as a process.
 */
async function applied(options: Parameters<typeof startExampleProject>[0] = {}): Promise<ExampleProject> {
  project = await startExampleProject(options);
  expectFirstApply(await project.cliInProcess(['apply', '--auto-approve']));
  return project;
}

function expectFirstApply(result: { code: number; stderr: string }): void {
  expect(result.stderr).not.toMatch(/error/i);
  expect(result.code).toBe(0);
}

function getAgent(p: ExampleProject, id = FRONT_DESK): Promise<Agent> {
  return callService(p, 'GET', `/agents/${encodeURIComponent(id)}`) as Promise<Agent>;
}

function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe('apply, then plan', () => {
  it('converges: a second plan shows no changes (exit 0 with --detailed-exitcode)', async () => {
    const p = await applied();
    const plan = await p.cli(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 7 unchanged');
    expect(plan.code).toBe(0);
  });

  it('shows an edited prompt line as a diff and exits 2', async () => {
    const p = await applied();
    const promptFile = path.join(p.dir, 'example/prompts/front-desk.md');
    const prompt = await readFile(promptFile, 'utf8');
    await writeFile(promptFile, prompt.replace('- Never give medical advice.', '- Never give medical or legal advice.'));
    const plan = await p.cli(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ agent.front-desk');
    expect(plan.stdout).toContain('~ config.prompt:');
    expect(plan.stdout).toMatch(/^ +-- Never give medical advice\.$/m);
    expect(plan.stdout).toMatch(/^ +\+- Never give medical or legal advice\.$/m);
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 6 unchanged');
  });

  it('marks a managed field changed on the service as drift', async () => {
    const p = await applied();
    const live = await getAgent(p);
    await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: live.name, config: { first_message: 'Changed in the dashboard' } });
    const plan = await p.cli(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('config.first_message: "Changed in the dashboard" → "Thanks for calling Acme Dental');
    expect(plan.stdout).toContain('# drift');
    expect(plan.stdout).toContain('(1 drifted)');
    const json = JSON.parse((await p.cliInProcess(['plan', '--format', 'json'])).stdout);
    expect(json.resource_changes.find((c: { address: string }) => c.address === 'agent.front-desk').reason).toBe('drift');
  });

  it('marks attached knowledge files removed on the service as drift, also after an apply with nothing to do', async () => {
    const p = await applied();
    expect((await p.cliInProcess(['apply', '--auto-approve'])).stdout).toContain('Nothing to apply.');
    await callService(p, 'POST', '/knowledge/set_agent_files', { agent_id: FRONT_DESK, files: [] });
    const plan = await p.cli(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/~ knowledge: \[\] → \["[^"]+"\]  # drift/);
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    expect((await getAgent(p)).config.knowledge_base?.files).toHaveLength(1);
  });

  it('uploads again a knowledge file the service lost, in one apply that also binds the number, after drift said so', async () => {
    const p = await applied();
    // The account starts again from the seed: the state still records the file and its attachment.
    await p.emulator.control.reset();
    const drift = await p.cliInProcess(['drift']);
    expect(drift.stdout).toContain('! knowledge.faq changed outside voxform (no agent lists it any more)');
    const apply = await p.cli(['apply', '--auto-approve']);
    expect(apply.stdout).toContain('+ knowledge.faq gone from the service; will be uploaded again');
    expect(apply.stdout).toContain('Apply complete:');
    expect(apply.code).toBe(0);
    const phones = (await callService(p, 'GET', '/phones')) as Array<{ id: string; agent_id: string }>;
    expect(phones.find((phone) => phone.id === '+15551230001')?.agent_id).toBe(FRONT_DESK);
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('uploads again a knowledge file the service lost after the API key was rotated, in the first apply under the new key', async () => {
    const p = await applied();
    const rotate = async () => ((await callService(p, 'POST', '/api_keys', { type: 'private' })) as { key: string }).key;
    /** As deleting the files in the dashboard: no file on the account, none attached; the keys made so far kept. */
    const loseKnowledgeFiles = async (keys: string[]) => {
      const { agents, phones, campaigns } = p.emulator.control.state();
      const withoutFiles = agents.map((agent) => ({ ...agent, config: { ...agent.config, knowledge_base: { ...agent.config.knowledge_base, files: [] } } }));
      await p.emulator.control.seed({ keys: [p.emulator.apiKey, ...keys].map((key) => ({ type: 'private', key })), agents: withoutFiles, phones, campaigns });
    };
    const applyOnceThenPlan = async (key: string) => {
      const apply = await p.cli(['apply', '--auto-approve'], { VOXFORM_API_KEY: key });
      expect(apply.stdout).toContain('+ knowledge.faq gone from the service; will be uploaded again');
      expect(apply.code).toBe(0);
      expect((await p.cliInProcess(['plan', '--detailed-exitcode'], { VOXFORM_API_KEY: key })).code).toBe(0);
    };
    // Lost before any apply under the new key: the state's hashes are the old key's.
    const first = await rotate();
    await loseKnowledgeFiles([first]);
    await applyOnceThenPlan(first);
    // Lost after an apply under the new key that updated the agent but left its files as they were.
    const second = await rotate();
    const promptFile = path.join(p.dir, 'example/prompts/front-desk.md');
    await writeFile(promptFile, `${await readFile(promptFile, 'utf8')}\n- Be brief.\n`);
    expect((await p.cliInProcess(['apply', '--auto-approve'], { VOXFORM_API_KEY: second })).code).toBe(0);
    await loseKnowledgeFiles([first, second]);
    await applyOnceThenPlan(second);
  });

  it('forgets a recorded file id the service refuses, without blaming the manifest, and the next apply uploads the file again', async () => {
    project = await startExampleProject();
    const p = project;
    // Uploaded but never attached (so the plan cannot ask an agent about it), then lost by the service.
    expect((await p.cliInProcess(['apply', '--auto-approve', '--target', 'knowledge.faq'])).code).toBe(0);
    await p.emulator.control.reset();
    const refused = await p.cli(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/partly applied: agent\.front-desk \(update_agent reached the service; set_agent_files did not: error\[api_validation\]: .*422 body\.files\.0/);
    expect(refused.stdout).toMatch(/hint: The service no longer has the knowledge file the state recorded for knowledge\.faq \(kf_\w+\): .*The manifest is fine/);
    expect(refused.stdout).not.toContain('check them in your manifest');
    // Its number is bound all the same: binding does not wait for the agent's files.
    expect(refused.stdout).not.toContain('skipped: phone.+15551230001');
    const finished = await p.cliInProcess(['apply', '--auto-approve']);
    expect(finished.stdout).toContain('+ knowledge.faq will be uploaded');
    expect(finished.code).toBe(0);
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('does not show unmanaged fields, and keeps them through an apply on a replacing service', async () => {
    const p = await applied();
    const live = await getAgent(p);
    // Unmanaged (vad_threshold, flow.dtmf_dial) and ignored (voice.settings) fields changed in the dashboard.
    const voice = { ...live.config.voice, settings: { stability: 0.11 } };
    const flow = { ...live.config.flow, dtmf_dial: { enabled: true, instruction: 'Press 1 for sales' } };
    delete (voice as Record<string, unknown>).provider;
    delete (flow.voicemail as Record<string, unknown> | undefined)?.action;
    await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: live.name, config: { vad_threshold: 0.77, voice, flow } });
    const plan = await p.cli(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);

    p.emulator.control.setPutMode('replace');
    const manifest = await readFile(path.join(p.dir, 'voxform.yaml'), 'utf8');
    await writeFile(path.join(p.dir, 'voxform.yaml'), manifest.replace('voice_id: ava-warm', 'voice_id: ava-bright').replace('response_delay: 300', 'response_delay: 250'));
    const apply = await p.cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(0);
    const after = await getAgent(p);
    expect(after.config.voice?.voice_id).toBe('ava-bright');
    expect(after.config.voice?.settings).toEqual({ stability: 0.11 });
    expect(after.config.flow?.response_delay).toBe(250);
    expect(after.config.flow?.dtmf_dial).toEqual({ enabled: true, instruction: 'Press 1 for sales' });
    expect(after.config.vad_threshold).toBe(0.77);
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('never sends a read-only field: every agent update is a valid update-shape body', async () => {
    project = await startExampleProject();
    const p = project;
    expectFirstApply(await p.cli(['apply', '--auto-approve']));
    const puts = p.requests.filter((r) => r.method === 'PUT' && r.path.startsWith('/agents/'));
    expect(puts.length).toBeGreaterThanOrEqual(2);
    for (const put of puts) {
      const body = JSON.parse(put.body);
      expect(validateAgainst('UpdateAgentRequest', body)).toEqual([]);
      expect(put.body).not.toMatch(/"provider"|"response_mode"|"model":"gpt|"action"/);
    }
  });

  it('keeps secrets out of every output, the plan file and the state file', { timeout: 90_000 }, async () => {
    project = await startExampleProject();
    const p = project;
    const outputs: string[] = [];
    for (const args of [['validate'], ['plan'], ['plan', '--format', 'json'], ['plan', '--format', 'markdown', '--out', 'plan.json'], ['apply', 'plan.json']]) {
      const result = await p.cli(args, { VOXFORM_DEBUG: '1' });
      outputs.push(result.stdout, result.stderr);
    }
    // A change of a secret only, after the apply: still no value shown.
    const changed = await p.cli(['plan'], { HOOK_TOKEN: 'hook-secret-rotated-000111' });
    outputs.push(changed.stdout, changed.stderr);
    expect(changed.stdout).toContain('config.session_data_webhook.headers.x-hook-token: (sensitive value changed)');
    expect(changed.stdout).not.toContain('hook-secret-rotated-000111');
    outputs.push(await readFile(path.join(p.dir, 'plan.json'), 'utf8'), await readFile(path.join(p.dir, '.voxform/state.json'), 'utf8'));
    for (const text of outputs) {
      expectNoSecret(text);
      expect(text).not.toContain(p.emulator.apiKey);
    }
  });
});

describe('saved plans', () => {
  it('applies a saved plan without --auto-approve, then refuses it once stale', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['plan', '--out', 'plan.json'])).code).toBe(0);
    const apply = await p.cli(['apply', 'plan.json']);
    expect(apply.stdout).toContain('Apply complete: 7 applied, 0 failed, 0 skipped.');
    expect(apply.code).toBe(0);

    // Plan a change, then let the service move before applying it.
    const manifest = await readFile(path.join(p.dir, 'voxform.yaml'), 'utf8');
    await writeFile(path.join(p.dir, 'voxform.yaml'), manifest.replace('temperature: 0.4', 'temperature: 0.5'));
    expect((await p.cliInProcess(['plan', '--out', 'second.json', '--detailed-exitcode'])).code).toBe(2);
    const live = await getAgent(p);
    await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: live.name, config: { first_message: 'Moved meanwhile' } });
    const before = p.requests.length;
    const stale = await p.cli(['apply', 'second.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('The saved plan is stale: live state changed for agent.front-desk');
    expect(p.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await getAgent(p)).config.llm?.temperature).toBe(0.4);
  });

  it("refuses a saved plan applied against another state than it was made against, or once the state recorded another apply", async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve', '--state', 'team/state.json'])).code).toBe(0);
    const file = path.join(p.dir, 'voxform.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('temperature: 0.4', 'temperature: 0.5'));
    expect((await p.cliInProcess(['plan', '--state', 'team/state.json', '--out', 'plan.json'])).code).toBe(0);
    const before = p.requests.length;
    // Without the plan's --state: the deploy would be recorded where the team's next plan never looks.
    const elsewhere = await p.cli(['apply', 'plan.json']);
    expect(elsewhere.code).toBe(1);
    // The files, campaign and credential the plan left alone are then blamed too: their fingerprints are compared with what the state recorded.
    expect(elsewhere.stderr).toContain(
      "error[plan_stale]: The saved plan is stale: the state's record of this workspace is not the one the plan was made against (an apply, heal or rollback ran since, or this apply reads another state); live state changed for",
    );
    expect(elsewhere.stderr).toContain('If the plan was made with another --state (or VOXFORM_STATE), apply it with that one instead.');
    expect(p.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await p.cliInProcess(['apply', 'plan.json', '--state', 'team/state.json'])).stdout).toContain('Apply complete: 1 applied, 0 failed, 0 skipped.');

    // Another apply of the workspace since, of another agent: the plan was reviewed against a record that is gone.
    const edited = (await readFile(file, 'utf8')).replace('temperature: 0.5', 'temperature: 0.6').replace('Hi! I can help you book', 'Hello! I can help you book');
    await writeFile(file, edited);
    expect((await p.cliInProcess(['plan', '--state', 'team/state.json', '--target', 'agent.front-desk', '--out', 'front.json'])).code).toBe(0);
    expect((await p.cliInProcess(['apply', '--auto-approve', '--state', 'team/state.json', '--target', 'agent.booking'])).stdout).toContain('Apply complete: 1 applied');
    const stale = await p.cli(['apply', 'front.json', '--state', 'team/state.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("error[plan_stale]: The saved plan is stale: the state's record of this workspace is not the one the plan was made against (an apply, heal or rollback ran since, or this apply reads another state). Nothing was applied.\n");
  });

  it('refuses a first deploy saved with one state and applied with another, though neither records the workspace yet', async () => {
    project = await startExampleProject();
    const p = project;
    const file = path.join(p.dir, 'voxform.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('temperature: 0.4', 'temperature: 0.5'));
    expect((await p.cliInProcess(['plan', '--state', 'team/state.json', '--out', 'plan.json'])).code).toBe(0);
    const before = p.requests.length;
    const elsewhere = await p.cli(['apply', 'plan.json']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("error[plan_stale]: The saved plan is stale: the state's record of this workspace is not the one the plan was made against (an apply, heal or rollback ran since, or this apply reads another state)");
    expect(p.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    const applied = await p.cliInProcess(['apply', 'plan.json', '--state', 'team/state.json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await readFile(path.join(p.dir, 'team', 'state.json'), 'utf8')).toContain('agent.front-desk');
  });

  it('refuses a saved plan after the manifest changed', async () => {
    project = await startExampleProject();
    const p = project;
    await p.cliInProcess(['plan', '--out', 'plan.json']);
    await writeFile(path.join(p.dir, 'voxform.yaml'), `${await readFile(path.join(p.dir, 'voxform.yaml'), 'utf8')}\n# edited\n`);
    const stale = await p.cli(['apply', 'plan.json']);
    expect(stale.code).toBe(1);
    // That alone: the secrets and live state did not change, and are not blamed.
    expect(stale.stderr).toContain('error[plan_stale]: The saved plan is stale: the manifests (or files they include) changed. Nothing was applied.\n');
  });
});

describe('approval and locking', () => {
  it('refuses to apply without a terminal unless --auto-approve or a plan file', async () => {
    project = await startExampleProject();
    const result = await project.cli(['apply']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Refusing to apply without approval');
    expect(project.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses an apply while another run holds the lock, naming it, and sends nothing, not even a read', async () => {
    project = await startExampleProject();
    const p = project;
    // This test process holds the lock, as a running apply would: no timing involved.
    const stateFile = path.join(p.dir, '.voxform/state.json');
    const holder = await acquireStateLock(stateFile, { command: 'voxform apply (the other run)', timeoutSeconds: 0, warn: () => undefined });
    try {
      const refused = await p.cli(['apply', '--auto-approve']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`is locked by .*\\(pid ${process.pid}, "voxform apply \\(the other run\\)", since `));
      expect(refused.stderr).toContain('hint: Wait for it to finish (or pass --lock-timeout SECONDS to wait)');
      // Nothing is read before the lock is held.
      expect(p.requests).toEqual([]);
      // The manifests are loaded before the lock is asked for: a broken one is reported as such, and nothing is sent.
      const manifestFile = path.join(p.dir, 'voxform.yaml');
      const manifest = await readFile(manifestFile, 'utf8');
      await writeFile(manifestFile, `${manifest}\nagents: [unclosed\n`);
      try {
        const broken = await p.cliInProcess(['apply', '--auto-approve']);
        expect(broken.code).toBe(1);
        expect(broken.stderr).toContain('voxform.yaml:');
        expect(broken.stderr).not.toContain('is locked by');
        expect(p.requests).toEqual([]);
      } finally {
        await writeFile(manifestFile, manifest);
      }
    } finally {
      await holder.release();
    }
    const second = await p.cliInProcess(['apply', '--auto-approve']);
    expect(second.code).toBe(0);
    expect(existsSync(`${stateFile}.lock`)).toBe(false);
  });
});

describe('Ctrl-C while another run holds the lock', () => {
  it.each([
    ['a service on the network', []],
    ['--local (the embedded emulator)', ['--local']],
  ])('ends the wait at once with exit 130, no trace, nothing sent and nothing left behind: %s', async (_, flags) => {
    project = await startExampleProject();
    const p = project;
    const stateFolder = path.join(p.dir, '.voxform');
    const holder = await acquireStateLock(path.join(stateFolder, 'state.json'), { command: 'voxform apply (the other run)', timeoutSeconds: 0, warn: () => undefined });
    try {
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'apply', '--auto-approve', '--lock-timeout', '600', ...flags], {
        cwd: p.dir,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...p.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // Waiting: its own attempt at the lock (a staging folder beside the lock) is there.
      const waiting = async () => (await readdir(stateFolder)).some((name) => name.startsWith('state.json.lock.') && name.endsWith('.tmp'));
      while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill('SIGINT');
      expect(await exited, output).toBe(130);
      expect(output).not.toMatch(/\n\s+at /);
      expect(await waiting()).toBe(false);
      expect(p.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    } finally {
      await holder.release();
    }
  });
});

describe('under faults', () => {
  it('converges through 503s, 429 bursts and dropped connections, and the next plan is empty', async () => {
    project = await startExampleProject();
    const p = project;
    p.emulator.control.setFaults(
      [
        { path: '/phones/**', dropRate: 0.3, dropPhase: 'after' },
        { path: '/agents/**', method: 'PUT', rateLimit: { burst: 1, retryAfterSeconds: 0 } },
        { path: '**', errorRate: 0.15, errorStatus: 503 },
      ],
      { seed: 7 },
    );
    const apply = await p.cli(['apply', '--auto-approve']);
    expect(apply.stdout).toContain('Apply complete: 7 applied, 0 failed, 0 skipped.');
    expect(apply.code).toBe(0);
    const plan = await p.cliInProcess(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
    const log = p.emulator.control.requestLog();
    expect(log.some((entry) => entry.status === 503)).toBe(true);
    expect(log.some((entry) => entry.status === 429)).toBe(true);
    // The number was imported exactly once although connections to /phones were dropped.
    const imports = log.filter((entry) => entry.method === 'POST' && entry.path === '/phones/import' && entry.status === 200);
    expect(imports.length).toBeLessThanOrEqual(1);
    expect(p.emulator.control.state().phones.filter((phone) => phone.id === '+15551230002')).toHaveLength(1);
  });

  it('leaves a valid state file when killed midway, and the next apply converges', async () => {
    project = await startExampleProject();
    const p = project;
    p.emulator.control.setFaults([{ path: '**', latencyMs: 200 }]);
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'apply', '--auto-approve', '--parallelism', '1'], {
      cwd: p.dir,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...p.env },
      stdio: 'ignore',
    });
    const stateFile = path.join(p.dir, '.voxform/state.json');
    const closed = new Promise((resolve) => child.on('close', resolve));
    // Wait until some but not all changes are recorded, then kill without warning.
    for (let i = 0; i < 400; i++) {
      if (existsSync(stateFile) && JSON.parse(await readFile(stateFile, 'utf8')).serial >= 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    await closed;
    const state = JSON.parse(await readFile(stateFile, 'utf8'));
    expect(state.version).toBe(STATE_FORMAT_VERSION);
    p.emulator.control.clearFaults();
    const again = await p.cliInProcess(['apply', '--auto-approve']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('no longer runs');
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});

describe('partial failure', () => {
  it('goes on with independent changes, skips dependents, lists all three, exits 1, and a later apply finishes', async () => {
    project = await startExampleProject();
    const p = project;
    // The front desk's update fails for good (a 500 is not retried); the phone bound to it depends on it.
    p.emulator.control.setFaults([{ path: `/agents/${encodeURIComponent(FRONT_DESK)}`, method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = await p.cli(['apply', '--auto-approve']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Apply finished with errors: 5 applied, 1 failed, 1 skipped.');
    expect(failed.stdout).toMatch(/failed: agent\.front-desk: error\[api_unavailable\]: PUT \/agents\/.* 500/);
    expect(failed.stdout).toMatch(/failed: agent\.front-desk: error\[api_unavailable\]: .*: the service may have applied it\.\n {4}hint: The service may have applied it: `voxform plan` shows what it holds\. \S/);
    expect(failed.stdout).toContain('skipped: phone.+15551230001 (agent.front-desk did not apply)');
    // The verdict comes after the list, with the way on: a quote of the output's end (ci run's) keeps it.
    expect(failed.stdout).toMatch(/\n {2}skipped: phone\.\+15551230001 \(agent\.front-desk did not apply\)\n\nApply finished with errors: 5 applied, 1 failed, 1 skipped\.\nState saved to [^\n]*; run `voxform apply` again to finish\.\n$/);
    expect(failed.stderr).toContain('✗ agent.front-desk');
    expect((await getAgent(p, '-OKdqbqetEcM4ak369yn')).config.first_message).toBe('Hi! I can help you book, move or cancel an appointment.');

    p.emulator.control.clearFaults();
    const finished = await p.cliInProcess(['apply', '--auto-approve']);
    expect(finished.stdout).toContain('Apply complete: 2 applied, 0 failed, 0 skipped.');
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});

describe('a targeted apply that did not finish', () => {
  it('ends with the command that finishes it, every --target kept: without them it would apply what nobody reviewed', async () => {
    project = await startExampleProject();
    const p = project;
    p.emulator.control.setFaults([{ path: `/agents/${encodeURIComponent(FRONT_DESK)}`, method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = await p.cli(['apply', '--auto-approve', '--target', 'agent.front-desk', '--target', 'agent.booking']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Apply finished with errors: 2 applied, 1 failed, 0 skipped.'); // the booking agent's knowledge file too
    expect(failed.stdout).toMatch(/\nState saved to [^\n]*; run `voxform apply --target agent\.front-desk --target agent\.booking` again to finish\.\n$/);
  });
});

describe('partly applied', () => {
  it('lists a change whose first write reached the service as partly applied, and the summary, the history and status agree', async () => {
    project = await startExampleProject();
    const p = project;
    // Every phone binding fails (a 500 is not retried): the new number is imported all the same, and
    // the campaign's name is set before its caller, which waits for that number, is skipped.
    p.emulator.control.setFaults([{ path: '/phones/*/set_agent', errorRate: 1, errorStatus: 500 }]);
    const run = await p.cli(['apply', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Apply finished with errors: 4 applied, 2 partly applied, 1 failed, 0 skipped.');
    expect(run.stdout).toMatch(/partly applied: phone\.\+15551230002 \(import_phone reached the service; set_phone_agent did not: error\[api_unavailable\]: POST .*500.*\)\n {4}hint: \S/);
    expect(run.stdout).toContain('partly applied: campaign.recall-reminders (edit_campaign_info reached the service; set_campaign_caller did not, because phone.+15551230002 did not apply)');
    expect(run.stdout).toMatch(/failed: phone\.\+15551230001: error\[api_unavailable\]/);
    expect(run.stderr).toContain('~ phone.+15551230002: partly applied (import_phone reached the service;');
    const counts = { applied: 4, partly_applied: 2, failed: 1, skipped: 0 };
    const history = JSON.parse((await p.cli(['history', '--format', 'json', '--limit', '1'])).stdout) as { records: Array<{ outcome: string; summary: object }> };
    expect(history.records[0]).toMatchObject({ outcome: 'failed', summary: counts });
    const status = JSON.parse((await p.cli(['status', '--format', 'json'])).stdout) as { last_apply: object };
    expect(status.last_apply).toMatchObject({ outcome: 'failed', ...counts });

    // What reached the service is not sent again: the next apply binds the numbers and sets the caller.
    p.emulator.control.clearFaults();
    const finished = await p.cliInProcess(['apply', '--auto-approve']);
    expect(finished.stdout).toContain('Apply complete: 3 applied, 0 failed, 0 skipped.');
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});

describe('targets and formats', () => {
  it('--target applies only the target and what it depends on', async () => {
    project = await startExampleProject();
    const result = await project.cli(['apply', '--auto-approve', '--target', 'phone.+15551230002']);
    expect(result.stdout).toContain('Apply complete: 2 applied');
    const plan = await project.cliInProcess(['plan']);
    expect(plan.stdout).toContain('Plan: 2 to create, 3 to update, 2 unchanged');
    const unknown = await project.cliInProcess(['plan', '--target', 'agent.frontdesk']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('did you mean agent.front-desk?');
  });

  it('prints a Markdown comment and versioned JSON', async () => {
    project = await startExampleProject();
    const md = await project.cli(['plan', '--format', 'markdown']);
    expect(md.stdout).toMatch(/^### voxform plan: 3 to create, 4 to update, 0 unchanged/);
    expect(md.stdout).toContain('<details><summary><code>agent.front-desk</code>');
    const json = JSON.parse((await project.cli(['plan', '--format', 'json'])).stdout);
    expect(json.format_version).toBe('1.8');
    expect(json.summary).toEqual({ create: 3, update: 4, unchanged: 0, drifted: 0, renamed: 0, swapped: 0 });
  });
});
