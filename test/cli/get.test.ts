import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { startExampleProject, withoutSecrets, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const NOTE = 'The service has no list of agents: these are the agents the manifests name (2), the 2 phone numbers answer with, and 40 calls ran with. An agent with none of these is not shown.';

describe('voxform get (against the emulator, the example manifest)', () => {
  it('get phones: every number of the service, its agent, and the manifest address that manages it or "unmanaged"', async () => {
    project = await startExampleProject();
    const result = await project.cliInProcess(['get', 'phones']);
    expect(result.code, result.stderr).toBe(0);
    withoutSecrets(result, project.emulator.apiKey);
    expect(result.stdout).toBe(
      [
        'PHONE          STATUS   AGENT                                          MANAGED BY',
        '+15551230001   active   -OKstagingFrontDesk01 (Front desk (staging))   phone.+15551230001',
        '+15551230003   active   -OKdqbqetEcM4ak369yn (Appointment booking)     unmanaged',
        '',
      ].join('\n'),
    );
    // Reads only: the phone list and the agents it names.
    expect(project.requests.every((request) => request.method === 'GET')).toBe(true);
  });

  it('get agents: found through the manifests, the phones and the calls, and the output says so', async () => {
    project = await startExampleProject();
    const result = await project.cliInProcess(['get', 'agents']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'AGENT                   NAME                   MANAGED BY                  FOUND THROUGH            PHONES',
        '-OKdqbqetEcM4ak369yn    Appointment booking    agent.booking               manifest, phone, calls   +15551230003',
        '-OKdqbqetEcM4ak369ym    Front desk             agent.front-desk            manifest, calls          —',
        // The example's staging environment gives front-desk this id: staging's agent, not unmanaged.
        '-OKstagingFrontDesk01   Front desk (staging)   staging: agent.front-desk   phone, calls             +15551230001',
        '',
        NOTE,
        '',
      ].join('\n'),
    );
    expect(project.requests.every((request) => request.method === 'GET')).toBe(true);
  });

  it('on a terminal, get agents and get phones cut their name columns with … to its width, never the id or number a row is of; a pipe and JSON get them whole', async () => {
    project = await startExampleProject();
    const agents = await project.cliInProcess(['get', 'agents'], {}, { terminal: 'no-color', columns: 90 });
    expect(agents.code, agents.stderr).toBe(0);
    const table = agents.stdout.split('\n\n')[0]?.split('\n') ?? [];
    expect(table).toEqual([
      'AGENT                   NAME              MANAGED BY        FOUND THROUGH     PHONES',
      '-OKdqbqetEcM4ak369yn    Appointment bo…   agent.booking     manifest, phon…   +15551230003',
      '-OKdqbqetEcM4ak369ym    Front desk        agent.front-de…   manifest, calls   —',
      '-OKstagingFrontDesk01   Front desk (st…   staging: agent…   phone, calls      +15551230001',
    ]);
    const phones = await project.cliInProcess(['get', 'phones'], {}, { terminal: 'no-color', columns: 60 });
    expect(phones.stdout.split('\n').filter(Boolean).map((line) => [line.slice(0, 12), line.length <= 60])).toEqual([
      ['PHONE       ', true],
      ['+15551230001', true],
      ['+15551230003', true],
    ]);
    // In a pipe nothing is cut (the test above), nor in JSON.
    const json = await project.cliInProcess(['get', 'agents', '--format', 'json'], {}, { terminal: 'no-color', columns: 40 });
    expect(json.stdout).toContain('"name": "Appointment booking"');
  });

  it('an agent the manifests name that the service does not have is shown as such; an agent reached only by its id is "named"', async () => {
    project = await startExampleProject();
    const manifest = `version: 1\nagents:\n  gone:\n    id: -OKnoSuchAgent000001\n    name: Gone\n`;
    await writeFile(`${project.dir}/voxform.yaml`, manifest);
    const json = await project.cliInProcess(['get', 'agents', '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.agents.find((agent: { id: string }) => agent.id === '-OKnoSuchAgent000001')).toEqual({
      id: '-OKnoSuchAgent000001',
      name: null,
      exists: false,
      managed_by: 'agent.gone',
      environment: null,
      found_through: ['manifest'],
      phones: [],
    });
    // An id that starts with `-` follows `--`, as any argument that looks like an option does.
    const spare = await project.cliInProcess(['get', 'agents', '--', '-OKspareAgent0000001']);
    expect(spare.code, spare.stderr).toBe(0);
    expect(spare.stdout).toMatch(/^-OKspareAgent0000001 +\S.* +unmanaged +named +—$/m);
    // JSON says what the table says.
    const spareJson = await project.cliInProcess(['get', 'agents', '--format', 'json', '--', '-OKspareAgent0000001']);
    expect(spareJson.code, spareJson.stderr).toBe(0);
    expect(JSON.parse(spareJson.stdout).agents).toEqual([{ id: '-OKspareAgent0000001', name: 'Spare agent 1', exists: true, managed_by: null, environment: null, found_through: ['named'], phones: [] }]);
    // An id one of the sources reaches is found through it, not `named`, in both.
    const known = await project.cliInProcess(['get', 'agents', '--format', 'json', '--', '-OKnoSuchAgent000001']);
    expect(JSON.parse(known.stdout).agents.map((agent: { found_through: string[] }) => agent.found_through)).toEqual([['manifest']]);
  });

  it('NAME picks one: an agent by manifest name, id or name on the service; a phone by number; JSON is versioned', async () => {
    project = await startExampleProject();
    for (const name of ['front-desk', '-OKdqbqetEcM4ak369ym', 'Front desk']) {
      const result = await project.cliInProcess(['get', 'agents', '--format', 'json', '--', name]);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report).toMatchObject({ format_version: 1, kind: 'agents', sources: { manifest_agents: 2, phones: 2, calls_read: 40, more_calls: false } });
      expect(report.agents).toEqual([{ id: '-OKdqbqetEcM4ak369ym', name: 'Front desk', exists: true, managed_by: 'agent.front-desk', environment: null, found_through: ['manifest', 'call'], phones: [] }]);
    }
    const phone = await project.cliInProcess(['get', 'phones', '+15551230003', '--format', 'json']);
    expect(JSON.parse(phone.stdout)).toEqual({
      format_version: 1,
      kind: 'phones',
      phones: [{ number: '+15551230003', status: 'active', agent_id: '-OKdqbqetEcM4ak369yn', agent_name: 'Appointment booking', agent_exists: true, managed_by: null, environment: null }],
      sources: { state: { workspace: `default@${project.url}` } },
    });
  });

  it('an unknown phone or agent is an error with its code and a hint, exit 1', async () => {
    project = await startExampleProject();
    const phone = await project.cliInProcess(['get', 'phones', '+15551230004']);
    expect(phone.code).toBe(1);
    expect(phone.stderr).toBe('error[phone_unknown]: The service has no phone number "+15551230004".\n  hint: Did you mean +15551230001?\n');
    const json = await project.cliInProcess(['get', 'phones', '+1', '--format', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'phone_unknown' } });
    const agent = await project.cliInProcess(['get', 'agents', 'front-dsk']);
    expect(agent.code).toBe(1);
    // NAME is an argument here: the error names it as typed, not as an option never passed.
    expect(agent.stderr).toBe('error[agent_unknown]: agent "front-dsk" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.\n  hint: Did you mean front-desk?\n');
    const kind = await project.cliInProcess(['get', 'calls']);
    expect(kind.code).toBe(1);
    expect(kind.stderr).toBe('error[invalid_argument]: The <kind> given to `voxform get` is not one it knows: choose phones, agents, campaigns or knowledge.\n  hint: Run `voxform get --help` for its arguments and options.\n');
  });

  it('after an apply, the phone the manifest binds answers with the managed agent', async () => {
    project = await startExampleProject();
    const apply = await project.cliInProcess(['apply', '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    const result = await project.cliInProcess(['get', 'phones']);
    expect(result.stdout).toMatch(/^\+15551230001 +active +-OKdqbqetEcM4ak369ym \(Front desk\) +phone\.\+15551230001$/m);
    expect(result.stdout).toMatch(/^\+15551230002 +\S+ +-OKdqbqetEcM4ak369yn \(Appointment booking\) +phone\.\+15551230002$/m);
  });
});

describe('voxform get: a value hidden as a secret', () => {
  const tempDir = useTempDirs();

  it('is hidden before the columns are sized: they stay aligned, and show no secret length', async () => {
    const cwd = await tempDir({
      'voxform.yaml': 'version: 1\nagents:\n  a: { id: -OKspareAgent0000001, name: "${env:AG_NAME}" }\nphones:\n  "+15551230001": { agent: a }\n',
    });
    const env = { AG_NAME: 'planted-agent-name-77' };
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd, env })).code).toBe(0);
    const agents = await runCliInProcess(['get', 'agents', '--local'], { cwd, env });
    expect(agents.stdout).not.toContain('planted-agent-name-77');
    const rows = agents.stdout.split('\n').slice(0, 2);
    expect(rows[0]).toMatch(/^AGENT +NAME +MANAGED BY/);
    expect(rows[1]?.indexOf('agent.a')).toBe(rows[0]?.indexOf('MANAGED BY'));
    const phones = await runCliInProcess(['get', 'phones', '--local'], { cwd, env });
    const phoneRows = phones.stdout.split('\n').slice(0, 2);
    expect(phoneRows[1]?.indexOf('phone.+15551230001')).toBe(phoneRows[0]?.indexOf('MANAGED BY'));
  });
});

describe('voxform get: a live name an apply filled from ${env:…}, in a job without the variable', () => {
  const tempDir = useTempDirs();

  it('is withheld whole in the agents and phones tables and their JSON, as the deploy ledger says it was filled', async () => {
    const cwd = await tempDir({
      'voxform.yaml': 'version: 1\nagents:\n  a: { id: -OKspareAgent0000001, name: "Desk ${env:AG_NAME}" }\nphones:\n  "+15551230001": { agent: a }\n',
    });
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd, env: { AG_NAME: 'planted-agent-name-77' } })).code).toBe(0);
    const outputs = [];
    for (const args of [['get', 'agents'], ['get', 'agents', 'a'], ['get', 'phones']]) {
      for (const format of ['text', 'json']) outputs.push(await runCliInProcess([...args, '--local', '--format', format], { cwd }));
    }
    for (const output of outputs) {
      expect(output.code, output.stderr).toBe(0);
      expect(output.stdout + output.stderr).not.toContain('planted-agent-name-77');
    }
    const [agents, , one, oneJson, phones, phonesJson] = outputs;
    expect(agents?.stdout).toMatch(/^-OKspareAgent0000001 +\(sensitive\) +agent\.a /m);
    expect(one?.stdout).toMatch(/^-OKspareAgent0000001 +\(sensitive\) +agent\.a /m);
    expect(JSON.parse(oneJson?.stdout ?? '').agents).toEqual([expect.objectContaining({ id: '-OKspareAgent0000001', name: '(sensitive)' })]);
    expect(phones?.stdout).toMatch(/^\+15551230001 +active +-OKspareAgent0000001 \(sensitive\) +phone\.\+15551230001$/m);
    expect(JSON.parse(phonesJson?.stdout ?? '').phones[0]).toMatchObject({ agent_id: '-OKspareAgent0000001', agent_name: '(sensitive)' });
    // A name no apply filled from a variable is shown as the service holds it.
    expect(phones?.stdout).toContain('(Appointment booking)');
  });
});

describe('voxform get agents NAME: manifests with errors', () => {
  const tempDir = useTempDirs();

  it('manifests with an error besides the ids their environments give: counted as validate counts, and a name of theirs is not unknown', async () => {
    const dir = await tempDir({
      'agents.yaml': 'version: 1\nagents:\n  a: { name: A }\n  b: { name: B }\nenvironments:\n  staging:\n    agents: { a: { id: -OKspareAgent0000004 }, b: { id: -OKspareAgent0000005 } }\n  production:\n    agents: { a: { id: -OKspareAgent0000001 } }\n',
    });
    const result = await runCliInProcess(['get', 'agents', 'a', '--local'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'warning: the manifests have 1 error (`voxform validate` lists them): their agent names and service are not used.\n' +
        'error[missing_id]: agent "a" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME\n  hint: Run again with --env staging or --env production.\n',
    );
  });
});
