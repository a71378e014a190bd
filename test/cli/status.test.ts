import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireStateLock } from '../../src/state/lock.js';
import { SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';
import { PLAN_JSON_FORMAT_VERSION } from '../../src/plan/format-version.js';
import { STATE_FORMAT_VERSION } from '../../src/state/format-version.js';
import { SCHEMA_VERSION } from '../../src/state/postgres/schema.js';
import { voxformVersion } from '../../src/util/version.js';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The run's whole output, checked for every secret the project knows, then returned. */
function withoutSecrets(result: { stdout: string; stderr: string }, ...keys: string[]): string {
  const all = `${result.stdout}${result.stderr}`;
  for (const secret of [...Object.values(SECRETS), ...keys]) expect(all).not.toContain(secret);
  return all;
}

describe('voxform status (against the emulator)', () => {
  it('before any apply: the service, a private key, no state file, no lock, no last apply', async () => {
    project = await startExampleProject();
    const result = await project.cliInProcess(['status']);
    withoutSecrets(result, project.emulator.apiKey);
    expect(result.stdout).toBe(
      [
        `Service:     ${project.url} (from VOXFORM_BASE_URL)`,
        'Region:      — (not a regional gateway)',
        'API key:     private (accepted for plan and apply)',
        'Environment: default',
        'State:       .voxform/state.json (not there yet; the first apply writes it)',
        'Lock:        not held',
        `Last apply:  none recorded for workspace default@${project.url}`,
        // As --version says it: the formats this voxform reads and writes.
        `Version:     ${voxformVersion()} (plan format ${PLAN_JSON_FORMAT_VERSION}, state format ${STATE_FORMAT_VERSION}, PostgreSQL schema ${SCHEMA_VERSION})`,
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
    // One cheap read, and nothing that changes anything.
    expect(project.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /phones']);
  });

  it('after an apply: the serial and what the last apply did, in text and in versioned JSON', async () => {
    project = await startExampleProject();
    const apply = await project.cliInProcess(['apply', '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    const text = await project.cliInProcess(['status']);
    withoutSecrets(text, project.emulator.apiKey);
    expect(text.stdout).toMatch(/^State: +\.voxform\/state\.json \(serial \d+, workspace default@http:\/\/127\.0\.0\.1:\d+\)$/m);
    expect(text.stdout).toMatch(/^Last apply: +\d{4}-\d\d-\d\dT[\d:.]+Z by .+@.+, "voxform apply", complete: 7 applied, 0 failed, 0 skipped$/m);

    const json = await project.cliInProcess(['status', '--format', 'json']);
    withoutSecrets(json, project.emulator.apiKey);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      format_version: 2,
      service: { base_url: project.url, region: null, source: 'VOXFORM_BASE_URL' },
      key: { type: 'private' },
      state: { file: '.voxform/state.json', exists: true },
      lock: { held: false },
      last_forced_open: null,
      last_apply: { command: 'voxform apply', outcome: 'applied', applied: 7, failed: 0, skipped: 0 },
      voxform: { version: voxformVersion(), plan_format: PLAN_JSON_FORMAT_VERSION, state_format: STATE_FORMAT_VERSION, postgres_schema: SCHEMA_VERSION },
    });
    expect(report.state.serial).toBeGreaterThan(0);
  });

  it('a state file that holds only other workspaces: there, with its serial, this workspace not yet, the others named', async () => {
    project = await startExampleProject();
    const stateFile = path.join(project.dir, '.voxform/state.json');
    await mkdir(path.dirname(stateFile), { recursive: true });
    await writeFile(stateFile, JSON.stringify({ version: 1, serial: 3, workspaces: { 'staging@local': {}, 'default@local': {} } }));
    const text = await project.cliInProcess(['status']);
    expect(text.stdout).toContain(`State:       .voxform/state.json (serial 3; no workspace default@${project.url} yet, the first apply to it makes it; it holds default@local, staging@local)\n`);
    expect(text.code).toBe(0);
    const json = JSON.parse((await project.cliInProcess(['status', '--format', 'json'])).stdout);
    expect(json.state).toEqual({
      file: '.voxform/state.json',
      backend: 'file',
      workspace: `default@${project.url}`,
      exists: true,
      workspace_exists: false,
      other_workspaces: ['default@local', 'staging@local'],
      serial: 3,
    });
  });

  it('a state file whose last workspace was removed: there, with its serial, holding no workspace', async () => {
    project = await startExampleProject();
    const stateFile = path.join(project.dir, '.voxform/state.json');
    await mkdir(path.dirname(stateFile), { recursive: true });
    await writeFile(stateFile, JSON.stringify({ version: 2, serial: 5, workspaces: {} }));
    const text = await project.cliInProcess(['status']);
    expect(text.stdout).toContain(`State:       .voxform/state.json (serial 5; no workspace default@${project.url} yet, the first apply to it makes it; it holds no workspace)\n`);
    const json = JSON.parse((await project.cliInProcess(['status', '--format', 'json'])).stdout);
    expect(json.state).toEqual({ file: '.voxform/state.json', backend: 'file', workspace: `default@${project.url}`, exists: true, workspace_exists: false, serial: 5 });
  });

  it('names the holder of the state lock while an apply holds it', async () => {
    project = await startExampleProject();
    const lock = await acquireStateLock(path.join(project.dir, '.voxform/state.json'), { command: 'voxform apply plan.json', timeoutSeconds: 0, warn: () => undefined });
    try {
      const result = await project.cliInProcess(['status', '--format', 'json']);
      // snake_case, as the report's own keys are.
      const { user, host, pid, command, since } = lock.owner;
      expect(JSON.parse(result.stdout).lock).toEqual({ held: true, lock_id: lock.lockId, user, host, pid, command, since });
      const text = await project.cliInProcess(['status']);
      expect(text.stdout).toContain(`Lock:        held by ${lock.owner.user}@${lock.owner.host} (pid ${process.pid}, "voxform apply plan.json", since ${lock.owner.since}, lock ${lock.lockId})`);
    } finally {
      await lock.release();
    }
    expect((await project.cliInProcess(['status'])).stdout).toContain('Lock:        not held');
  });

  it('a public key: reported as refused for management, exit 1, the key never printed', async () => {
    project = await startExampleProject();
    const created = await project.cliInProcess(['keys', 'create', '--type', 'public']);
    const publicKey = created.stdout.trim();
    expect(publicKey).toMatch(/^\w{32}$/);
    const result = await project.cliInProcess(['status'], { VOXFORM_API_KEY: publicKey });
    withoutSecrets(result, publicKey, project.emulator.apiKey);
    expect(result.stdout).toContain('API key:     public (refused for plan and apply): a public key only starts sessions; plan and apply need a private key\n');
    expect(result.code).toBe(1);
  });

  it('a state that cannot be read: reported, exit 1, as plan would stop on it', async () => {
    project = await startExampleProject();
    const result = await project.cliInProcess(['status', '--state', 'example']);
    withoutSecrets(result, project.emulator.apiKey);
    expect(result.stdout).toContain('State:       example (unreadable: The state file example is a folder, not a file.)\n');
    expect(result.stdout).toContain('Last apply:  not known: the state could not be read (see State above)\n');
    expect(result.code).toBe(1);
    // In JSON, what could not be known is null, not "there, and empty".
    const json = JSON.parse((await project.cliInProcess(['status', '--state', 'example', '--format', 'json'])).stdout) as { state: Record<string, unknown> };
    expect(json.state).toMatchObject({ exists: null, workspace_exists: null, serial: null, problem: 'The state file example is a folder, not a file.' });
    const plan = await project.cliInProcess(['plan', '--state', 'example']);
    expect(plan.stderr).toBe(
      'error[state_unreadable]: The state file example is a folder, not a file.\n  hint: Name the state file itself with --state, such as example/state.json.\n',
    );
    expect(plan.code).toBe(1);
  });

  it('a state database that cannot be reached: the lock unknown, not "not held"; the password never printed', async () => {
    project = await startExampleProject();
    const result = await project.cliInProcess(['status', '--state', 'postgres://voxform:planted-db-pass-31c@127.0.0.1:1/voxform?sslmode=disable', '--format', 'text']);
    expect(result.stdout).toContain('Lock:        unknown (the state could not be read)\n');
    expect(`${result.stdout}${result.stderr}`).not.toContain('planted-db-pass-31c');
    expect(result.code).toBe(1);
  });

  it('a state that is not one voxform wrote: status reports where, exit 1; plan, apply and state list stop with state_invalid, not as a bug', async () => {
    project = await startExampleProject();
    const p = project;
    const stateFile = path.join(p.dir, '.voxform/state.json');
    await mkdir(path.dirname(stateFile), { recursive: true });
    const workspace = `default@${p.url}`;
    const states = [
      { state: null, where: 'it is null' },
      { state: { version: 1, workspaces: { [workspace]: null } }, where: `workspaces[${JSON.stringify(workspace)}] is null` },
      { state: { version: 1, workspaces: { [workspace]: 'x' } }, where: `workspaces[${JSON.stringify(workspace)}] is a string` },
    ];
    for (const { state, where } of states) {
      await writeFile(stateFile, JSON.stringify(state));
      const status = await p.cliInProcess(['status']);
      expect(status.stdout).toContain(`State:       .voxform/state.json (unreadable: The state file .voxform/state.json is not a state voxform wrote: ${where}, where `);
      expect(status.stdout).toContain('Lock:        not held\n');
      expect(status.stdout).toContain('Last apply:  not known: the state could not be read (see State above)\n');
      expect(status.code).toBe(1);
      for (const args of [['plan'], ['state', 'list']]) {
        const refused = await p.cliInProcess(args);
        expect(refused.stderr).toContain(`error[state_invalid]: The state file .voxform/state.json is not a state voxform wrote: ${where}, where `);
        expect(refused.stderr).not.toContain('unexpected problem');
        expect(refused.code).toBe(1);
      }
    }
    const agent = { id: '-OKdqbqetEcM4ak369ym', applied: null };
    await writeFile(stateFile, JSON.stringify({ version: 1, serial: 1, workspaces: { [workspace]: { agents: { 'agent.front-desk': agent } } } }));
    p.requests.length = 0;
    const apply = await p.cliInProcess(['apply', '--auto-approve']);
    expect(apply.stderr).toContain(`error[state_invalid]: The state file .voxform/state.json is not a state voxform wrote: workspaces[${JSON.stringify(workspace)}].agents["agent.front-desk"].applied is null, where an object of field paths and hashes belongs.`);
    expect(apply.code).toBe(1);
    expect(p.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('an unknown key: invalid, exit 1, never printed', async () => {
    project = await startExampleProject();
    const wrongKey = 'Wr0ngKeyWr0ngKeyWr0ngKeyWr0ngKey';
    const result = await project.cliInProcess(['status', '--format', 'json'], { VOXFORM_API_KEY: wrongKey });
    withoutSecrets(result, wrongKey);
    expect(JSON.parse(result.stdout).key.type).toBe('invalid');
    expect(result.code).toBe(1);
  });

  it('a missing or empty key: reported as plan and apply refuse it (not set, or set but empty as a secret a CI job cannot read), exit 1, and nothing is sent', async () => {
    project = await startExampleProject();
    const said = {
      unset: 'API key:     missing (nothing was sent): VOXFORM_API_KEY is not set\n',
      empty: "API key:     missing (nothing was sent): VOXFORM_API_KEY is set but empty (a CI secret the job cannot read arrives empty: a pull request from a fork gets none, nor does a job whose secret is not defined)\n",
    };
    for (const [value, line] of [[undefined, said.unset], ['', said.empty], ['   ', said.empty]] as const) {
      // Unset: the variable left out of the run's environment altogether.
      const result = await project.cliInProcess(['status'], { VOXFORM_API_KEY: value } as Record<string, string>);
      withoutSecrets(result, project.emulator.apiKey);
      expect(result.stdout).toContain(line);
      expect(result.code).toBe(1);
    }
    expect(project.requests).toEqual([]);
  });

  it('a service that does not answer: the key is left unchecked, with the reason, exit 1', async () => {
    project = await startExampleProject();
    // A port that was just free: nothing listens there.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const result = await project.cliInProcess(['status', '--format', 'json'], { VOXFORM_BASE_URL: `http://127.0.0.1:${closed}` });
    withoutSecrets(result, project.emulator.apiKey);
    const report = JSON.parse(result.stdout);
    expect(report.key.type).toBe('unchecked');
    expect(report.key.problem).toMatch(/GET \/phones/);
    expect(result.code).toBe(1);
  });

  it('names the embedded emulator `local` in JSON, as plans do, never by the port it had in this run', async () => {
    project = await startExampleProject();
    const result = await project.cliInProcess(['status', '--local', '--format', 'json'], { VOXFORM_BASE_URL: undefined });
    expect(JSON.parse(result.stdout).service).toEqual({ id: 'local', base_url: 'local', region: null, source: '--local' });
  });

  it('reports manifests that do not load instead of failing, and a regional gateway by name', async () => {
    project = await startExampleProject();
    const result = await project.cliInProcess(['status', '-f', 'nowhere.yaml', '--region', 'eu', '--format', 'json'], { VOXFORM_BASE_URL: undefined, VOXFORM_API_KEY: '' });
    const report = JSON.parse(result.stdout);
    expect(report.manifest).toEqual({ environment: null, problem: 'nowhere.yaml does not exist.' });
    expect(report.service).toEqual({ id: 'https://api-eu-west.millis.ai', base_url: 'https://api-eu-west.millis.ai', region: 'eu', source: '--region' });
    expect(report.key).toEqual({ type: 'missing', problem: "VOXFORM_API_KEY is set but empty (a CI secret the job cannot read arrives empty: a pull request from a fork gets none, nor does a job whose secret is not defined)" });
  });
});
