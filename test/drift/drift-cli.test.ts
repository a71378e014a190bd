/**
 * `voxform drift` end to end: the built CLI against the emulator on loopback. Apply; change an
 * agent's prompt and an ignored field through the service directly → exit 2, the prompt reported as
 * changed outside voxform and the ignored field not at all; `--notify` delivers to a receiver on
 * loopback in both formats; `--heal` puts the prompt back, recorded as a heal; then exit 0. Also a
 * change in git not applied yet, and a field changed on both sides, each classified as such.
 */
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run as runDrift } from '../../src/cli/commands/drift.js';
import type { GracefulStop, StopAgain } from '../../src/cli/context.js';
import { repoRoot, spawnCli, type CliResult } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';
import { callService, SECRETS, useExampleProjects, type ExampleProject } from '../helpers/project.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { editLive, getAgent } from './live-agent.js';
import { BOOKING_ID, defaultSeed } from '../../src/emulator/default-seed.js';

const startProject = useExampleProjects();

/** What a graceful stop says the moment its signal arrives (src/cli/context.ts, `stoppingLine`); after SIGTERM, which no key sent, no Ctrl-C. */
const WATCH_STOPPING = 'Stopping… (Ctrl-C again stops at once).\n';
const WATCH_STOPPING_ON_SIGTERM = 'Stopping… (a second signal stops at once).\n';

const addFormats = addFormatsModule.default;

type Json = Record<string, unknown>;
interface DriftJson {
  format_version: string;
  drift: boolean;
  summary: { checked: number; outside: number; pending: number; both: number; unlabelled: number; unrecorded: number };
  resources: Array<{ address: string; class: string; healable: boolean; healed?: boolean; fields: Array<{ path: string; class: string; live: unknown; manifests: unknown }> }>;
}

let validateDrift: (value: unknown) => boolean;
let validateHistory: (value: unknown) => boolean;

async function compile(schema: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas', schema), 'utf8')));
  return (value: unknown) => {
    const ok = validate(value);
    if (!ok) throw new Error(`${schema}: ${JSON.stringify(validate.errors)}`);
    return ok;
  };
}

beforeAll(async () => {
  validateDrift = await compile('drift.schema.json');
  validateHistory = await compile('history.schema.json');
});

let receiver: Server | undefined;
afterEach(async () => {
  if (receiver) {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  }
  receiver = undefined;
});

/** A receiver on loopback that keeps every body posted to it and answers `status`. */
async function startReceiver(status = 200): Promise<{ url: string; bodies: Array<{ path: string; body: string }> }> {
  const bodies: Array<{ path: string; body: string }> = [];
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, bodies };
}

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

async function driftJson(p: ExampleProject, code = 2): Promise<DriftJson> {
  const document = JSON.parse(expectCode(await p.cliInProcess(['drift', '--format', 'json']), code).stdout) as DriftJson;
  validateDrift(document);
  return document;
}

function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe('voxform drift', () => {
  it('reports a dashboard edit of the prompt (not of an ignored field), notifies in both formats, heals it, and then finds no drift', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    expect(expectCode(await p.cliInProcess(['drift']), 0).stdout).toContain('No drift');
    const appliedPrompt = (await getAgent(p)).config.prompt;

    await editLive(p, (config) => {
      config.prompt = 'You are a pirate. Answer every question with a sea shanty.';
      (config.voice as Json).settings = { stability: 0.11 };
    });

    const text = expectCode(await p.cliInProcess(['drift']), 2).stdout;
    expect(text).toContain('! agent.front-desk (-OKdqbqetEcM4ak369ym) changed outside voxform  --heal puts it back');
    expect(text).toContain('~ config.prompt:');
    expect(text).toContain('-You are a pirate. Answer every question with a sea shanty.');
    expect(text).not.toContain('voice.settings');
    expect(text).toContain('Drift: 1 resource differs: 1 changed outside voxform, 0 in git not applied yet, 0 both (7 resources checked).');

    const document = await driftJson(p);
    expect(document.summary).toEqual({ checked: 7, outside: 1, pending: 0, both: 0, unlabelled: 0, environment: 0, unrecorded: 0 });
    expect(document.resources.map((r) => [r.address, r.class, r.healable, r.fields.map((f) => [f.path, f.class])])).toEqual([
      ['agent.front-desk', 'outside', true, [['config.prompt', 'outside']]],
    ]);
    expect(document.resources[0]?.fields[0]?.manifests).toBe(appliedPrompt);

    const markdown = expectCode(await p.cliInProcess(['drift', '--format', 'markdown']), 2).stdout;
    expect(markdown).toContain('| `agent.front-desk` | changed outside voxform | `config.prompt` | puts it back |');

    const { url, bodies } = await startReceiver();
    expectCode(await p.cliInProcess(['drift', '--notify', `${url}/json`]), 2);
    expectCode(await p.cliInProcess(['drift', '--notify', `${url}/slack/T000/B000/XXXX`, '--notify-format', 'slack', '--format', 'json']), 2);
    expect(bodies.map((b) => b.path)).toEqual(['/json', '/slack/T000/B000/XXXX']);
    const posted = JSON.parse(bodies[0]?.body ?? '') as DriftJson;
    validateDrift(posted);
    expect(posted.resources[0]?.fields[0]?.path).toBe('config.prompt');
    const slack = JSON.parse(bodies[1]?.body ?? '') as { text: string; blocks: Array<{ type: string; text?: { text: string } }> };
    expect(slack.text).toMatch(/^voxform drift on default@http:\/\/127\.0\.0\.1:\d+: 1 changed outside voxform, 0 in git not applied yet, 0 both \(7 resources checked\)\.$/);
    expect(slack.blocks[1]?.text?.text).toBe('*agent.front-desk*: changed outside voxform. `--heal` puts it back.\nconfig.prompt (changed outside voxform)');
    expectNoSecret(bodies.map((b) => b.body).join('\n'));

    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve', '--notify', `${url}/healed`, '--notify-format', 'slack']), 0);
    expect(healed.stdout).toMatch(/Healing front-desk: back to the configuration last applied \(\d{8}T\d{6}\d{3}Z-[0-9a-f]{6}\)\./);
    // Posted once, after the heal, with what it did.
    expect(bodies.map((b) => b.path)).toEqual(['/json', '/slack/T000/B000/XXXX', '/healed']);
    const healedSlack = JSON.parse(bodies[2]?.body ?? '') as { text: string; blocks: Array<{ type: string; text?: { text: string } }> };
    expect(healedSlack.text).toMatch(/ Heal complete: 1 healed, 0 failed\.$/);
    expect(healedSlack.blocks[1]?.text?.text).toBe('*agent.front-desk*: changed outside voxform. `--heal` put it back.\nconfig.prompt (changed outside voxform)');
    expect(healed.stdout).toContain('~ agent.front-desk');
    const after = await getAgent(p);
    expect(after.config.prompt).toBe(appliedPrompt);
    // The ignored field is the dashboard's: the heal leaves it as it is.
    expect(after.config.voice?.settings).toEqual({ stability: 0.11 });
    expect(expectCode(await p.cliInProcess(['drift']), 0).stdout).toContain('No drift');

    const history = JSON.parse(expectCode(await p.cliInProcess(['history', '--format', 'json']), 0).stdout) as {
      records: Array<{ id: string; command: string; source: { heal_of: string[] | null; rollback_of: string | null }; agents: Json; agents_changed: string[] }>;
    };
    validateHistory(history);
    const [heal, first] = history.records;
    expect(heal?.command).toBe('voxform drift --heal');
    expect(heal?.source.heal_of).toEqual([first?.id]);
    expect(Object.keys(heal?.agents ?? {})).toEqual(['front-desk']);
    expect(heal?.agents_changed).toEqual(['front-desk']);
    expect(first?.source.heal_of).toBeNull();
    expect(expectCode(await p.cliInProcess(['history', '--limit', '1']), 0).stdout).toMatch(new RegExp(`heal of drift: back to ${first?.id}\\n.*\\n  agents changed: front-desk\\n`));
    expectNoSecret([text, JSON.stringify(document), markdown, healed.stdout, healed.stderr].join('\n'));
  }, 120_000);

  it('classifies a change in git not applied yet, and a field changed on both sides; --heal puts back only what changed outside', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    const manifestFile = path.join(p.dir, 'voxform.yaml');
    const manifest = await readFile(manifestFile, 'utf8');
    await writeFile(manifestFile, manifest.replace('response_delay: 300', 'response_delay: 250').replace('temperature: 0.4', 'temperature: 0.2'));

    const pending = await driftJson(p);
    expect(pending.resources.map((r) => [r.address, r.class, r.healable, r.fields.map((f) => [f.path, f.class])])).toEqual([
      ['agent.front-desk', 'pending', false, [['config.flow.response_delay', 'pending'], ['config.llm.temperature', 'pending']]],
    ]);
    expect(expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 2).stdout).toContain('Nothing to heal');

    await editLive(p, (config) => {
      (config.llm as Json).temperature = 0.9;
      config.first_message = 'Ahoy!';
    });
    const mixed = await driftJson(p);
    expect(mixed.summary).toEqual({ checked: 7, outside: 0, pending: 0, both: 1, unlabelled: 0, environment: 0, unrecorded: 0 });
    expect(mixed.resources.map((r) => [r.address, r.class, r.healable, r.fields.map((f) => [f.path, f.class])])).toEqual([
      [
        'agent.front-desk',
        'both',
        true,
        [
          ['config.first_message', 'outside'],
          ['config.flow.response_delay', 'pending'],
          ['config.llm.temperature', 'both'],
        ],
      ],
    ]);
    const text = expectCode(await p.cliInProcess(['drift']), 2).stdout;
    expect(text).toContain('~ config.first_message [changed outside voxform]: "Ahoy!" → "Thanks for calling Acme Dental, this is Ava. How can I help you today?"');
    expect(text).toContain('~ config.llm.temperature [changed outside voxform and in git]: 0.9 → 0.2');

    // The last applied configuration comes back, not the manifests': what is in git stays to apply.
    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve', '--format', 'json']), 2);
    // The JSON report comes after the heal and says what it put back.
    const report = JSON.parse(healed.stdout) as DriftJson & { heal: { records: string[]; healed: string[]; failed: string[] } };
    validateDrift(report);
    expect([report.heal.healed, report.heal.failed, report.heal.records.length]).toEqual([['agent.front-desk'], [], 1]);
    expect(report.resources.map((r) => [r.address, r.healable, r.healed])).toEqual([['agent.front-desk', true, true]]);
    // The heal's plan marks the field changed on both sides in the report's words, not as one the manifests left alone.
    expect(healed.stderr).toContain('~ config.llm.temperature: 0.9 → 0.4  # drift: changed outside voxform\n');
    expect(healed.stderr).not.toContain('not in the manifest');
    // Closed in the heal's words, then what it left and what settles it: the field changed on both sides
    // gets what was last applied, which the manifests have since changed (the drift below says so too).
    expect(healed.stderr).toContain(
      '\nHeal complete: 1 healed, 0 failed, 0 skipped.\nStill differs after the heal: agent.front-desk config.flow.response_delay (in git, not applied yet); agent.front-desk config.llm.temperature (in git, not applied yet). To settle it, run `voxform apply` to make the service match the manifests.\n',
    );
    const live = await getAgent(p);
    expect(live.config.first_message).toBe('Thanks for calling Acme Dental, this is Ava. How can I help you today?');
    expect(live.config.llm?.temperature).toBe(0.4);
    expect(live.config.flow?.response_delay).toBe(300);
    const left = await driftJson(p);
    expect(left.resources.map((r) => [r.address, r.class, r.fields.map((f) => [f.path, f.class])])).toEqual([
      ['agent.front-desk', 'pending', [['config.flow.response_delay', 'pending'], ['config.llm.temperature', 'pending']]],
    ]);
  }, 120_000);

  it('heals an agent whose key was renamed and not applied yet: its last applied configuration is found by its id, and it is put back under its new key', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    const appliedMessage = (await getAgent(p)).config.first_message;
    await editLive(p, (config) => {
      config.first_message = 'Ahoy!';
    });
    const manifestFile = path.join(p.dir, 'voxform.yaml');
    const manifest = await readFile(manifestFile, 'utf8');
    await writeFile(manifestFile, manifest.replaceAll(/^( +)front-desk:/gm, '$1reception:').replace('agent: front-desk', 'agent: reception'));

    expect(expectCode(await p.cliInProcess(['drift']), 2).stdout).toContain('! agent.reception (-OKdqbqetEcM4ak369ym) changed outside voxform  --heal puts it back');
    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 0);
    expect(healed.stdout).toMatch(/Healing reception: back to the configuration last applied \(\d{8}T\d{9}Z-[0-9a-f]{6}\)\./);
    expect((await getAgent(p)).config.first_message).toBe(appliedMessage);
    // The rename is applied with it, as a plain apply would: nothing is left to apply.
    expect(expectCode(await p.cliInProcess(['drift']), 0).stdout).toContain('No drift');
    expect(expectCode(await p.cliInProcess(['plan']), 0).stdout).not.toContain('agent.front-desk');
  }, 120_000);

  it('records a heal of an environment with its --env, as an apply records its own', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--env', 'staging', '--auto-approve']), 0);
    const staging = `/agents/${encodeURIComponent('-OKstagingFrontDesk01')}`;
    const live = (await callService(p, 'GET', staging)) as Agent;
    await callService(p, 'PUT', staging, { name: live.name, config: { first_message: 'Ahoy!' } });
    expectCode(await p.cliInProcess(['drift', '--heal', '--env', 'staging', '--auto-approve']), 0);
    const history = JSON.parse(expectCode(await p.cliInProcess(['history', '--env', 'staging', '--format', 'json']), 0).stdout) as { records: Array<{ command: string }> };
    expect(history.records.map((record) => record.command)).toEqual(['voxform drift --heal --env staging', 'voxform apply --env staging']);
  }, 120_000);

  it('refuses to heal an agent no record holds, its hint naming the apply with this run\'s options', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await editLive(p, (config) => {
      config.first_message = 'Ahoy!';
    });
    await rm(path.join(p.dir, '.voxform', 'history'), { recursive: true, force: true });
    const refused = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve', '-f', 'voxform.yaml']), 1);
    expect(refused.stderr).toContain('error[drift_heal_unrecorded]: Cannot heal agent.front-desk');
    expect(refused.stderr).toContain('Run `voxform apply -f voxform.yaml` to make the agents match the manifests instead.');
  }, 120_000);

  it('reports an applied agent the service lost as gone from the service (not healable) in every format and --notify, still comparing the rest; plan says it was applied before', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await editLive(p, (config) => {
      config.first_message = 'Ahoy!';
    });
    // The account as it is now, without the booking agent: deleted in the dashboard.
    const account = p.emulator.control.state();
    await p.emulator.control.seed({ keys: defaultSeed().keys, agents: account.agents.filter((agent) => agent.id !== BOOKING_ID), phones: account.phones, campaigns: account.campaigns });

    // The note's apply carries this run's options, as every command voxform suggests.
    const text = expectCode(await p.cliInProcess(['drift', '-f', 'voxform.yaml']), 2).stdout;
    expect(text).toContain('! agent.booking (-OKdqbqetEcM4ak369yn) changed outside voxform (gone from the service)\n');
    expect(text).toContain('! agent.front-desk (-OKdqbqetEcM4ak369ym) changed outside voxform  --heal puts it back');
    expect(text).toContain(
      'Gone from the service: agent.booking. voxform applied it there, and the service no longer has it; it cannot create agents, so `--heal` cannot put it back: create it again in the dashboard, put its new id in the manifests, then run `voxform apply -f voxform.yaml`.',
    );
    const document = await driftJson(p);
    expect(document.summary).toEqual({ checked: 7, outside: 2, pending: 0, both: 0, unlabelled: 0, environment: 0, unrecorded: 0 });
    expect(document.resources.map((r) => [r.address, r.class, r.healable, r.fields.map((f) => f.path)])).toContainEqual(['agent.booking', 'outside', false, []]);
    const markdown = expectCode(await p.cliInProcess(['drift', '--format', 'markdown', '-f', 'voxform.yaml']), 2).stdout;
    expect(markdown).toContain('| `agent.booking` | changed outside voxform (gone from the service) |  | — |');
    expect(markdown).toContain('then run `voxform apply -f voxform.yaml`.');
    expect(markdown).not.toContain('<summary><code>agent.booking</code>');
    const { url, bodies } = await startReceiver();
    expectCode(await p.cliInProcess(['drift', '--notify', url, '--notify-format', 'slack', '-f', 'voxform.yaml']), 2);
    expect(bodies[0]?.body).toContain('*agent.booking*: changed outside voxform (gone from the service).');
    expect(bodies[0]?.body).toContain('then run `voxform apply -f voxform.yaml`.');

    const plan = expectCode(await p.cliInProcess(['plan']), 1);
    expect(plan.stderr).toContain('agent.booking: the service has no agent with id "-OKdqbqetEcM4ak369yn", though voxform applied it there (the state records it): it was deleted on the service since.');
  }, 120_000);

  it('--heal with nothing it can put back says so without denying the edits outside voxform (a number rebound, an agent deleted, its knowledge detached), and names what settles the rest', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    // The booking agent deleted in the dashboard, and a number bound to another agent there: neither is an agent's field.
    const account = p.emulator.control.state();
    await p.emulator.control.seed({ keys: defaultSeed().keys, agents: account.agents.filter((agent) => agent.id !== BOOKING_ID), phones: account.phones, campaigns: account.campaigns });
    await callService(p, 'POST', `/phones/${encodeURIComponent('+15551230001')}/set_agent`, { agent_id: '-OKspareAgent0000001' });
    // And the knowledge file detached from the front desk: an agent changed outside voxform, but not in what the ledger records.
    await editLive(p, (config) => {
      config.knowledge_base = { files: [] };
    });

    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve', '-f', 'voxform.yaml']), 2);
    expect(healed.stdout).toContain('! agent.booking (-OKdqbqetEcM4ak369yn) changed outside voxform (gone from the service)\n');
    expect(healed.stdout).toContain(
      "Nothing to heal: no difference is one --heal puts back (an agent's name or configuration changed outside voxform).\n" +
        'Still differs: knowledge.faq content_hash (changed outside voxform); knowledge.faq description (changed outside voxform); knowledge.faq name (changed outside voxform); agent.front-desk knowledge (changed outside voxform); phone.+15551230001 agent_id (changed outside voxform) and 1 more. ' +
        'To settle it, run `voxform apply -f voxform.yaml` to make the service match the manifests; the notes above say what to do about the rest.\n',
    );
  }, 120_000);

  it('after the API key is rotated, shows the differences unlabelled (no outside edit claimed, nothing to heal) until the next apply records them again', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    const manifestFile = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifestFile, (await readFile(manifestFile, 'utf8')).replace('temperature: 0.4', 'temperature: 0.5'));
    expect((await driftJson(p)).resources.find((r) => r.address === 'agent.front-desk')?.class).toBe('pending');

    const rotated = { VOXFORM_API_KEY: expectCode(await p.cliInProcess(['keys', 'create', '--type', 'private']), 0).stdout.trim() };
    const document = JSON.parse(expectCode(await p.cliInProcess(['drift', '--format', 'json'], rotated), 2).stdout) as DriftJson;
    validateDrift(document);
    const agent = document.resources.find((r) => r.address === 'agent.front-desk');
    expect([agent?.class, agent?.healable, agent?.fields.map((f) => [f.path, f.class, f.live, f.manifests])]).toEqual(['unlabelled', false, [['config.llm.temperature', 'unlabelled', 0.4, 0.5]]]);
    // The credential's fingerprint was made under the old key too: it is not said to be in git and not applied yet.
    expect(document.resources.find((r) => r.address === 'credential.openai')?.class).toBe('unlabelled');
    expect(document.summary).toMatchObject({ outside: 0, pending: 0, both: 0, unlabelled: 2 });

    const text = expectCode(await p.cliInProcess(['drift'], rotated), 2).stdout;
    expect(text).toContain('! agent.front-desk (-OKdqbqetEcM4ak369ym) not labelled (last applied under another API key)\n');
    expect(text).toContain('Not labelled: credential.openai, agent.front-desk. What voxform last applied there was recorded under another API key');
    expect(text).toContain('The next `voxform apply` records them under this key and drift labels them again.');
    expect(text).not.toContain('--heal puts it back');
    expect(text).not.toContain('changed outside voxform and in git');
    expect(expectCode(await p.cliInProcess(['drift', '--format', 'markdown'], rotated), 2).stdout).toContain('| `agent.front-desk` | not labelled (last applied under another API key) | `config.llm.temperature` | — |');
    const { url, bodies } = await startReceiver();
    expectCode(await p.cliInProcess(['drift', '--notify', url, '--notify-format', 'slack'], rotated), 2);
    const slack = JSON.parse(bodies[0]?.body ?? '') as { text: string; blocks: Array<{ text?: { text: string } }> };
    expect(slack.text).toMatch(/: 0 changed outside voxform, 0 in git not applied yet, 0 both, 2 not labelled \(7 resources checked\)\.$/);
    expect(JSON.stringify(slack.blocks)).not.toContain('puts it back');
    expect(expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve'], rotated), 2).stdout).toContain('Nothing to heal: no agent is known to be changed outside voxform (the unlabelled ones were last applied under another API key: apply once to label them).');

    // The plan sends the credential again, without claiming its key changed.
    const plan = expectCode(await p.cliInProcess(['plan'], rotated), 0).stdout;
    expect(plan).toContain('credential.openai will be set (live state unknown: credentials cannot be read back)');
    expect(plan).not.toContain('sensitive value changed');

    // The next apply records the hashes under the key in use: a dashboard edit is told as one again.
    expectCode(await p.cliInProcess(['apply', '--auto-approve'], rotated), 0);
    await editLive(p, (config) => (config.first_message = 'Ahoy!'));
    const labelled = JSON.parse(expectCode(await p.cliInProcess(['drift', '--format', 'json'], rotated), 2).stdout) as DriftJson;
    expect(labelled.resources.map((r) => [r.address, r.class, r.healable])).toEqual([['agent.front-desk', 'outside', true]]);
  }, 120_000);

  it('warns, in every format, that the state lost the workspace when its history records applies of it (everything would read as never applied)', async () => {
    const p = await startProject();
    // No apply yet: no history, nothing to warn of.
    expect(expectCode(await p.cliInProcess(['drift']), 2).stdout).not.toContain('Warning');
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await rm(path.join(p.dir, '.voxform', 'state.json'));
    const [record] = (JSON.parse(expectCode(await p.cliInProcess(['history', '--format', 'json']), 0).stdout) as { records: Array<{ id: string; at: string }> }).records;

    const text = expectCode(await p.cliInProcess(['drift']), 2).stdout;
    const warning = `Warning: the state (.voxform/state.json) holds nothing of workspace default@${p.url}, though its history records applies of it (the last ${record?.id}, at ${record?.at}): `;
    expect(text.split('\n')[2]).toContain(warning);
    expect(text).toContain('Restore the state (from version control or your CI cache, or name it with --state (or VOXFORM_STATE)) before `voxform apply`, unless the workspace was removed on purpose: without it, apply uploads every knowledge file again');
    // Named with one of the two, the advice names that one, and apply's refusal too.
    expect(expectCode(await p.cliInProcess(['drift'], { VOXFORM_STATE: '.voxform/state.json' }), 2).stdout).toContain('or name it with VOXFORM_STATE) before `voxform apply`');
    expect(expectCode(await p.cliInProcess(['apply', '--auto-approve', '--state', '.voxform/state.json']), 1).stderr).toContain('hint: Restore the state (from version control or your CI cache, or name it with --state) and run the command again.');
    expect(expectCode(await p.cliInProcess(['drift', '--format', 'markdown']), 2).stdout).toContain(`Warning: the state (\`.voxform/state.json\`) holds nothing of workspace \`default@${p.url}\`, though its history records applies of it (the last \`${record?.id}\`, at \`${record?.at}\`)`);
    const document = (await driftJson(p)) as DriftJson & { missing_state?: unknown };
    expect(document.missing_state).toEqual({ state: '.voxform/state.json', last_apply: { id: record?.id, at: record?.at } });
    // A campaign and a credential cannot be read back: their service side is not known, never said to be unset.
    expect(text).toContain('~ caller: (cannot be read back) → "+15551230002"');
    expect(text).toContain('~ api_key: (cannot be read back) → (sensitive value)');
    expect(text).toContain('~ name: (cannot be read back) → "Six-month check-up reminders"');
    expect(expectCode(await p.cliInProcess(['drift', '--format', 'markdown']), 2).stdout).toContain('! caller: (cannot be read back) → "+15551230002"');
    const caller = document.resources.find((r) => r.address === 'campaign.recall-reminders')?.fields.find((f) => f.path === 'caller');
    expect(caller).toMatchObject({ live: null, live_unset: false, live_unknown: true, manifests: '+15551230002' });

    // Applied again (on purpose: apply refuses without the flag), the state holds the workspace: no warning.
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 1);
    expectCode(await p.cliInProcess(['apply', '--auto-approve', '--allow-missing-state']), 0);
    expect(expectCode(await p.cliInProcess(['drift']), 0).stdout).not.toContain('Warning');
    expect((await driftJson(p, 0)) as DriftJson & { missing_state?: unknown }).not.toHaveProperty('missing_state');
  }, 120_000);

  it('--heal on a state that lost the workspace refuses (state_missing) before the service is read, unless given --allow-missing-state', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await rm(path.join(p.dir, '.voxform', 'state.json'));
    const before = p.requests.length;
    const refused = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 1);
    expect(refused.stderr).toContain(`error[state_missing]: Refusing to apply: the state (.voxform/state.json) holds nothing of workspace default@${p.url}`);
    expect(refused.stdout).toBe('');
    expect(p.requests.slice(before)).toEqual([]);
    expect(expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve', '--watch', '10s']), 1).stderr).toContain('error[state_missing]');
    // Allowed, it reads and reports: nothing is known to be changed outside voxform, so nothing is healed.
    const allowed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve', '--allow-missing-state']), 2);
    expect(allowed.stdout).toContain('Nothing to heal: no agent is known to be changed outside voxform (this state records no apply of the workspace');
  }, 120_000);

  it('with nothing differing, says the state lost the workspace, never that an apply would record one (that apply is refused)', async () => {
    const p = await startProject();
    await writeFile(path.join(p.dir, 'voxform.yaml'), ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    config: { prompt: "You are the receptionist of Acme Dental." }', ''].join('\n'));
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    expectCode(await p.cliInProcess(['state', 'rm', '--force', `default@${p.url}`]), 0);
    const [record] = (JSON.parse(expectCode(await p.cliInProcess(['history', '--format', 'json']), 0).stdout) as { records: Array<{ id: string; at: string }> }).records;

    const text = expectCode(await p.cliInProcess(['drift']), 0).stdout;
    expect(text).toContain(`No drift: the service (${p.url}) matches the manifests (1 resource checked). Warning: the state (.voxform/state.json) holds nothing of workspace default@${p.url}, though its history records applies of it (the last ${record?.id}, at ${record?.at}): `);
    expect(text).toContain('Without it voxform cannot tell what it applied, so the service was compared with the manifests alone. Restore the state');
    expect(text).not.toContain('records one');
    const markdown = expectCode(await p.cliInProcess(['drift', '--format', 'markdown']), 0).stdout;
    expect(markdown).toContain(`holds nothing of workspace \`default@${p.url}\`, though its history records applies of it`);
    expect(markdown).not.toContain('records one');
    // What it would have said to run is refused.
    expect(expectCode(await p.cliInProcess(['apply', '--auto-approve']), 1).stderr).toContain('error[state_missing]');
  });

  it('never says the service matches the last apply for resources it recorded that the manifests no longer name: it says they were not compared, and its JSON lists them', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await writeFile(path.join(p.dir, 'empty.yaml'), 'version: 1\n');
    const text = expectCode(await p.cliInProcess(['drift', '-f', 'empty.yaml']), 0).stdout;
    expect(text).not.toContain('the last apply (0 resources checked)');
    expect(text).toBe(
      `No drift: the service (${p.url}) matches the manifests (0 resources checked). ` +
        'The last apply also recorded 7 resources the manifests no longer name, not compared (voxform leaves them as they are on the service; `voxform plan` lists them): agent.booking, agent.front-desk, campaign.recall-reminders, credential.openai, knowledge.faq and 2 more.\n',
    );
    expect(expectCode(await p.cliInProcess(['drift', '-f', 'empty.yaml', '--format', 'markdown']), 0).stdout).toContain('The last apply also recorded 7 resources the manifests no longer name, not compared');
    const document = JSON.parse(expectCode(await p.cliInProcess(['drift', '-f', 'empty.yaml', '--format', 'json']), 0).stdout) as DriftJson & { no_longer_managed?: string[] };
    validateDrift(document);
    expect(document.drift).toBe(false);
    expect(document.no_longer_managed).toEqual(['agent.booking', 'agent.front-desk', 'campaign.recall-reminders', 'credential.openai', 'knowledge.faq', 'phone.+15551230001', 'phone.+15551230002']);
  });

  it("carries the manifests' warnings in its JSON, not as text on stderr, as a JSON plan does", async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    // A warning (vars without a template) that does not stop the check.
    const manifest = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('    id: -OKdqbqetEcM4ak369ym\n', '    id: -OKdqbqetEcM4ak369ym\n    vars: { clinic: Acme }\n'));
    const result = expectCode(await p.cliInProcess(['drift', '--format', 'json']), 0);
    expect(result.stderr).toBe('');
    const document = JSON.parse(result.stdout) as DriftJson & { diagnostics?: Array<{ severity: string; code: string; file: string }> };
    validateDrift(document);
    expect(document.format_version).toBe('1.4');
    expect(document.diagnostics?.map(({ severity, code, file }) => ({ severity, code, file }))).toEqual([{ severity: 'warning', code: 'vars_without_template', file: 'voxform.yaml' }]);
    // Text still lists it on stderr.
    expect(expectCode(await p.cliInProcess(['drift']), 0).stderr).toContain('warning[vars_without_template]');
  });

  it('a receiver that never answers: the notification is not delivered, said in words with the wait it was given (--timeout), exit 1', async () => {
    const p = await startProject();
    // Takes the request and never answers it.
    receiver = createServer((req) => void req.resume());
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const result = expectCode(await p.cliInProcess(['drift', '--notify', `${url}/hook`, '--timeout', '200ms']), 1);
    expect(result.stderr).toBe(
      `error[drift_notify_failed]: The drift notification to ${url} was not delivered: the receiver did not answer within 0.2 s (--timeout gives it longer).\n` +
        '  hint: Check the --notify URL and that the receiver is up; `voxform drift` without --notify shows the report.\n',
    );
  }, 60_000);

  it('says why a notification was not delivered (exit 1) without printing the URL\'s path; the JSON output is the error alone', async () => {
    const p = await startProject();
    const { url } = await startReceiver(500);
    const result = expectCode(await p.cliInProcess(['drift', '--notify', `${url}/services/T0/B0/token-abc123`]), 1);
    expect(result.stderr).toContain(`error[drift_notify_failed]: The drift notification to ${url} was not delivered: the receiver answered HTTP 500.`);
    expect(`${result.stdout}${result.stderr}`).not.toContain('token-abc123');
    const json = expectCode(await p.cliInProcess(['drift', '--format', 'json', '--notify', `${url}/services/T0/B0/token-abc123`]), 1);
    expect((JSON.parse(json.stdout) as { error: { code: string } }).error.code).toBe('drift_notify_failed');
    expect(json.stdout).not.toContain('token-abc123');
    const refused = expectCode(await p.cliInProcess(['drift', '--notify', 'ftp://example.com/x']), 1);
    expect(refused.stderr).toContain('--notify must be an http:// or https:// URL');
    // No terminal to ask on: --heal needs --auto-approve, and says so before reading the service.
    const before = p.requests.length;
    expect(expectCode(await p.cliInProcess(['drift', '--heal']), 1).stderr).toContain('Refusing to heal without approval');
    expect(p.requests.length).toBe(before);
  }, 60_000);

  it('refuses a --watch interval out of its range with that range and examples inside it, before reading anything', async () => {
    const p = await startProject();
    const before = p.requests.length;
    for (const interval of ['2d', '500ms', '9s', 'soon']) {
      const refused = expectCode(await p.cliInProcess(['drift', '--watch', interval]), 1);
      expect(refused.stderr).toBe(`error[invalid_option]: The value given to --watch is not a time from 10 s to 24 h.\n  hint: Write it as 30s, 5m or 1h (a bare number is seconds).\n`);
    }
    expect(p.requests.length).toBe(before);
  }, 60_000);

  it('--watch prints one line per check and stops on SIGTERM with exit 130', async () => {
    const p = await startProject();
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'drift', '--watch', '1h', '--format', 'json'], {
        cwd: p.dir,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...p.env },
        stdio: 'pipe',
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('\n')) child.kill('SIGTERM');
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    expect(result.code, result.stderr).toBe(130);
    // Stdout holds the check's line already: the interrupt comes on stderr, not as a second JSON document.
    expect(result.stderr).toBe(`${WATCH_STOPPING_ON_SIGTERM}error[interrupted]: voxform drift --watch stopped at your request.\n  hint: Run the command again to watch again.\n`);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const document = JSON.parse(lines[0] ?? '') as DriftJson;
    validateDrift(document);
    // Nothing applied: no apply is recorded in this state, so no difference is called not applied yet.
    expect([document.summary.pending, document.summary.unrecorded]).toEqual([0, 7]);
  }, 90_000);

  it('--watch: Ctrl-C while a check waits for the service says at once that it stops, cuts the check short, exit 130', async () => {
    const p = await startProject();
    // The service holds every read for longer than the test runs, and the CLI would wait for it (--timeout).
    p.emulator.control.setFaults([{ path: '**', method: 'GET', latencyMs: 600_000 }]);
    const { child, output, exited } = spawnCli(p.dir, p.env, ['drift', '--watch', '1h', '--timeout', '5m']);
    while (p.emulator.control.requestLog().every((entry) => entry.method !== 'GET')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output.stderr).toBe(`${WATCH_STOPPING}error[interrupted]: voxform drift --watch stopped at your request.\n  hint: Run the command again to watch again.\n`);
    expect(output.stdout).toBe('');
  }, 90_000);

  it('--watch reads the manifests and the state again at each check: an apply in between is no drift; manifests that stop loading skip checks without backing off, then it goes on', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    const { url, bodies } = await startReceiver();
    const manifest = path.join(p.dir, 'voxform.yaml');
    const written = await readFile(manifest, 'utf8');
    let stopped = () => undefined as void;
    const { ctx, captured, close } = makeContext({ cwd: p.dir, env: p.env });
    ctx.interrupted = () => new Promise((resolve) => (stopped = () => resolve('Ctrl-C again')));
    const waits: number[] = [];
    // What happens during each wait: the change a `git pull` brings, and its apply; then manifests broken, twice; then mended; then Ctrl-C.
    const duringWait: Array<() => Promise<void>> = [
      async () => {
        await writeFile(path.join(p.dir, 'example/prompts/front-desk.md'), "Always confirm the caller's name.\n", { flag: 'a' });
        expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
      },
      () => writeFile(manifest, written.replace('agents:\n', 'agents:\n  front-desk: [\n')),
      async () => undefined,
      () => writeFile(manifest, written),
    ];
    // The watch ends as every interrupted run does: with its `interrupted` error (exit 130).
    const stoppedRun = runDrift({ watch: '10s', notify: url, lockTimeout: 0 }, ctx, {
      random: () => 0.5,
      sleep: async (ms, signal) => {
        waits.push(ms);
        const step = duringWait.shift();
        if (step) return step();
        stopped();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    }).finally(close);
    await expect(stoppedRun).rejects.toMatchObject({ code: 'interrupted' });
    const lines = captured.stdout.trim().split('\n');
    expect(lines.map((line) => line.replace(/^\S+ /, ''))).toEqual(['no drift (7 resources checked)', 'no drift (7 resources checked)', 'no drift (7 resources checked)']);
    // Nothing differed at any check: nothing was posted (the old prompt least of all).
    expect(bodies).toEqual([]);
    const skipped = captured.stderr.split('\n').filter((line) => line.includes(' check '));
    expect(skipped.map((line) => line.replace(/^\S+ /, ''))).toEqual([
      'check skipped: manifest_invalid: The manifests have 1 error (listed above); the service was not read; next check in 10 s',
      'check skipped: manifest_invalid: The manifests have 1 error (listed above); the service was not read; next check in 10 s',
    ]);
    // The diagnostics once, not at every check that finds the same.
    expect(captured.stderr.match(/voxform\.yaml:\d+:\d+/g)).toHaveLength(1);
    expect(waits).toEqual([10_000, 10_000, 10_000, 10_000, 10_000]);
  }, 90_000);

  it('--watch: a notification not delivered is one line on stderr, and the next check waits twice the interval', async () => {
    const p = await startProject();
    const { url } = await startReceiver(500);
    let stopped = () => undefined as void;
    const { ctx, captured, close } = makeContext({ cwd: p.dir, env: p.env });
    ctx.interrupted = () => new Promise((resolve) => (stopped = () => resolve('Ctrl-C again')));
    const waits: number[] = [];
    // The watch ends as every interrupted run does: with its `interrupted` error (exit 130).
    const stoppedRun = runDrift({ watch: '10s', notify: `${url}/hooks/token-abc123`, lockTimeout: 0 }, ctx, {
      random: () => 0.5,
      sleep: async (ms, signal) => {
        waits.push(ms);
        stopped();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    }).finally(close);
    await expect(stoppedRun).rejects.toMatchObject({ code: 'interrupted' });
    expect(waits).toEqual([20_000]);
    expect(captured.stderr.split('\n').filter((line) => line.includes(' check ')).map((line) => line.replace(/^\S+ /, ''))).toEqual([
      `check failed: drift_notify_failed: The drift notification to ${url} was not delivered: the receiver answered HTTP 500; next check in 20 s`,
    ]);
    // A failed check, as a single run prints the error instead of the report: no report line on stdout.
    expect(captured.stdout).toBe('');
  }, 60_000);

  it('--watch --heal posts once, after the heal, with what it put back (as a single --heal --notify does); then a signal meets the watch\'s own stop again', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    const appliedPrompt = (await getAgent(p)).config.prompt;
    await editLive(p, (config) => {
      config.prompt = 'You are a pirate.';
    });
    const { url, bodies } = await startReceiver();
    let stopped = () => undefined as void;
    const { ctx, captured, close } = makeContext({ cwd: p.dir, env: p.env });
    // One stop for all who wait on it: the heal's apply listens for it too. The graceful stop last asked for is the one a signal meets.
    const stop = new Promise<StopAgain>((resolve) => (stopped = () => resolve('Ctrl-C again')));
    const asked: Array<GracefulStop | undefined> = [];
    ctx.interrupted = (how) => (asked.push(how), stop);
    let askedAtWait: GracefulStop | undefined | 'none' = 'none';
    // The watch ends as every interrupted run does: with its `interrupted` error (exit 130).
    const stoppedRun = runDrift({ watch: '10s', heal: true, autoApprove: true, notify: url, notifyFormat: 'slack', lockTimeout: 0 }, ctx, {
      random: () => 0.5,
      sleep: async (_ms, signal) => {
        askedAtWait = asked.at(-1);
        stopped();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    }).finally(close);
    await expect(stoppedRun).rejects.toMatchObject({ code: 'interrupted' });
    expect((await getAgent(p)).config.prompt).toBe(appliedPrompt);
    // The heal's apply said its own way to stop; the wait after it is the watch's again (`Stopping…` at once, nothing said left in flight).
    expect(asked.some((how) => how?.stopping === false)).toBe(true);
    expect(askedAtWait).toBeUndefined();
    expect(captured.stdout.trim().split('\n')).toHaveLength(1);
    expect(bodies).toHaveLength(1);
    const posted = JSON.parse(bodies[0]?.body ?? '') as { text: string; blocks: Array<{ text?: { text: string } }> };
    expect(posted.text).toMatch(/ Heal complete: 1 healed, 0 failed\.$/);
    expect(posted.blocks[1]?.text?.text).toBe('*agent.front-desk*: changed outside voxform. `--heal` put it back.\nconfig.prompt (changed outside voxform)');
  }, 90_000);

  it('refuses --notify-format without --notify, before reading anything', async () => {
    const p = await startProject();
    const before = p.requests.length;
    const refused = expectCode(await p.cliInProcess(['drift', '--notify-format', 'slack']), 1);
    expect(refused.stderr).toBe('error[invalid_option]: --notify-format says what --notify posts, and there is no --notify.\n  hint: Add --notify URL (the receiver), or leave out --notify-format.\n');
    expect(p.requests.length).toBe(before);
  }, 60_000);
});
