/**
 * `voxform emulator traffic` and `voxform emulator --traffic`, end to end with the built CLI: the
 * README's loop on `--local` (apply, traffic, change the prompt, apply, traffic), reproducible
 * runs, a running emulator by --url, and clear errors for bad profiles and flags.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appendFile, chmod, cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator, type TrafficSummary } from '../../src/emulator/index.js';
import { renderTrafficSummary, trafficUntil } from '../../src/cli/commands/emulator-traffic.js';
import { MAX_DATA_FILE_TRAFFIC_CALLS } from '../../src/emulator/traffic/index.js';
import { copyExampleProject, repoRoot, runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { SECRETS } from '../helpers/project.js';
import { clientFor, FRONT_DESK, startTestEmulator } from './helpers.js';

const tempDir = useTempDirs();
const UNTIL = '2026-06-01T00:00:00Z';

async function exampleProject(): Promise<string> {
  return copyExampleProject(await tempDir(), 'voxform.yaml');
}

type StoredCall = { call_id: string; agent_id: string; ts: number; agent_config: { $shared_config?: number } };

/** The call records of the folder's `--local` data file, shared configs put back in place. */
async function localCalls(dir: string): Promise<StoredCall[]> {
  const data = JSON.parse(await readFile(path.join(dir, '.voxform/local.json'), 'utf8')) as { call_logs: StoredCall[]; shared_configs?: unknown[] };
  return data.call_logs.map((r) => (r.agent_config?.$shared_config === undefined ? r : { ...r, agent_config: data.shared_configs?.[r.agent_config.$shared_config] as StoredCall['agent_config'] }));
}

describe('voxform emulator traffic --local', () => {
  it('runs the loop: apply, traffic, change the prompt, apply, traffic — each version its own calls, after its deploy', async () => {
    const dir = await exampleProject();
    const cli = (args: string[]) => runCliInProcess(args, { cwd: dir, env: { ...SECRETS } });
    expect((await cli(['apply', '--local', '--auto-approve'])).code).toBe(0);
    // The manifest's local name, as `voxform logs --agent` takes it.
    const first = await cli(['emulator', 'traffic', '--local', '--profile', 'light', '--agent', 'front-desk', '--format', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const one = JSON.parse(first.stdout) as TrafficSummary;

    await appendFile(path.join(dir, 'example/prompts/front-desk.md'), '\nAlways confirm the caller\'s name before ending the call.\n');
    const beforeSecondApply = Date.now() / 1000;
    expect((await cli(['apply', '--local', '--auto-approve'])).code).toBe(0);
    const second = await cli(['emulator', 'traffic', '--local', '--profile', 'light', '--agent', FRONT_DESK]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^Added 40 synthetic calls \(profile light, seed 1\) to the call log of \.voxform\/local\.json:\n {2}Front desk {2}-OKdqbqetEcM4ak369ym +40 calls {2}version sha256:[0-9a-f]{12} /);
    for (const secret of Object.values(SECRETS)) expect(first.stdout + second.stdout + second.stderr).not.toContain(secret);

    const records = (await localCalls(dir)).filter((r) => r.agent_id === FRONT_DESK && r.ts > one.agents[0]!.from - 1);
    expect(records).toHaveLength(80);
    const laterVersion = records.filter((r) => r.ts > beforeSecondApply);
    expect(laterVersion).toHaveLength(40);
    expect(JSON.stringify(laterVersion[0]!.agent_config)).toContain('Always confirm the caller');
    expect(records.filter((r) => r.ts <= beforeSecondApply).every((r) => !JSON.stringify(r.agent_config).includes('Always confirm the caller'))).toBe(true);
    expect(second.stdout).not.toContain(one.agents[0]!.config_hash.slice(0, 19));
  });

  it('says at once that a data file it may not write was left as it was: no wait for a lock nobody holds, no internal error', async () => {
    const dir = await exampleProject();
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { ...SECRETS } })).code).toBe(0);
    const before = await readFile(path.join(dir, '.voxform/local.json'), 'utf8');
    await chmod(path.join(dir, '.voxform'), 0o555);
    try {
      const refused = await runCli(['emulator', 'traffic', '--local', '--calls', '1', '--seed', '1'], { cwd: dir, unprivileged: true });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`error[file_unwritable]: Cannot write ${path.join(dir, '.voxform/local.json')}: voxform may not write there; it was left as it was.\n  hint: Free space on its disk, or make the file and its folder writable for this user, then run the command again.\n`);
    } finally {
      await chmod(path.join(dir, '.voxform'), 0o755);
    }
    expect(await readFile(path.join(dir, '.voxform/local.json'), 'utf8')).toBe(before);
  }, 60_000);

  it('gives the same calls for the same seed, window and configurations', async () => {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const dir = await tempDir();
      const result = await runCliInProcess(['emulator', 'traffic', '--local', '--profile', 'light', '--seed', '42', '--calls', '5', '--until', UNTIL], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      runs.push({ stdout: result.stdout, calls: await localCalls(dir) });
    }
    expect(runs[1]!.stdout).toBe(runs[0]!.stdout);
    expect(runs[0]!.calls).toHaveLength(40 + 45);
    expect(runs[1]!.calls).toEqual(runs[0]!.calls);
  });

  it('reads a profile file, and refuses a bad one with every problem, exit 1 and no stack trace', async () => {
    const dir = await tempDir({
      'ok.yaml': 'extends: light\ncalls_per_agent: 3\nrules:\n  - when: { agent: Front desk }\n    scale: { error: 3 }\n',
      'bad.yaml': 'window: soon\noutcomes: { error: lots }\nrules: [{ scale: { error: 2 } }]\n',
      'broken.json': '{"window": ',
    });
    const ok = await runCliInProcess(['emulator', 'traffic', '--local', '--profile', 'ok.yaml', '--format', 'json'], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    const summary = JSON.parse(ok.stdout) as TrafficSummary;
    expect(summary).toMatchObject({ profile: 'light (custom)', calls: 27 });
    expect(summary.agents.find((a) => a.agent_id === FRONT_DESK)?.rules).toEqual(['rules[0]']);

    const bad = await runCliInProcess(['emulator', 'traffic', '--local', '--profile', 'bad.yaml'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('error[traffic_profile_invalid]: The traffic profile bad.yaml is invalid:\n  window: must be seconds above 0 or a duration such as 90m, 24h, 7d, not "soon"\n  outcomes.error: must be a number from 0 to 1000, not "lots"\n  rules[0].when: needs prompt_contains or agent');
    expect(bad.stderr).toContain('hint: See docs/traffic.md, "Profiles"');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const broken = await runCliInProcess(['emulator', 'traffic', '--local', '--profile', 'broken.json'], { cwd: dir });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('error[traffic_profile_invalid]: broken.json:1:12: The traffic profile is not valid JSON: expected a value (an object, a list, a string in double quotes, a number, true, false or null), found the end of the text.');
    // A file's content is never a built-in's name, nor quoted: a dotenv file given by mistake holds secrets.
    await writeFile(path.join(dir, '.env'), 'API_KEY=sk-live-abcdef123456\nDB_PASSWORD=hunter2\n');
    await writeFile(path.join(dir, 'named.txt'), 'light\n');
    await writeFile(path.join(dir, 'list.yaml'), '- light\n');
    for (const [file, kind] of [['.env', 'a string'], ['named.txt', 'a string'], ['list.yaml', 'a list']] as const) {
      const scalar = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--profile', file], { cwd: dir });
      expect(scalar.code).toBe(1);
      expect(scalar.stderr).toBe(
        `error[traffic_profile_invalid]: The traffic profile ${file} is invalid:\n  a profile file must hold a mapping of its fields, not ${kind}\n  hint: See docs/traffic.md, "Profiles", for the fields and their ranges.\n`,
      );
    }
    const missing = await runCliInProcess(['emulator', 'traffic', '--local', '--profile', 'busy'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error[traffic_profile_unreadable]: Cannot read the traffic profile busy: it does not exist.\n  hint: Give a built-in profile (steady, light, volatile) or the path of a YAML or JSON profile file.');
    const agent = await runCliInProcess(['emulator', 'traffic', '--local', '--agent', 'nobody'], { cwd: dir });
    expect(agent.code).toBe(1);
    expect(agent.stderr).toBe(
      'error[agent_unknown]: --agent "nobody": the emulator has no agent of that id or name.\n  hint: The emulator\'s agents: Front desk (-OKdqbqetEcM4ak369ym), Appointment booking (-OKdqbqetEcM4ak369yn), ' +
        'Front desk (staging) (-OKstagingFrontDesk01), Appointment booking (staging) (-OKstagingBooking0001), Spare agent 1 (-OKspareAgent0000001), Spare agent 2 (-OKspareAgent0000002), ' +
        'Spare agent 3 (-OKspareAgent0000003), Spare agent 4 (-OKspareAgent0000004), Spare agent 5 (-OKspareAgent0000005). Without --agent, every agent gets calls. ' +
        "No manifest's agent names were read: name the manifests with -f (default voxform.yaml) to use them.\n",
    );
    const typo = await runCliInProcess(['emulator', 'traffic', '--local', '--agent', 'Front dsk'], { cwd: dir });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe(
      'error[agent_unknown]: --agent "Front dsk": the emulator has no agent of that id or name.\n' +
        "  hint: Did you mean Front desk? No manifest's agent names were read: name the manifests with -f (default voxform.yaml) to use them.\n",
    );
  });

  it('says a manifest\'s agent name needs the manifests: front-desk without -f where the manifest is not voxform.yaml', async () => {
    const dir = await tempDir();
    await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'agents.example.yaml'));
    await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
    const unnamed = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--agent', 'front-desk'], { cwd: dir });
    expect(unnamed.code).toBe(1);
    expect(unnamed.stderr).toContain("hint: Did you mean Front desk? No manifest's agent names were read: name the manifests with -f (default voxform.yaml) to use them.");
    const named = await runCliInProcess(['emulator', 'traffic', '-f', 'agents.example.yaml', '--local', '--calls', '1', '--agent', 'front-desk'], { cwd: dir });
    expect(named.code, named.stderr).toBe(0);
    const typo = await runCliInProcess(['emulator', 'traffic', '-f', 'agents.example.yaml', '--local', '--calls', '1', '--agent', 'frnt-desk'], { cwd: dir });
    expect(typo.stderr).toBe('error[agent_unknown]: --agent "frnt-desk": the emulator has no agent of that id or name.\n  hint: Did you mean front-desk?\n');
  });

  it('refuses calls that would make the data file too large to save or read back, saving nothing, not "unexpected problem"', async () => {
    const dir = await exampleProject();
    const before = (await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--agent', FRONT_DESK], { cwd: dir })).code;
    expect(before).toBe(0);
    const saved = await readFile(path.join(dir, '.voxform/local.json'), 'utf8');
    // About a kilobyte a call: as many calls as the file's JSON values allow (more are refused before
    // any is made) make more than the 256 MiB a data file may hold, refused when saved (a million
    // crashed JSON.stringify outright; the same path).
    const result = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', String(MAX_DATA_FILE_TRAFFIC_CALLS), '--agent', FRONT_DESK], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[emulator_data_too_large\]: The emulator's account is too large to save in .*local\.json: the file would be over 256 MiB, the most the emulator reads back\. Nothing was saved\.\n {2}hint: /);
    expect(await readFile(path.join(dir, '.voxform/local.json'), 'utf8')).toBe(saved);
  }, 180_000);

  it('needs exactly one of --local and --url', async () => {
    const dir = await tempDir();
    for (const args of [[], ['--local', '--url', 'http://127.0.0.1:4010']]) {
      const result = await runCliInProcess(['emulator', 'traffic', ...args], { cwd: dir });
      expect(result.code).toBe(1);
      // A missing required option, or two that contradict each other: the command line's mistake (docs/errors.md).
      expect(result.stderr).toContain('error[invalid_argument]: Say which emulator gets the calls: --local');
    }
  });
});

describe('voxform emulator traffic --until', () => {
  const NOW = Date.UTC(2026, 0, 31, 9, 0, 0);

  it('takes a time up to now, and refuses a later one: a call log holds no call from the future', () => {
    expect(trafficUntil('2h', NOW)).toBe(NOW / 1000 - 7200);
    expect(trafficUntil(String(NOW / 1000), NOW)).toBe(NOW / 1000);
    expect(() => trafficUntil('2026-01-31T09:00:01Z', NOW)).toThrowError('--until (2026-01-31T09:00:01Z) is later than now.');
    expect(() => trafficUntil('2099-01-01', NOW)).toThrowError('--until (2099-01-01) is later than now.');
  });

  it('exits 1 on a future --until, adding no call', async () => {
    const dir = await tempDir();
    const result = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--until', '9999-12-31'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[invalid_argument\]: --until \(9999-12-31\) is later than now\.\n {2}hint: Give a time in the past, or leave --until out/);
    await expect(readFile(path.join(dir, '.voxform/local.json'), 'utf8')).rejects.toThrow();
  });

  it('refuses a window longer than a year, or one that starts before 1970, adding no call: every read of the log would refuse it', async () => {
    const dir = await tempDir({ 'huge.yaml': 'window: 1e300\n', 'weeks.yaml': 'window: 100000000w\n' });
    for (const profile of ['huge.yaml', 'weeks.yaml']) {
      const result = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--profile', profile], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^error\\[traffic_profile_invalid\\]: The traffic profile ${profile} is invalid:\n {2}window: must be at most 366d \\(31622400 seconds\\), not `));
    }
    const early = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--until', '1970-01-01T00:30:00Z'], { cwd: dir });
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(
      /^error\[traffic_profile_invalid\]: The traffic profile request is invalid:\n {2}until: the profile's window of 86400 seconds ending at 1970-01-01T00:30:00\.000Z would start before 1970-01-01T00:00:00Z, the earliest time a call log holds; /,
    );
    // The seed's calls only: none stamped at or before the early --until (none before 1970 at all).
    expect((await localCalls(dir).catch(() => [])).filter((call) => call.ts <= 1800)).toEqual([]);
  });
});

describe('voxform emulator traffic --url', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => (emulator = await startEmulator({ quiet: true })));
  afterAll(() => emulator?.close());

  it('adds the calls to a running emulator, and says when none answers', async () => {
    const result = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--profile', 'light', '--calls', '2', '--seed', 'x']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Added 18 synthetic calls (profile light, seed x) to the call log of ${emulator.url}:`);
    expect(emulator.control.state().call_logs).toHaveLength(58);
    // The URL's password and query values are tokens (docs/security.md §5): the emulator is named by its origin.
    const port = new URL(emulator.url).port;
    for (const url of [`http://u:hunter2pw@127.0.0.1:${port}`, `${emulator.url}/?token=tokentokentoken`]) {
      const tokens = await runCliInProcess(['emulator', 'traffic', '--url', url, '--profile', 'light', '--calls', '2', '--seed', 'x']);
      expect(tokens.code, tokens.stderr).toBe(0);
      expect(tokens.stdout).toContain(`to the call log of http://127.0.0.1:${port}:`);
      expect(tokens.stdout + tokens.stderr).not.toMatch(/hunter2pw|tokentokentoken/);
    }
    const bad = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--calls', '2', '--agent', 'nobody']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error\[agent_unknown\]: --agent "nobody": the emulator has no agent of that id or name\.\n {2}hint: The emulator's agents: Front desk \(-OKdqbqetEcM4ak369ym\), /);
    expect(bad.stderr).not.toContain('Profiles');
    const none = await runCliInProcess(['emulator', 'traffic', '--url', 'http://127.0.0.1:9']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/error\[emulator_unreachable\]: No emulator answered at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)\.\n {2}hint: Start one with `voxform emulator`/);
  });
});

describe('voxform emulator traffic --url, an emulator with no agents', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => (emulator = await startEmulator({ quiet: true, seed: { keys: [{ type: 'private', key: 'abcdefabcdefabcdefabcdefabcdef12', name: 'ci' }] } })));
  afterAll(() => emulator?.close());

  it('says it has no agents and how to give it some (exit 1), not "Added 0 synthetic calls"', async () => {
    // The URL's password is a token (docs/security.md §5): the emulator is named by its origin.
    const result = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url.replace('http://', 'http://u:hunter2pw@')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error[emulator_no_agents]: The emulator at ${emulator.url} has no agents: no call was added.\n` +
        '  hint: Agents are not created through the service, only adopted: start the emulator again with a seed that has agents (--seed FILE) (docs/emulator.md, "Seeds"), then run this again.\n',
    );
    expect(emulator.control.state().call_logs).toHaveLength(0);
  });
});

describe('voxform emulator traffic --agent with a name two agents share (staging\'s and production\'s front desk)', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    ({ emulator } = await startTestEmulator());
    const renamed = await clientFor(emulator).put('/agents/-OKstagingFrontDesk01', { name: 'Front desk', config: {} });
    expect(renamed.status).toBe(200);
  });
  afterAll(() => emulator?.close());

  it('adds no call and lists the agents by id; an unknown agent\'s hint lists each agent with its id', async () => {
    const before = emulator.control.state().call_logs.length;
    const shared = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--calls', '1', '--agent', 'Front desk']);
    expect(shared.stderr).toBe(
      'error[invalid_argument]: --agent "Front desk" is the name of 2 agents of the emulator (-OKdqbqetEcM4ak369ym, -OKstagingFrontDesk01): calls go to one agent a value names, and this one names several.\n' +
        "  hint: Give the id of the agent meant, or its local name from the manifests (with --env NAME when their ids are the environments').\n",
    );
    expect(shared.code).toBe(1);
    expect(emulator.control.state().call_logs).toHaveLength(before);
    const byId = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--calls', '1', '--agent', '-OKstagingFrontDesk01']);
    expect(byId.code, byId.stderr).toBe(0);
    expect(emulator.control.state().call_logs).toHaveLength(before + 1);
    const unknown = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--calls', '1', '--agent', 'nobody']);
    expect(unknown.stderr).toMatch(/^error\[agent_unknown\]: .*\n {2}hint: The emulator's agents: Front desk \(-OKdqbqetEcM4ak369ym\), Appointment booking \(-OKdqbqetEcM4ak369yn\), Front desk \(-OKstagingFrontDesk01\), /);
  });

  it('an --until before the agent\'s configuration was stored adds no call: emulator_no_calls (exit 1) saying why, not "Added 0 synthetic calls"', async () => {
    const before = emulator.control.state().call_logs.length;
    // The agent's configuration was stored by the PUT above, long after this --until.
    const result = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--calls', '1', '--agent', '-OKstagingFrontDesk01', '--until', '2000-01-01T00:00:00Z']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error[emulator_no_calls]: No call was added: every agent was skipped (-OKstagingFrontDesk01: its configuration was set after the end of the window).\n' +
        '  hint: An agent gets calls only after the moment its configuration was stored: give a later --until, or leave it out (the calls then end now). A profile needs an outcome of weight above 0 (docs/traffic.md).\n',
    );
    expect(result.code).toBe(1);
    expect(emulator.control.state().call_logs).toHaveLength(before);
  });

  it('a local name the manifests give an id only in their environments, without --env: missing_id naming them, as logs says it; no call added', async () => {
    const before = emulator.control.state().call_logs.length;
    const dir = await tempDir({
      'voxform.yaml': 'version: 1\nagents:\n  front-desk: { name: Front desk }\nenvironments:\n  staging:\n    agents: { front-desk: { id: -OKstagingFrontDesk01 } }\n  production:\n    agents: { front-desk: { id: -OKdqbqetEcM4ak369ym } }\n',
    });
    const result = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--calls', '1', '--agent', 'front-desk'], { cwd: dir });
    expect(result.stderr).toBe(
      'error[missing_id]: agent "front-desk" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME\n  hint: Run again with --env staging or --env production.\n',
    );
    expect(result.code).toBe(1);
    expect(emulator.control.state().call_logs).toHaveLength(before);
  });

  it('never suggests a name several agents share: the hint lists each agent with its id instead', async () => {
    const typo = await runCliInProcess(['emulator', 'traffic', '--url', emulator.url, '--calls', '1', '--agent', 'Front dsk']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).not.toContain('Did you mean Front desk');
    expect(typo.stderr).toMatch(/^error\[agent_unknown\]: --agent "Front dsk": .*\n {2}hint: The emulator's agents: Front desk \(-OKdqbqetEcM4ak369ym\), /);
  });
});

/** A server at --url that answers every request `status` with `body`: not (or not only) a voxform emulator. */
async function answering(body: string, status = 200): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('voxform emulator traffic --url, a server that is not a voxform emulator', () => {
  it('says so (exit 1) when the 200 reply is not a traffic summary, not "unexpected problem"', async () => {
    for (const body of ['{}', '"ok"', '{"calls":1,"profile":"p","seed":1,"agents":[null],"skipped":[]}']) {
      const server = await answering(body);
      try {
        const result = await runCliInProcess(['emulator', 'traffic', '--url', server.url]);
        expect(result.code, body).toBe(1);
        expect(result.stderr, body).toBe(
          `error[emulator_unreachable]: ${server.url} is not a voxform emulator that generates traffic (POST /_emulator/traffic answered 200, but not with a summary of the calls it added).\n` +
            '  hint: Point --url at a `voxform emulator` of this version.\n',
        );
      } finally {
        await server.close();
      }
    }
  });
});

describe('voxform emulator traffic --url, a reply too large', () => {
  it('stops reading a reply over 16 MiB and says so (exit 1), not holding whatever the server sends', async () => {
    const summary = { profile: 'light', seed: 1, until: 60, calls: 0, agents: [], skipped: [] };
    const server = await answering(`${' '.repeat(17 * 1024 * 1024)}${JSON.stringify(summary)}`);
    try {
      const result = await runCliInProcess(['emulator', 'traffic', '--url', server.url]);
      expect(result.code, result.stdout).toBe(1);
      expect(result.stderr).toBe(
        `error[emulator_unreachable]: ${server.url} is not a voxform emulator that generates traffic (POST /_emulator/traffic answered with more than 16 MiB).\n` +
          '  hint: Point --url at a `voxform emulator` of this version.\n',
      );
    } finally {
      await server.close();
    }
  });

  it('stops reading too when the reply comes in pieces with no length given', async () => {
    const piece = ' '.repeat(1024 * 1024);
    const server: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 17; i++) res.write(piece);
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = await runCliInProcess(['emulator', 'traffic', '--url', url]);
      expect(result.code, result.stdout).toBe(1);
      expect(result.stderr).toContain(`error[emulator_unreachable]: ${url} is not a voxform emulator that generates traffic (POST /_emulator/traffic answered with more than 16 MiB).\n`);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('voxform emulator traffic, names it did not write', () => {
  const ESCAPES = ['\u001b', '\u0007', '\u009b'];
  it('shows the control characters of a --url reply as "?" in the summary, keeping the columns', async () => {
    const agent = { agent_id: 'ag_\u001b[2J', name: 'Evil\u001b]0;pwned\u0007', config_hash: 'sha256:0123\u009b31m', calls: 1, from: 0, until: 60, outcomes: {}, transfers: 0, tool_calls: 0, tool_failures: 0, rules: [] };
    const summary = { profile: 'light\u001b[31m', seed: 's\u001b', until: 60, calls: 1, agents: [agent], skipped: [{ agent_id: 'ag_\u001b[5m', reason: 'no\u0007 config' }] };
    const server = await answering(JSON.stringify(summary));
    try {
      const result = await runCliInProcess(['emulator', 'traffic', '--url', server.url]);
      expect(result.code, result.stderr).toBe(0);
      for (const escape of ESCAPES) expect(result.stdout).not.toContain(escape);
      expect(result.stdout).toBe(
        `Added 1 synthetic call (profile light?[31m, seed s?) to the call log of ${server.url}:\n` +
          '  Evil?]0;pwned?  ag_?[2J       1 call   version sha256:0123?31m  1970-01-01T00:00:00Z → 1970-01-01T00:01:00Z  errors 0, transfers 0, tool failures 0/0\n' +
          '  skipped ag_?[5m: no? config\n',
      );
    } finally {
      await server.close();
    }
  });

  it('escapes the control characters of a --url refusal in the error', async () => {
    for (const refusal of [{ detail: 'Invalid traffic request: calls\u001b]0;pwned\u0007' }, { detail: 'x', unknown_agents: ['ag_\u001b[2J'], agents: [{ id: 'ag_\u001b[2J', name: 'Desk\u001b[31m' }] }, { detail: 'x', ambiguous_agents: [{ name: 'Desk\u001b[31m', ids: ['ag_1', 'ag_\u001b[2J'] }] }]) {
      const server = await answering(JSON.stringify(refusal), 400);
      try {
        const result = await runCliInProcess(['emulator', 'traffic', '--url', server.url]);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(/^error\[\w+\]: /);
        for (const escape of ESCAPES) expect(result.stderr).not.toContain(escape);
        expect(result.stderr).toMatch(/\\u001b/);
      } finally {
        await server.close();
      }
    }
  });
});

describe('voxform emulator --traffic', () => {
  it('adds the calls at start and says so in the banner', async () => {
    const dir = await tempDir({ 'profile.json': JSON.stringify({ extends: 'light', window: '1h' }) });
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'emulator', '--port', '0', '--traffic', 'profile.json', '--traffic-calls', '3', '--traffic-seed', '5'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 1000 && !/Ctrl-C/.test(stdout); i++) await new Promise((r) => setTimeout(r, 10));
      expect(stdout).toContain('  traffic      27 synthetic calls added (profile light (custom), seed 5; docs/traffic.md)');
      const url = /listening on (\S+)/.exec(stdout)?.[1] as string;
      const info = (await (await fetch(`${url}/_emulator`)).json()) as { counts: { call_logs: number } };
      expect(info.counts.call_logs).toBe(40 + 27);
      child.kill('SIGTERM');
      expect(await exited).toBe(130);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses --traffic-calls without --traffic, and a bad profile before starting', async () => {
    const dir = await tempDir({ 'bad.yaml': 'calls_per_agent: -1\n' });
    const alone = await runCliInProcess(['emulator', '--port', '0', '--traffic-calls', '3'], { cwd: dir });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('error[invalid_option]: --traffic-calls and --traffic-seed go with --traffic PROFILE.');
    const bad = await runCliInProcess(['emulator', '--port', '0', '--traffic', 'bad.yaml'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('error[traffic_profile_invalid]: The traffic profile bad.yaml is invalid:\n  calls_per_agent: must be a whole number from 1 to 1000000, not -1');
  });

  it('refuses --traffic-calls within its range whose calls for every agent pass what one run adds, naming the flag: the profile is fine', async () => {
    const many = await runCli(['emulator', '--port', '0', '--traffic', 'steady', '--traffic-calls', '1000000'], { cwd: await tempDir({}) });
    expect(many.code).toBe(1);
    expect(many.stderr).toContain('error[invalid_option]: --traffic would add 9,000,000 synthetic calls (9 agents × 1,000,000), more than one run adds: at most 2,000,000. No call was made or added.\n  hint: Ask for at most 222,222 calls for each agent with --traffic-calls N;');
  });
});

describe('the traffic summary', () => {
  it('says "1 call", not "1 calls"', () => {
    const agent = { agent_id: 'ag_1', name: 'desk', config_hash: 'sha256:0123456789abcdef0123', calls: 1, from: 0, until: 60, outcomes: {}, transfers: 0, tool_calls: 0, tool_failures: 0, rules: [] };
    const text = renderTrafficSummary({ profile: 'light', seed: 1, until: 60, calls: 1, agents: [agent], skipped: [] }, 'the call log of x');
    expect(text).toBe(
      'Added 1 synthetic call (profile light, seed 1) to the call log of x:\n' +
        '  desk  ag_1       1 call   version sha256:0123456789ab  1970-01-01T00:00:00Z → 1970-01-01T00:01:00Z  errors 0, transfers 0, tool failures 0/0\n',
    );
  });

  it('pads the id column to the widest id, so ids of 20 and 21 characters leave the later columns aligned', () => {
    const agent = (agent_id: string, name: string) => ({ agent_id, name, config_hash: 'sha256:0123456789abcdef0123', calls: 12, from: 0, until: 60, outcomes: {}, transfers: 0, tool_calls: 0, tool_failures: 0, rules: [] });
    const text = renderTrafficSummary({ profile: 'light', seed: 1, until: 60, calls: 24, agents: [agent('-OKdqbqetEcM4ak369ym', 'Front desk'), agent('-OKstagingFrontDesk01', 'Booking')], skipped: [] }, 'the call log of x');
    const rows = text.split('\n').slice(1, 3);
    expect(rows).toEqual([
      '  Front desk  -OKdqbqetEcM4ak369ym       12 calls  version sha256:0123456789ab  1970-01-01T00:00:00Z → 1970-01-01T00:01:00Z  errors 0, transfers 0, tool failures 0/0',
      '  Booking     -OKstagingFrontDesk01      12 calls  version sha256:0123456789ab  1970-01-01T00:00:00Z → 1970-01-01T00:01:00Z  errors 0, transfers 0, tool failures 0/0',
    ]);
  });
});
