import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import { runPrinted, spawnCli } from '../helpers/cli.js';
import { callService, SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';
import { STATE_FORMAT_VERSION } from '../../src/state/format-version.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

interface SavedRequest {
  id: string;
  operation: string;
  method: string;
  path: string;
  body: Record<string, unknown> | null;
  fills: Array<{ at: Array<string | number>; secret?: unknown; result_of?: string }>;
  depends_on: string[];
}

async function savedRequests(p: ExampleProject, file: string): Promise<SavedRequest[]> {
  const saved = JSON.parse(await readFile(path.join(p.dir, file), 'utf8'));
  return saved.resource_changes.flatMap((change: { requests: SavedRequest[] }) => change.requests);
}

/** What the service receives for a planned request: an upload is presign, the file, then create_file. */
function wireRequests(request: SavedRequest): string[] {
  if (request.operation === 'upload_knowledge_file') return ['POST /knowledge/generate_presigned_url', 'POST /knowledge/create_file'];
  return [`${request.method} ${decodeURIComponent(request.path)}`];
}

function valueAt(value: unknown, at: Array<string | number>): unknown {
  return at.reduce<unknown>((current, key) => (current as Record<string | number, unknown> | undefined)?.[key], value);
}

describe('apply PLAN runs the saved plan', () => {
  it('names the saved plan in a command that runs as printed, a path with spaces too', async () => {
    project = await startExampleProject();
    const p = project;
    await mkdir(path.join(p.dir, 'saved plans'));
    const planned = await p.cli(['plan', '--out', "saved plans/tuesday's plan.json"]);
    expect(planned.code, planned.stderr).toBe(0);
    const printed = /Apply exactly this with: (voxform apply .*)$/m.exec(planned.stderr)?.[1];
    expect(printed).toBe("voxform apply 'saved plans/tuesday'\\''s plan.json'");
    const applied = await runPrinted(printed ?? '', { cwd: p.dir, env: p.env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete: 7 applied, 0 failed, 0 skipped.');
  });

  it('sends exactly the saved requests, in dependency order, with the secrets filled in', async () => {
    project = await startExampleProject();
    const p = project;
    // The plan saved is the test's input (its saving is tested above): only the apply runs as a process.
    expect((await p.cliInProcess(['plan', '--out', 'plan.json'])).code).toBe(0);
    const planText = await readFile(path.join(p.dir, 'plan.json'), 'utf8');
    for (const secret of Object.values(SECRETS)) expect(planText).not.toContain(secret);
    const planned = await savedRequests(p, 'plan.json');
    expect(planned.map((r) => r.operation).sort()).toEqual(
      ['update_agent', 'read_agent', 'update_agent', 'read_agent', 'set_agent_files', 'upload_knowledge_file', 'set_credential', 'import_phone', 'set_phone_agent', 'set_phone_agent', 'edit_campaign_info', 'set_campaign_caller'].sort(),
    );

    p.emulator.control.clearRequestLog();
    const proxied = p.requests.length;
    const apply = await p.cli(['apply', 'plan.json']);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 7 applied, 0 failed, 0 skipped.');

    // The staleness check reads the two agents and the phone list; everything else is the plan.
    const log = p.emulator.control.requestLog().filter((entry) => !entry.path.startsWith('/_emulator/'));
    const all = log.map((entry) => `${entry.method} ${entry.path}`);
    // After the run, the deploy ledger reads once more the one agent whose knowledge files were set
    // after its read-back (docs/history.md): a read, after the plan, not part of it.
    expect(all.slice(-1)).toEqual(['GET /agents/-OKdqbqetEcM4ak369ym']);
    const sent = all.slice(0, -1);
    const checks = ['GET /agents/-OKdqbqetEcM4ak369ym', 'GET /agents/-OKdqbqetEcM4ak369yn', 'GET /phones'];
    expect(sent.slice(0, 3).sort()).toEqual(checks.sort());
    expect(sent.slice(3).sort()).toEqual(planned.flatMap(wireRequests).sort());

    // Each request was sent only after those it depends on had been answered.
    const position = new Map<string, number>();
    for (const request of planned) {
      const wire = wireRequests(request);
      position.set(request.id, sent.lastIndexOf(wire[wire.length - 1]!));
    }
    for (const request of planned) {
      for (const dependency of request.depends_on) expect(position.get(request.id)!).toBeGreaterThan(position.get(dependency)!);
    }

    // Bodies are the planned ones; at each fill a real value (a secret, or a new file id) took the placeholder's place.
    const bodies = p.requests.slice(proxied);
    for (const request of planned.filter((r) => r.body && r.operation !== 'upload_knowledge_file')) {
      const match = bodies.find((b) => b.method === request.method && b.path === request.path);
      expect(match, request.id).toBeDefined();
      const body = JSON.parse(match!.body);
      for (const fill of request.fills) {
        const value = valueAt(body, fill.at);
        if (fill.secret) expect(Object.values(SECRETS)).toContain(value);
        else expect(value).toMatch(/^\S+$/);
        expect(value).not.toBe(valueAt(request.body, fill.at));
        // Put the placeholder back: the rest must be exactly what the plan showed.
        const parent = valueAt(body, fill.at.slice(0, -1)) as Record<string | number, unknown>;
        parent[fill.at[fill.at.length - 1]!] = valueAt(request.body, fill.at);
      }
      expect(body, request.id).toEqual(request.body);
    }
  });

  it('refuses a saved plan when a field next to a managed one changed on the service, since its update body would send it back', async () => {
    project = await startExampleProject();
    const p = project;
    // The service brought to where the test starts, and the plan saved, in the test's process: the apply of the plan is the test.
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const manifest = await readFile(path.join(p.dir, 'voxform.yaml'), 'utf8');
    await import('node:fs/promises').then((fs) => fs.writeFile(path.join(p.dir, 'voxform.yaml'), manifest.replace('response_delay: 300', 'response_delay: 250')));
    expect((await p.cliInProcess(['plan', '--out', 'plan.json', '--detailed-exitcode'])).code).toBe(2);
    // Unmanaged, but inside `flow`, which the planned update body carries whole.
    const live = (await callService(p, 'GET', `/agents/${encodeURIComponent(FRONT_DESK)}`)) as Agent;
    const flow = { ...live.config.flow, dtmf_dial: { enabled: true, instruction: 'Press 1 for sales' } };
    delete (flow.voicemail as Record<string, unknown> | undefined)?.action;
    await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: live.name, config: { flow } });
    const before = p.requests.length;
    const stale = await p.cli(['apply', 'plan.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('The saved plan is stale: live state changed for agent.front-desk');
    expect(p.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    const after = (await callService(p, 'GET', `/agents/${encodeURIComponent(FRONT_DESK)}`)) as Agent;
    expect(after.config.flow?.dtmf_dial).toEqual({ enabled: true, instruction: 'Press 1 for sales' });
  });

  it('refuses a saved plan whose requests were edited into something apply cannot run', async () => {
    project = await startExampleProject();
    const p = project;
    // The plan saved is the test's input: only the apply that refuses it runs as a process.
    await p.cliInProcess(['plan', '--out', 'plan.json']);
    const saved = JSON.parse(await readFile(path.join(p.dir, 'plan.json'), 'utf8'));
    const agent = saved.resource_changes.find((c: { address: string }) => c.address === 'agent.front-desk');
    agent.requests[0].depends_on = [agent.requests[1].id];
    await import('node:fs/promises').then((fs) => fs.writeFile(path.join(p.dir, 'plan.json'), JSON.stringify(saved)));
    const refused = await p.cli(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not a valid voxform plan: request agent.front-desk/1 depends on itself');
    expect(p.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses a saved plan edited in any other way: a body changed after review is never sent', async () => {
    project = await startExampleProject();
    const p = project;
    // The plan saved is the test's input: only the apply that refuses it runs as a process.
    await p.cliInProcess(['plan', '--out', 'plan.json']);
    const file = path.join(p.dir, 'plan.json');
    const saved = JSON.parse(await readFile(file, 'utf8'));
    const agent = saved.resource_changes.find((c: { address: string }) => c.address === 'agent.front-desk');
    const put = agent.requests.find((r: { method: string }) => r.method === 'PUT');
    put.body.config.first_message = 'TAMPERED';
    await writeFile(file, `${JSON.stringify(saved, null, 2)}\n`);
    const refused = await p.cli(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[plan_unreadable]: The saved plan was changed after voxform saved it (its plan_digest does not match)');
    expect(p.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    // Saved again untouched, it applies (as a process in the tests above).
    expect((await p.cliInProcess(['plan', '--out', 'plan.json'])).code).toBe(0);
    expect((await p.cliInProcess(['apply', 'plan.json'])).code).toBe(0);
  });

  it('reads nothing a saved plan names before its digest vouches for it: manifests edited to another file are refused, their text never shown', async () => {
    project = await startExampleProject();
    const p = project;
    await p.cliInProcess(['plan', '--out', 'plan.json']);
    const file = path.join(p.dir, 'plan.json');
    const saved = JSON.parse(await readFile(file, 'utf8'));
    // A file outside the project, as a CI job that handed the plan on might have: it must not be read.
    const outside = path.join(path.dirname(p.dir), `outside-${path.basename(p.dir)}.npmrc`);
    await writeFile(outside, '//registry.npmjs.org/:_authToken=npm_PLANTED_TOKEN_77\n');
    const before = p.requests.length;
    try {
      for (const edited of [
        { ...saved, files: [outside] },
        { ...saved, files: [outside], environment: 'nowhere' },
        // A key id of its own: nothing in the plan can be checked, so nothing it names is read either.
        { ...saved, files: [outside], fingerprint_key_id: 'forged' },
      ]) {
        await writeFile(file, `${JSON.stringify(edited, null, 2)}\n`);
        const refused = await p.cli(['apply', 'plan.json']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/^error\[plan_(unreadable|stale)\]: The saved plan (was changed after voxform saved it|was made with another API key)/);
        expect(refused.stdout + refused.stderr).not.toContain('npm_PLANTED_TOKEN_77');
      }
      expect(p.requests.slice(before)).toEqual([]);
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('never saves a plan over a file that is not one, and replaces a plan saved before', async () => {
    project = await startExampleProject();
    const p = project;
    const manifest = await readFile(path.join(p.dir, 'voxform.yaml'), 'utf8');
    const refused = await p.cli(['plan', '--out', 'voxform.yaml']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('error[plan_write_failed]: Cannot save the plan to voxform.yaml: this run reads it (a manifest, a file one names, a test file or a recording); nothing was planned or saved.');
    expect(await readFile(path.join(p.dir, 'voxform.yaml'), 'utf8')).toBe(manifest);
    await writeFile(path.join(p.dir, 'notes.txt'), 'mine\n');
    const notPlan = await p.cli(['plan', '--out', 'notes.txt']);
    expect(notPlan.stderr).toContain(`error[plan_write_failed]: Cannot save the plan to ${path.join(p.dir, 'notes.txt')}: the file exists and is not a plan voxform saved; nothing was saved.`);
    expect(await readFile(path.join(p.dir, 'notes.txt'), 'utf8')).toBe('mine\n');
    // The plan saved before in the test's process; the one saved over it as a process.
    expect((await p.cliInProcess(['plan', '--out', 'plan.json'])).code).toBe(0);
    expect((await p.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
  });

  it('prints only the error, one JSON document, when --out cannot be written', async () => {
    project = await startExampleProject();
    const result = await project.cli(['plan', '--format', 'json', '--out', path.join('no-such-folder', 'plan.json')]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'plan_write_failed' } });
  });

  it('says plainly when --out cannot be written, and leaves nothing behind', async () => {
    project = await startExampleProject();
    const p = project;
    for (const [out, why] of [
      [path.join('no-such-folder', 'plan.json'), 'its folder does not exist'],
      ['example', 'it is a folder'],
    ]) {
      const result = await p.cli(['plan', '--out', out as string]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`error[plan_write_failed]: Cannot save the plan to ${path.join(p.dir, out as string)}: ${why}; nothing was saved.\n  hint: Name a file in a folder that exists and is writable with --out.\n`);
      expect(result.stderr).not.toContain('unexpected problem');
    }
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(p.dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('a phone bound by the id of an agent of the manifests', () => {
  it("waits for that agent's update, and is targeted with it, as when bound by the agent's name", async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const manifest = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"+15551230002":\n    agent: booking', `"+15551230002":\n    agent: { id: ${FRONT_DESK} }`));
    const prompt = path.join(p.dir, 'example/prompts/front-desk.md');
    await writeFile(prompt, `${await readFile(prompt, 'utf8')}\nOne more line.\n`);

    const requestsOf = async (args: string[]): Promise<Map<string, SavedRequest[]>> => {
      const planned = await p.cliInProcess(['plan', '--format', 'json', ...args]);
      expect(planned.code, planned.stderr).toBe(0);
      const changes: Array<{ address: string; requests: SavedRequest[] }> = JSON.parse(planned.stdout).resource_changes;
      return new Map(changes.map((change) => [change.address, change.requests]));
    };
    const whole = await requestsOf([]);
    const update = whole.get('agent.front-desk')?.find((request) => request.operation === 'update_agent');
    const binding = whole.get('phone.+15551230002')?.find((request) => request.operation === 'set_phone_agent');
    expect(update).toBeDefined();
    expect(binding?.depends_on).toEqual([update?.id]);
    const targeted = await requestsOf(['--target', 'phone.+15551230002']);
    expect([...targeted.keys()].sort()).toEqual(['agent.front-desk', 'phone.+15551230002']);
  });
});

describe('command lines printed for the next step', () => {
  it("carry the run's manifests, environment and state, so that pasted they work on the same target", async () => {
    project = await startExampleProject();
    const p = project;
    await writeFile(path.join(p.dir, 'staging.yaml'), await readFile(path.join(p.dir, 'voxform.yaml'), 'utf8'));
    const chosen = ['-f', 'staging.yaml', '--env', 'staging', '--state', 'team state/s.json'];

    // A saved plan names its manifests and environment: its apply line adds only the state.
    const planned = await p.cli(['plan', ...chosen, '--out', 'p.json']);
    expect(planned.code, planned.stderr).toBe(0);
    const printed = /Apply exactly this with: (.*)$/m.exec(planned.stderr)?.[1];
    expect(printed).toBe("voxform apply p.json --state 'team state/s.json'");
    const refused = await p.cli(['apply', 'p.json', '--env', 'staging', '--state', 'team state/s.json']);
    expect(refused.stderr).toContain("hint: Run `voxform apply p.json --state 'team state/s.json'` without -f, --env, --target or --take-over");

    // A saved plan that did not finish is stale: its way on is a new plan of staging's manifests
    // into the same file, reviewed, then applied; never an apply of the manifests, which nobody reviewed.
    p.emulator.control.setFaults([{ path: '/agents/-OKstagingBooking0001', method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = await runPrinted(printed ?? '', { cwd: p.dir, env: p.env });
    expect(failed.code).toBe(1);
    const [, replan, reapply] = /; to finish, run `(.*)`, review the new plan, and run `(.*)`\.\n$/.exec(failed.stdout) ?? [];
    expect(replan).toBe("voxform plan --out p.json -f staging.yaml --env staging --state 'team state/s.json'");
    expect(reapply).toBe(printed);
    expect(failed.stdout).not.toContain('again to finish');
    p.emulator.control.clearFaults();
    expect((await runPrinted(printed ?? '', { cwd: p.dir, env: p.env })).stderr).toContain('error[plan_stale]');
    const replanned = await runPrinted(replan ?? '', { cwd: p.dir, env: p.env });
    expect(replanned.code, replanned.stderr).toBe(0);
    // What the failure left: the staging booking agent and what depends on it.
    expect(replanned.stdout).toContain('agent.booking (-OKstagingBooking0001)');
    expect(replanned.stdout).not.toContain('-OKdqbqetEcM4ak369yn');
    const finished = await runPrinted(reapply ?? '', { cwd: p.dir, env: p.env });
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stdout).toMatch(/Apply complete: \d+ applied, 0 failed, 0 skipped\./);
    expect(JSON.parse(await readFile(path.join(p.dir, 'team state/s.json'), 'utf8')).version).toBe(STATE_FORMAT_VERSION);
  });

  it("say, when a saved plan's apply loses its lock, to plan it again to see where things stand", async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['plan', '--out', 'p.json'])).code).toBe(0);
    const agentUpdates = p.hold('PUT', '/agents/');
    const running = p.cli(['apply', 'p.json', '--parallelism', '1']);
    const lockDir = path.join(p.dir, '.voxform/state.json.lock');
    // Once a first change is applied and an agent's update is on the wire, open the lock as an operator would.
    await agentUpdates.arrived();
    expect(p.requests.filter((r) => r.method !== 'GET').length).toBeGreaterThanOrEqual(2);
    const lockId = /^holder-([0-9a-f]+)\.json$/.exec((await readdir(lockDir)).find((name) => name.startsWith('holder-')) ?? '')?.[1] ?? '';
    expect((await p.cliInProcess(['state', 'unlock', '--force', lockId])).code).toBe(0);
    agentUpdates.release();
    const result = await running;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'What was recorded before the loss is in .voxform/state.json; run `voxform plan --out p.json -f voxform.yaml` to see where things stand, review the new plan, and run `voxform apply p.json`.\n',
    );
  }, 90_000);

  it('finish a plain apply that did not finish with the same apply again', async () => {
    project = await startExampleProject();
    const p = project;
    p.emulator.control.setFaults([{ path: '/agents/-OKdqbqetEcM4ak369yn', method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = await p.cli(['apply', '--auto-approve']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/; run `voxform apply` again to finish\.\n$/);
  });
});

describe('interrupting apply', () => {
  it('on SIGINT sends no new write, saves the state, lists what was applied, exits 130; the next plan shows only the rest', async () => {
    project = await startExampleProject();
    const p = project;
    const agentUpdates = p.hold('PUT', '/agents/');
    const run = spawnCli(p.dir, p.env, ['apply', '--auto-approve', '--parallelism', '1']);
    // Signal once a first change is reported applied and an agent's update is on the wire: some work done, more to come.
    await agentUpdates.arrived();
    await run.stderrShows('✓ ');
    run.child.kill('SIGINT');
    await run.stderrShows('Stopping:');
    agentUpdates.release();
    expect(await run.exited).toBe(130);
    const { stdout, stderr } = run.output;
    expect(stderr).toContain('Stopping: no new write is sent');
    const summary = /Apply interrupted: (\d+) applied(?:, (\d+) partly applied)?, 0 failed, 0 skipped, (\d+) not applied\./.exec(stdout);
    expect(summary, stdout).not.toBeNull();
    const applied = [...stdout.matchAll(/^ {2}applied: (\S+)$/gm)].map((m) => m[1]!);
    // A change stopped between two of its writes (an import and its binding) is left to do too.
    const partly = [...stdout.matchAll(/^ {2}partly applied: (\S+) /gm)].map((m) => m[1]!);
    const notApplied = [...stdout.matchAll(/^ {2}not applied: (\S+)$/gm)].map((m) => m[1]!);
    expect(applied.length).toBe(Number(summary![1]));
    expect(applied.length).toBeGreaterThan(0);
    expect(partly.length).toBe(Number(summary![2] ?? 0));
    expect(notApplied.length).toBe(Number(summary![3]));
    expect(notApplied.length).toBeGreaterThan(0);
    expect(stdout).toContain('run `voxform apply` again to finish');

    const state = JSON.parse(await readFile(path.join(p.dir, '.voxform/state.json'), 'utf8'));
    expect(state.version).toBe(STATE_FORMAT_VERSION);
    // What the stopped process left is read back in the test's process: the stop is what runs as one.
    const next = JSON.parse((await p.cliInProcess(['plan', '--format', 'json'])).stdout) as { resource_changes: Array<{ address: string; action: string }> };
    const pending = next.resource_changes.filter((c) => c.action !== 'no-op').map((c) => c.address);
    for (const address of applied) expect(pending).not.toContain(address);
    expect(pending.sort()).toEqual([...partly, ...notApplied].sort());
    const finish = await p.cliInProcess(['apply', '--auto-approve']);
    expect(finish.code).toBe(0);
    expect(finish.stdout).toContain(`Apply complete: ${pending.length} applied`);
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});
