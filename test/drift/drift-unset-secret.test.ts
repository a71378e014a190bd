/**
 * `voxform drift` where a secret's variable is not set (a scheduled job holds no secrets), end to end
 * against the emulator: the places that read it are reported as not compared — never as drift, never
 * with anything of the service's value — everything else is compared, and `--heal` puts back what
 * changed outside voxform while the secret stays on the service as it is. Planted values are searched
 * for in every output and in every file the runs wrote.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run as runDrift } from '../../src/cli/commands/drift.js';
import { BOOKING_ID } from '../../src/emulator/default-seed.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { repoRoot, type CliResult } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';
import type { StopAgain } from '../../src/cli/context.js';
import { callService, useExampleProjects, type ExampleProject } from '../helpers/project.js';
import { editLive, FRONT_DESK, getAgent } from './live-agent.js';

const startProject = useExampleProjects();
const addFormats = addFormatsModule.default;
const HOOK_TOKEN = 'planted-hook-token-5e1f0c2d';
const OPENAI_KEY = 'planted-openai-key-93ab47de';
const DASHBOARD_TOKEN = 'planted-dashboard-token-7c6b';
const HEADER = 'config.session_data_webhook.headers.x-hook-token';

/** The front desk's manifest up to the config fields each test adds. */
const FRONT_DESK_HEAD = [
  'version: 1',
  'agents:',
  '  front-desk:',
  `    id: ${FRONT_DESK}`,
  '    name: Front desk',
  '    config:',
  '      prompt: You are the receptionist of Acme Dental. Be brief.',
];

/** A manifest whose secrets have no default: without their variables, nothing is known of them. */
const MANIFEST = [
  ...FRONT_DESK_HEAD,
  '      first_message: Thanks for calling Acme Dental.',
  '      session_data_webhook:',
  '        url: https://hooks.example.com/voice/end-of-call',
  '        headers: { x-hook-token: "${env:HOOK_TOKEN}" }',
  'credentials:',
  '  - provider: openai',
  '    api_key: ${env:OPENAI_API_KEY}',
  '',
].join('\n');

/** The variables a scheduled job does not have. */
const WITHOUT_SECRETS = { HOOK_TOKEN: undefined, OPENAI_API_KEY: undefined } as unknown as Record<string, string>;

type Json = Record<string, unknown>;

let validateDrift: (value: unknown) => boolean;
beforeAll(async () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas', 'drift.schema.json'), 'utf8')));
  validateDrift = (value) => {
    if (!validate(value)) throw new Error(JSON.stringify(validate.errors));
    return true;
  };
});

async function projectApplied(): Promise<ExampleProject> {
  const p = await startProject();
  await writeFile(path.join(p.dir, 'voxform.yaml'), MANIFEST);
  expectCode(await p.cliInProcess(['apply', '--auto-approve'], { HOOK_TOKEN, OPENAI_API_KEY: OPENAI_KEY }), 0);
  return p;
}

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

/** What a run without the secrets' variables says: the output is searched for the planted values, which its redaction does not know. */
async function withoutSecrets(p: ExampleProject, args: string[], code: number): Promise<CliResult> {
  const result = expectCode(await p.cliInProcess(args, WITHOUT_SECRETS), code);
  for (const secret of [HOOK_TOKEN, OPENAI_KEY, DASHBOARD_TOKEN]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  return result;
}

/** Every file under `dir` but the manifest (the state, the ledger, …): none may hold a planted value. */
async function expectNoSecretInFiles(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === 'voxform.yaml') continue;
    const text = await readFile(path.join(entry.parentPath, entry.name), 'utf8');
    for (const secret of [HOOK_TOKEN, OPENAI_KEY, DASHBOARD_TOKEN]) expect(text, path.join(entry.parentPath, entry.name)).not.toContain(secret);
  }
}

const liveHeader = (agent: Agent) => (agent.config.session_data_webhook as { headers?: Json } | undefined)?.headers?.['x-hook-token'];

describe('voxform drift without the variables of the secrets', () => {
  it('compares everything else and reports the secret places as not compared, in every format, never as drift', async () => {
    const p = await projectApplied();

    const text = (await withoutSecrets(p, ['drift'], 0)).stdout;
    expect(text).toContain('No drift: the service');
    expect(text).toContain(`Not compared, as a variable they read is not set: credential.openai api_key, agent.front-desk ${HEADER} (HOOK_TOKEN).`);
    expect(text).toContain("Their values in the manifests cannot be known without their variables, so they are not reported as differing, and `--heal` leaves the service's value there as it is. Set the variables to compare them.");
    expect(text).not.toContain('env_missing');

    const document = JSON.parse((await withoutSecrets(p, ['drift', '--format', 'json'], 0)).stdout) as Json;
    validateDrift(document);
    expect(document.drift).toBe(false);
    expect(document.resources).toEqual([]);
    expect(document.not_compared).toEqual([
      { address: 'credential.openai', kind: 'credential', path: 'api_key', variables: [] },
      { address: 'agent.front-desk', kind: 'agent', path: HEADER, variables: ['HOOK_TOKEN'] },
    ]);

    const markdown = (await withoutSecrets(p, ['drift', '--format', 'markdown'], 0)).stdout;
    expect(markdown).toContain(`\`agent.front-desk ${HEADER}\` (HOOK_TOKEN)`);

    // Everything else is still compared: a change in git not applied yet is reported, the secrets are not.
    await writeFile(path.join(p.dir, 'voxform.yaml'), MANIFEST.replace('Be brief.', 'Be brief and kind.'));
    const pending = JSON.parse((await withoutSecrets(p, ['drift', '--format', 'json'], 2)).stdout) as { resources: Array<{ address: string; class: string; fields: Array<{ path: string }> }> };
    expect(pending.resources.map((r) => [r.address, r.class, r.fields.map((f) => f.path)])).toEqual([['agent.front-desk', 'pending', ['config.prompt']]]);
    await expectNoSecretInFiles(p.dir);
  }, 120_000);

  it('--heal puts back what changed outside voxform and leaves the secret on the service as it is', async () => {
    const p = await projectApplied();
    await editLive(p, (config) => void (config.first_message = 'Ahoy!'));

    const report = JSON.parse((await withoutSecrets(p, ['drift', '--format', 'json'], 2)).stdout) as { resources: Array<{ address: string; class: string; fields: Array<{ path: string }> }> };
    expect(report.resources.map((r) => [r.address, r.class, r.fields.map((f) => f.path)])).toEqual([['agent.front-desk', 'outside', ['config.first_message']]]);

    const healed = await withoutSecrets(p, ['drift', '--heal', '--auto-approve'], 0);
    expect(healed.stdout).toContain('Healing front-desk: back to the configuration last applied');
    const live = await getAgent(p);
    expect(live.config.first_message).toBe('Thanks for calling Acme Dental.');
    expect(liveHeader(live)).toBe(HOOK_TOKEN);

    // With the variables set, the secret is compared again: what the service holds is what was applied.
    expect(expectCode(await p.cliInProcess(['drift'], { HOOK_TOKEN, OPENAI_API_KEY: OPENAI_KEY }), 0).stdout).toContain('No drift');
    await expectNoSecretInFiles(p.dir);
  }, 120_000);

  it('--heal leaves an agent as the service holds it, saying what it needs, when the secret on the service is not what voxform last applied', async () => {
    const p = await projectApplied();
    await editLive(p, (config) => {
      config.first_message = 'Ahoy!';
      ((config.session_data_webhook as Json).headers as Json)['x-hook-token'] = DASHBOARD_TOKEN;
    });
    const left = await withoutSecrets(p, ['drift', '--heal', '--auto-approve'], 2);
    expect(left.stdout).toContain('Nothing to heal: no difference is one --heal can put back in this run (an agent changed outside voxform whose heal needs a variable not set).\n');
    expect(left.stdout).toContain(
      `Still differs: agent.front-desk config.first_message (changed outside voxform: --heal needs HOOK_TOKEN set to put it back); agent.front-desk ${HEADER} (changed outside voxform: --heal needs HOOK_TOKEN set to put it back). To settle it, set HOOK_TOKEN and run --heal again.`,
    );
    const live = await getAgent(p);
    expect(live.config.first_message).toBe('Ahoy!');
    expect(liveHeader(live)).toBe(DASHBOARD_TOKEN);
    await expectNoSecretInFiles(p.dir);
  }, 120_000);

  it('reports a secret the state says changed on the service as changed outside voxform, its value not shown, in every format', async () => {
    const p = await projectApplied();
    await editLive(p, (config) => void (((config.session_data_webhook as Json).headers as Json)['x-hook-token'] = DASHBOARD_TOKEN));
    const notShown = 'value not shown; set HOOK_TOKEN to compare the manifests with it';

    const text = (await withoutSecrets(p, ['drift'], 2)).stdout;
    expect(text).toContain(`! agent.front-desk (${FRONT_DESK}) changed outside voxform  --heal needs HOOK_TOKEN set to put it back`);
    expect(text).toContain(`~ ${HEADER}: ${notShown}`);
    expect(text).toContain('Not compared, as a variable it reads is not set: credential.openai api_key.');

    const document = JSON.parse((await withoutSecrets(p, ['drift', '--format', 'json'], 2)).stdout) as Json & { resources: Array<{ class: string; fields: Json[] }> };
    validateDrift(document);
    expect(document.resources.map((r) => [r.class, r.fields])).toEqual([
      ['outside', [{ path: HEADER, class: 'outside', live: '(sensitive)', live_unset: false, manifests: null, sensitive: true, value_not_shown: ['HOOK_TOKEN'] }]],
    ]);
    expect(document.not_compared).toEqual([{ address: 'credential.openai', kind: 'credential', path: 'api_key', variables: [] }]);

    expect((await withoutSecrets(p, ['drift', '--format', 'markdown'], 2)).stdout).toContain(`! ${HEADER}: ${notShown}`);
    await expectNoSecretInFiles(p.dir);
  }, 120_000);

  it('says what manifests with errors stopped in drift\'s words', async () => {
    const p = await startProject();
    await writeFile(path.join(p.dir, 'voxform.yaml'), MANIFEST.replace('    name: Front desk\n', '    name: Front desk\n    colour: blue\n'));
    expect((await withoutSecrets(p, ['drift'], 1)).stderr).toContain('error[manifest_invalid]: The manifests have 1 error (listed above); the service was not read: nothing was compared.');
    expect((await withoutSecrets(p, ['drift', '--heal', '--auto-approve'], 1)).stderr).toContain('the service was not read: nothing was compared or healed.');
  }, 60_000);
});

/** A tool whose header reads a secret: the list of tools is kept whole, its header inside it. */
const TOOL_MANIFEST = [
  ...FRONT_DESK_HEAD,
  '      tools:',
  '        - name: book',
  '          description: Books a visit.',
  '          webhook: https://api.example.com/book',
  '          header: { authorization: "${env:HOOK_TOKEN}" }',
  '',
].join('\n');

describe('voxform drift without the variable of a secret inside a value kept whole (a list of tools)', () => {
  async function toolProject(): Promise<ExampleProject> {
    const p = await startProject();
    await writeFile(path.join(p.dir, 'voxform.yaml'), TOOL_MANIFEST);
    expectCode(await p.cliInProcess(['apply', '--auto-approve'], { HOOK_TOKEN }), 0);
    return p;
  }
  type Report = { summary: Json; resources: Array<{ class: string; healable: boolean; heal_needs?: string[]; fields: Array<{ path: string; class: string }> }> };

  it('calls a dashboard edit beside the secret changed outside voxform, the secret not said to change', async () => {
    const p = await toolProject();
    await editLive(p, (config) => void ((config.tools as Json[])[0]!.description = 'Books a visit, now.'));

    const text = (await withoutSecrets(p, ['drift'], 2)).stdout;
    expect(text).toContain(`! agent.front-desk (${FRONT_DESK}) changed outside voxform  --heal needs HOOK_TOKEN set to put it back`);
    expect(text).not.toContain('(sensitive value changed)');
    const document = JSON.parse((await withoutSecrets(p, ['drift', '--format', 'json'], 2)).stdout) as Report;
    validateDrift(document);
    expect(document.resources.map((r) => [r.class, r.fields.map((f) => [f.path, f.class])])).toEqual([['outside', [['config.tools', 'outside']]]]);
    // As the text says: --heal cannot put it back in this run, and what it needs is named (never a value).
    expect(document.resources.map((r) => [r.healable, r.heal_needs])).toEqual([[false, ['HOOK_TOKEN']]]);
    expect(document.summary).toMatchObject({ outside: 1, both: 0, pending: 0 });
    // With the variable set, the same state reads the same.
    expect((await p.cliInProcess(['drift', '--format', 'json'], { HOOK_TOKEN })).stdout).toContain('"outside": 1');
  }, 120_000);

  it('calls an edit in git beside the secret not applied yet, the secret not said to change', async () => {
    const p = await toolProject();
    await writeFile(path.join(p.dir, 'voxform.yaml'), TOOL_MANIFEST.replace('Books a visit.', 'Books a visit or two.'));

    const text = (await withoutSecrets(p, ['drift'], 2)).stdout;
    expect(text).toContain('in git, not applied yet');
    expect(text).not.toContain('(sensitive value changed)');
    expect(text).toContain('+    "description": "Books a visit or two."');
    const document = JSON.parse((await withoutSecrets(p, ['drift', '--format', 'json'], 2)).stdout) as Report;
    expect(document.resources.map((r) => [r.class, r.fields.map((f) => [f.path, f.class])])).toEqual([['pending', [['config.tools', 'pending']]]]);
  }, 120_000);
});

/** The front desk with its secret, and the booking agent: one a heal without the variable cannot put back, one it can. */
const TWO_AGENTS = [...MANIFEST.trimEnd().split('\n').slice(0, -3), '  booking:', `    id: ${BOOKING_ID}`, '    name: Booking', '    config:', '      first_message: Let us find you a time.', ...MANIFEST.trimEnd().split('\n').slice(-3), ''].join('\n');

describe('voxform drift --heal without the variable of a secret changed on the service', () => {
  let receiver: Server | undefined;
  afterEach(async () => {
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    receiver = undefined;
  });

  /** A receiver on loopback that keeps every body posted to it. */
  async function startReceiver(): Promise<{ url: string; bodies: string[] }> {
    const bodies: string[] = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => void (bodies.push(Buffer.concat(chunks).toString('utf8')), res.writeHead(200).end('ok')));
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, bodies };
  }

  async function twoAgentsDrifted(): Promise<ExampleProject> {
    const p = await startProject();
    await writeFile(path.join(p.dir, 'voxform.yaml'), TWO_AGENTS);
    expectCode(await p.cliInProcess(['apply', '--auto-approve'], { HOOK_TOKEN, OPENAI_API_KEY: OPENAI_KEY }), 0);
    await editLive(p, (config) => void (((config.session_data_webhook as Json).headers as Json)['x-hook-token'] = DASHBOARD_TOKEN));
    const booking = `/agents/${encodeURIComponent(BOOKING_ID)}`;
    const live = (await callService(p, 'GET', booking)) as Agent;
    await callService(p, 'PUT', booking, { name: live.name, config: { first_message: 'Ahoy!' } });
    return p;
  }

  it('--watch --heal posts the drift, saying what the heal needs, and heals the agents it can', async () => {
    const p = await twoAgentsDrifted();
    const { url, bodies } = await startReceiver();
    let stopped = () => undefined as void;
    const { ctx, captured, close } = makeContext({ cwd: p.dir, env: { ...p.env, ...WITHOUT_SECRETS } });
    // One stop for all who wait on it: the heal's apply listens for it too.
    const stop = new Promise<StopAgain>((resolve) => (stopped = () => resolve('Ctrl-C again')));
    ctx.interrupted = () => stop;
    const stoppedRun = runDrift({ watch: '10s', heal: true, autoApprove: true, notify: url, notifyFormat: 'slack', lockTimeout: 0 }, ctx, {
      random: () => 0.5,
      sleep: async (_ms, signal) => {
        stopped();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    }).finally(close);
    await expect(stoppedRun).rejects.toMatchObject({ code: 'interrupted' });
    expect(captured.stderr).not.toContain('check failed');
    expect(bodies).toHaveLength(1);
    const posted = JSON.parse(bodies[0] ?? '') as { text: string; blocks: Array<{ text?: { text: string } }> };
    expect(posted.text).toMatch(/ Heal complete: 1 healed, 0 failed\.$/);
    expect(posted.blocks.map((block) => block.text?.text)).toContain(`*agent.front-desk*: changed outside voxform. \`--heal\` needs HOOK_TOKEN set to put it back.\n${HEADER} (changed outside voxform: value not shown; set HOOK_TOKEN to compare the manifests with it)`);
    expect(posted.blocks.map((block) => block.text?.text)).toContain('*agent.booking*: changed outside voxform. `--heal` put it back.\nconfig.first_message (changed outside voxform)');
    expect(((await callService(p, 'GET', `/agents/${encodeURIComponent(BOOKING_ID)}`)) as Agent).config.first_message).toBe('Let us find you a time.');
    expect(liveHeader(await getAgent(p))).toBe(DASHBOARD_TOKEN);
    for (const secret of [HOOK_TOKEN, OPENAI_KEY, DASHBOARD_TOKEN]) expect(`${captured.stdout}${captured.stderr}${bodies.join('')}`).not.toContain(secret);
    await expectNoSecretInFiles(p.dir);
  }, 120_000);
});

/** The two agents with a secret whose reference has a default: without the variable, the default is the manifests' value. */
const DEFAULTED = TWO_AGENTS.replace('"${env:HOOK_TOKEN}"', '"${env:HOOK_TOKEN:-local-dev-token}"');
const ROTATED_TOKEN = 'planted-rotated-token-4d2a';

describe('voxform drift --heal where the variable of a secret no longer gives the value last applied', () => {
  // Unset (its default fills in another value), or set to another value since (rotated).
  it.each([
    ['unset, its default filling in', { ...WITHOUT_SECRETS }],
    ['rotated', { ...WITHOUT_SECRETS, HOOK_TOKEN: ROTATED_TOKEN }],
  ])('never says --heal puts back an agent it cannot, and heals the others (HOOK_TOKEN %s)', async (_how, env) => {
    const p = await startProject();
    await writeFile(path.join(p.dir, 'voxform.yaml'), DEFAULTED);
    expectCode(await p.cliInProcess(['apply', '--auto-approve'], { HOOK_TOKEN, OPENAI_API_KEY: OPENAI_KEY }), 0);
    await editLive(p, (config) => {
      config.first_message = 'Ahoy!';
      ((config.session_data_webhook as Json).headers as Json)['x-hook-token'] = DASHBOARD_TOKEN;
    });
    const booking = `/agents/${encodeURIComponent(BOOKING_ID)}`;
    const live = (await callService(p, 'GET', booking)) as Agent;
    await callService(p, 'PUT', booking, { name: live.name, config: { first_message: 'Ahoy!' } });
    const run = async (args: string[], code: number) => {
      const result = expectCode(await p.cliInProcess(args, env), code);
      for (const secret of [HOOK_TOKEN, OPENAI_KEY, DASHBOARD_TOKEN, ROTATED_TOKEN]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
      return result;
    };

    const text = (await run(['drift'], 2)).stdout;
    expect(text).toContain(`! agent.front-desk (${FRONT_DESK}) changed outside voxform and in git  --heal needs HOOK_TOKEN set to put it back`);
    const document = JSON.parse((await run(['drift', '--format', 'json'], 2)).stdout) as Json & { resources: Array<{ address: string; healable: boolean; heal_needs?: string[] }> };
    validateDrift(document);
    expect(document.resources.map((r) => [r.address, r.healable, r.heal_needs])).toEqual([
      ['agent.booking', true, undefined],
      ['agent.front-desk', false, ['HOOK_TOKEN']],
    ]);

    const healed = await run(['drift', '--heal', '--auto-approve'], 2);
    expect(healed.stdout).toContain('Healing booking: back to the configuration last applied');
    expect(healed.stdout).toContain(`Still differs after the heal: agent.front-desk config.first_message (changed outside voxform: --heal needs HOOK_TOKEN set to put it back); agent.front-desk ${HEADER} (changed outside voxform and in git: --heal needs HOOK_TOKEN set to put it back). To settle it, set HOOK_TOKEN and run --heal again.`);
    expect(((await callService(p, 'GET', booking)) as Agent).config.first_message).toBe('Let us find you a time.');
    const frontDesk = await getAgent(p);
    expect(frontDesk.config.first_message).toBe('Ahoy!');
    expect(liveHeader(frontDesk)).toBe(DASHBOARD_TOKEN);
    await expectNoSecretInFiles(p.dir);
  }, 120_000);
});
