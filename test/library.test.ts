import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as library from '../src/index.js';
import { apply, createClient, fingerprintKey, findTestFiles, loadManifests, loadTestFiles, plan, runTests, startEmulator } from '../src/index.js';
import { repoRoot } from './helpers/cli.js';
import { compileExample, typescriptExample } from './helpers/doc-example.js';
import { SECRETS, startExampleProject, type ExampleProject } from './helpers/project.js';

const run = promisify(execFile);

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/**
 * The documentation examples this file compiles, each as its own module of one program: one compiler
 * run checks them all (a run costs seconds, most of it reading the libraries' types, the same for
 * each). Each test still asserts the compiler's output for its own file, and runs the script it got.
 */
const EXAMPLES = {
  'library-load-plan-apply': () => typescriptExample('docs/library.md', '## Load, plan, apply'),
  'library-drift-policy': () => typescriptExample('docs/library.md', '## Drift and policy'),
  'testing-library': () => typescriptExample('docs/testing.md', '## Library'),
  'library-types': async () => `export type { ${(await documentedTypes()).join(', ')} } from 'voxform';\n`,
};
type ExampleName = keyof typeof EXAMPLES;
let compiled: { dir: string; output: string } | undefined;

beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-lib-examples-'));
  compiled = { dir, output: '' };
  const names = Object.keys(EXAMPLES) as ExampleName[];
  for (const name of names) await writeFile(path.join(dir, `${name}.ts`), await EXAMPLES[name]());
  // The program's root only imports the examples: the compiler checks and emits each of them.
  const { diagnostics } = await compileExample(dir, 'examples', names.map((name) => `import './${name}.js';\n`).join(''));
  compiled.output = diagnostics;
}, 120_000);
afterAll(async () => {
  if (compiled) await rm(compiled.dir, { recursive: true, force: true });
});

/** The compiler's output about `name` ('' when clean; a message naming no example counts for each), and its script. */
function compiledExample(name: ExampleName): { diagnostics: string; script: string } {
  const { dir, output } = compiled!;
  const messages = output.split(/\n(?=\S)/).filter((message) => message.trim() !== '');
  const others = (Object.keys(EXAMPLES) as ExampleName[]).filter((other) => other !== name);
  const mine = messages.filter((message) => !others.some((other) => message.startsWith(`${other}.ts(`)));
  return { diagnostics: mine.join('\n'), script: path.join(dir, `out/${name}.js`) };
}

/** The types docs/library.md lists: the names after "types" in the Exports column of its table. */
async function documentedTypes(): Promise<string[]> {
  const text = await readFile(path.join(repoRoot, 'docs/library.md'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .flatMap((line) => {
      const exports = line.split(' | ')[1] ?? '';
      const at = exports.search(/\btypes\b/);
      return at < 0 ? [] : [...exports.slice(at).matchAll(/`([A-Z][A-Za-z]*)`/g)].map((match) => match[1] as string);
    });
}

describe('the library', () => {
  it('runs the whole pipeline: load, plan, apply, plan again with no changes', async () => {
    const emulator = await startEmulator({ quiet: true });
    const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    const key = fingerprintKey(emulator.apiKey);
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-lib-'));
    try {
      const { state: desired, diagnostics } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const stateFile = path.join(dir, 'state.json');
      const first = await plan({ desired: desired!, client, stateFile, serviceId: 'local', fingerprintKey: key });
      expect(first.summary).toMatchObject({ create: 3, update: 4 });
      // As docs/library.md says: a Plan in memory holds the secrets apply sends; its renderers do not.
      expect(JSON.stringify(first)).toContain(SECRETS.HOOK_TOKEN);
      expect(library.renderPlanJson(first)).not.toContain(SECRETS.HOOK_TOKEN);
      const asked: number[] = [];
      const outcome = await apply({
        desired: desired!,
        client,
        stateFile,
        serviceId: 'local',
        fingerprintKey: key,
        confirm: async (fresh) => (asked.push(fresh.summary.create + fresh.summary.update), true),
        parallelism: 4,
      });
      expect(asked).toEqual([7]);
      expect(outcome.status).toBe('applied');
      expect(outcome.failed).toEqual([]);
      expect(outcome.applied).toHaveLength(7);
      const second = await plan({ desired: desired!, client, stateFile, serviceId: 'local', fingerprintKey: key });
      expect(second.summary).toEqual({ create: 0, update: 0, unchanged: 7, drifted: 0 });
    } finally {
      await client.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('loadManifests: problems in the manifests come back as diagnostics; nothing to read rejects with manifest_not_found', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-lib-'));
    try {
      await writeFile(path.join(dir, 'voxform.yaml'), 'version: 1\nagents:\n  a: { name: no id }\n');
      const broken = await loadManifests({ paths: ['voxform.yaml'], cwd: dir, env: SECRETS });
      expect(broken.state).toBeUndefined();
      expect(broken.diagnostics.map((d) => d.code)).toContain('missing_id');
      await expect(loadManifests({ paths: ['nowhere.yaml'], cwd: dir, env: SECRETS })).rejects.toMatchObject({ code: 'manifest_not_found' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a call from plain JavaScript that leaves out a required option, naming it, before anything is read', async () => {
    // What TypeScript would catch: `as never` stands for a caller without types.
    await expect(loadManifests({ paths: ['voxform.yaml'], cwd: repoRoot } as never)).rejects.toMatchObject({ code: 'invalid_option', message: 'loadManifests() needs `env` (an object) among its options.' });
    const loaded = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
    const client = createClient({ apiKey: 'sk-unused', baseUrl: 'http://127.0.0.1:9' });
    const noServiceId = { desired: loaded.state, client, fingerprintKey: fingerprintKey('sk-unused') } as never;
    // Without the check, this planned against a workspace named `default@undefined`.
    for (const call of [plan, apply, library.checkDrift]) {
      await expect(call(noServiceId)).rejects.toMatchObject({ code: 'invalid_option', message: expect.stringContaining('needs `serviceId` (a non-empty string) among its options') });
    }
  });

  it('refuses a call without its options object as loadManifests does (invalid_option naming what is missing), never with a bare TypeError', async () => {
    const { state: desired } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
    // Each as plain JavaScript would call it: `as never` stands for a caller without types.
    const calls: Array<[string, () => unknown]> = [
      ['createClient() needs its options (an object).', () => library.createClient(undefined as never)],
      ['evaluatePolicy() needs `now` (a function) among its options.', () => library.evaluatePolicy(desired!, undefined as never)],
      ['openStateBackend() needs `env` (an object), `cwd` (a non-empty string), `registerSecret` (a function) among its options.', () => library.openStateBackend(undefined as never)],
      ["runTests() needs `files` (an array), `targets` (a non-empty array of 'desired' or 'live', each at most once), `desired` (the manifests' DesiredState: `loaded.state`, the `state` of what loadManifests resolves to), `parallelism` (a whole number from 1 to 256) among its options.", () => library.runTests(undefined as never)],
      ['loadTestFiles() needs `files` (an array), `cwd` (a non-empty string), `agents` (an object) among its options.', () => library.loadTestFiles(undefined as never)],
      ['renderSarif() needs `diagnostics` (an array), `version` (a non-empty string) among its options.', () => library.renderSarif(undefined as never)],
      ['renderPlanText() needs `color` (true or false) among its options.', () => library.renderPlanText({} as never, undefined as never)],
      ['renderTestText() needs `color` (true or false) among its options.', () => library.renderTestText({} as never, undefined as never)],
      ['new JudgeCache() needs `folder` (a non-empty string), `modelName` (a non-empty string), `redact` (a function) among its options.', () => new library.JudgeCache(undefined as never)],
      ['captureTestFile() needs `record` (an object), `agentName` (a non-empty string) among its options.', () => library.captureTestFile(undefined as never)],
      ['detectDeploySource() needs `env` (an object), `cwd` (a non-empty string) among its options.', () => library.detectDeploySource(undefined as never)],
      ['Recordings.open() needs `mode` (a non-empty string), `redact` (a function), `modelName` (a non-empty string), `judge` (true or false) among its options.', () => library.Recordings.open([], undefined as never)],
    ];
    for (const [message, call] of calls) {
      await expect(Promise.resolve().then(call)).rejects.toMatchObject({ code: 'invalid_option', message });
    }
  });

  it('refuses an option given in the wrong form (invalid_option naming it, its value never quoted), never a RangeError or a string read letter by letter', async () => {
    const { state: desired } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
    // A client that reaches nothing: each call is refused before it is asked anything.
    const base = { desired: desired!, client: createClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' }), serviceId: 'local', fingerprintKey: 'k', stateFile: path.join(tmpdir(), 'voxform-never-written.json') };
    const calls: Array<[string, () => unknown]> = [
      ['createClient(): `timeoutMs` must be a number of milliseconds above 0, at most 2,147,483,647 (the longest a timer waits), not -1.', () => createClient({ apiKey: 'k', timeoutMs: -1 })],
      ['createClient(): `timeoutMs` must be a number of milliseconds above 0, at most 2,147,483,647 (the longest a timer waits), not 2147483648.', () => createClient({ apiKey: 'k', timeoutMs: 2 ** 31 })],
      ['createClient(): `retries` must be a whole number of at least 0, not -1.', () => createClient({ apiKey: 'k', retries: -1 })],
      ['createClient(): `maxInFlight` must be a whole number of at least 1, not 0.', () => createClient({ apiKey: 'k', maxInFlight: 0 })],
      ['createClient(): `timeoutMs` must be a number of milliseconds above 0, at most 2,147,483,647 (the longest a timer waits), not a string.', () => createClient({ apiKey: 'k', timeoutMs: '5' as never })],
      ['plan(): `targets` must be an array of strings, not a string.', () => plan({ ...base, targets: 'agent.booking' as never })],
      ['createClient(): `retries` must be a whole number of at least 0, not an object.', () => createClient({ apiKey: 'k', retries: {} as never })],
      ['apply(): `parallelism` must be a whole number of at least 1, not 1.5.', () => apply({ ...base, autoApprove: true, parallelism: 1.5 })],
      ['apply(): `lockTimeoutSeconds` must be a whole number of at least 0, not -1.', () => apply({ ...base, autoApprove: true, lockTimeoutSeconds: -1 })],
      // Each of these was taken as given: no backoff at all, no upload cap, a TypeError at the first
      // error, a header refusal reported as the service being unreachable.
      ['createClient(): `backoff.baseMs` must be a whole number of at least 0, not a string.', () => createClient({ apiKey: 'k', backoff: { baseMs: 'abc' as never } })],
      ['createClient(): `backoff` must be an object, not a string.', () => createClient({ apiKey: 'k', backoff: 'x' as never })],
      ['createClient(): `maxUploadBytes` must be a whole number of at least 1, not null.', () => createClient({ apiKey: 'k', maxUploadBytes: null as never })],
      ['createClient(): `maxUploadBytes` must be a whole number of at least 1, not NaN.', () => createClient({ apiKey: 'k', maxUploadBytes: NaN })],
      ['createClient(): `maxUploadBytes` must be a whole number of at least 1, not -1.', () => createClient({ apiKey: 'k', maxUploadBytes: -1 })],
      ['createClient(): `redact` must be a function, not a string.', () => createClient({ apiKey: 'k', redact: 'x' as never })],
      ['createClient(): `debug` must be a function, not a string.', () => createClient({ apiKey: 'k', debug: 'x' as never })],
      [
        'createClient(): `userAgent` must be a string a request header can carry (no line break or other control character, nothing beyond Latin-1), not one holding such a character.',
        () => createClient({ apiKey: 'k', userAgent: 'a\nb' }),
      ],
      ['iterateCallLogs(): `pageSize` must be a whole number from 1 to 100, not a string.', () => createClient({ apiKey: 'k' }).iterateCallLogs({}, { pageSize: '10' as never })],
      ['iterateCallLogs(): `pageSize` must be a whole number from 1 to 100, not 101.', () => createClient({ apiKey: 'k' }).iterateCallLogs({}, { pageSize: 101 })],
      // `${env:HOME}` read a number as text (`value.includes is not a function`); a path of 1 met a TypeError from node:path.
      ['The environment given holds HOOK_TOKEN as a number, where a manifest reads text (a string, or unset).', () => loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: { ...SECRETS, HOOK_TOKEN: 5 as never } })],
      ['loadManifests() needs `paths` (an array of strings) among its options.', () => loadManifests({ paths: [1 as never], cwd: repoRoot, env: SECRETS })],
      ['plan(): `stateFile` must be a string, not 5.', () => plan({ ...base, stateFile: 5 as never })],
      ['plan(): `onChange` must be a function, not a string.', () => plan({ ...base, onChange: 'x' as never })],
      ['checkDrift(): `stateFile` must be a string, not 5.', () => library.checkDrift({ ...base, stateFile: 5 as never })],
      // An empty key would be hashed as any other, one key for every account without one.
      ['fingerprintKey() needs `apiKey` (a non-empty string), not an empty string.', () => fingerprintKey('')],
      ['fingerprintKey() needs `apiKey` (a non-empty string), not 123.', () => fingerprintKey(123 as never)],
      ['fingerprintKey() needs `apiKey` (a non-empty string), not undefined.', () => fingerprintKey(undefined as never)],
    ];
    for (const [message, call] of calls) {
      await expect(Promise.resolve().then(call)).rejects.toMatchObject({ code: 'invalid_option', message });
    }
  });

  it('refuses to apply a fresh plan with changes without approval', async () => {
    const emulator = await startEmulator({ quiet: true });
    const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    const key = fingerprintKey(emulator.apiKey);
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-lib-'));
    try {
      const { state: desired } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
      await expect(apply({ desired: desired!, client, stateFile: path.join(dir, 'state.json'), serviceId: 'local', fingerprintKey: key })).rejects.toMatchObject({
        code: 'approval_required',
      });
      expect(emulator.control.requestLog().filter((r) => r.method !== 'GET')).toEqual([]);
    } finally {
      await client.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the library example of docs/library.md', () => {
  it('compiles under the strictest options (exactOptionalPropertyTypes included) and plans and applies against the emulator', async () => {
    project = await startExampleProject();
    const dir = project.dir;
    const { diagnostics, script } = compiledExample('library-load-plan-apply');
    expect(diagnostics).toBe('');

    const env = { PATH: process.env.PATH ?? '', ...project.env };
    const { stdout, stderr } = await run(process.execPath, [script], { cwd: dir, env });
    expect(stdout).toContain('Plan: 3 to create, 4 to update, 0 unchanged');
    expect(stdout).toContain('applied agent.front-desk');
    expect(stdout).toContain('applied: 7 applied, 0 failed');
    // The plan it logs is the one that ran, its secrets shown as (sensitive).
    const logged = JSON.parse(stderr) as { summary: object; resource_changes: unknown[] };
    expect(logged.summary).toMatchObject({ create: 3, update: 4 });
    expect(stderr).toContain('(sensitive)');
    for (const secret of Object.values(SECRETS)) expect(`${stdout}${stderr}`).not.toContain(secret);
    const again = await project.cliInProcess(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });
});

describe('the drift and policy example of docs/library.md', () => {
  it('compiles, reports a policy finding, writes it as SARIF, and classifies a change in git not applied yet', async () => {
    project = await startExampleProject();
    const dir = project.dir;
    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const manifest = path.join(dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('How can I help you today?', 'Book online at www.acme.example.'));
    const { diagnostics, script } = compiledExample('library-drift-policy');
    expect(diagnostics).toBe('');

    const env = { PATH: process.env.PATH ?? '', ...project.env };
    const { stdout } = await run(process.execPath, [script], { cwd: dir, env });
    const validate = await project.cliInProcess(['validate', '--format', 'json']);
    const { policy } = JSON.parse(validate.stdout) as { policy: { summary: { mandatory: number; advisory: number; waived: number } } };
    const { mandatory, advisory, waived } = policy.summary;
    expect(stdout).toContain(`policy: ${mandatory} mandatory, ${advisory} advisory, ${waived} waived`);
    expect(advisory).toBeGreaterThan(0);
    expect(stdout).toMatch(/^advisory speech-url at voxform\.yaml:\d+: /m);
    const sarif = JSON.parse(await readFile(path.join(dir, 'voxform.sarif'), 'utf8')) as { version: string; runs: Array<{ results: Array<{ ruleId: string }> }> };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]?.results).toHaveLength(mandatory + advisory + waived);
    expect(sarif.runs[0]?.results.map((result) => result.ruleId)).toContain('speech-url');
    expect(stdout).toContain('drift (pending): agent.front-desk at config.first_message\n');
    expect(stdout).toContain('drift: 1 of 7 resources differ\n');
    for (const secret of Object.values(SECRETS)) expect(stdout).not.toContain(secret);
  });
});

describe('runTests of the library', () => {
  /** The example's tests of the front desk, run against desired through the library only; what the service received. */
  async function runFrontDesk(withSecrets: boolean | undefined): Promise<string> {
    project = await startExampleProject();
    const { dir } = project;
    const { state: desired } = await loadManifests({ paths: ['voxform.yaml'], cwd: dir, env: SECRETS });
    const paths = await findTestFiles(['example/tests/front-desk.test.yaml'], dir, desired!.files);
    const { files } = await loadTestFiles({ files: paths, cwd: dir, agents: new Set(desired!.agents.keys()) });
    const client = createClient({ baseUrl: project.url, apiKey: project.emulator.apiKey });
    try {
      const run = await runTests({ files: files!, targets: ['desired'], client, desired: desired!, model: undefined, parallelism: 4, ...(withSecrets === undefined ? {} : { withSecrets }) });
      expect(run.reports.length).toBeGreaterThan(0);
      if (!withSecrets) expect(run.sinked).toEqual([{ agent: 'front-desk', places: expect.arrayContaining(['session_data_webhook.url']) as unknown as string[] }]);
    } finally {
      await client.close();
    }
    return project.requests.filter((r) => r.path.startsWith('/chat/completions')).map((r) => r.body).join('\n');
  }

  it('withholds the secrets and sends the URLs the live agent does not call to the sink, as `voxform test` does', async () => {
    const sent = await runFrontDesk(undefined);
    expect(sent).toContain('"x-hook-token":"withheld-by-voxform"');
    expect(sent).toContain('https://sink.voxform.invalid/');
    expect(sent).not.toContain('hooks.example.com');
    for (const secret of Object.values(SECRETS)) expect(sent).not.toContain(secret);
  });

  it('sends them, as apply would, only when the caller says the manifests are reviewed (withSecrets, as --with-secrets)', async () => {
    const sent = await runFrontDesk(true);
    expect(sent).toContain(`"x-hook-token":"${SECRETS.HOOK_TOKEN}"`);
    expect(sent).toContain('https://hooks.example.com/voice/end-of-call');
  });
});

describe('the library example of docs/testing.md', () => {
  it('compiles, runs the tests against desired, and the service receives none of the manifests\' secrets nor their URLs', async () => {
    project = await startExampleProject();
    const dir = project.dir;
    const { diagnostics, script } = compiledExample('testing-library');
    expect(diagnostics).toBe('');

    const env = { PATH: process.env.PATH ?? '', ...project.env };
    const { stdout } = await run(process.execPath, [script], { cwd: dir, env });
    expect(stdout).toContain('front-desk: session_data_webhook.url sent to the sink');
    expect(stdout).toMatch(/\d+ passed/);
    const sent = project.requests.filter((r) => r.path.startsWith('/chat/completions')).map((r) => r.body).join('\n');
    expect(sent).toContain('withheld-by-voxform');
    expect(sent).not.toContain('hooks.example.com');
    for (const secret of Object.values(SECRETS)) expect(sent).not.toContain(secret);
  });
});

/** The values docs/library.md lists (types leave nothing at run time). */
const DOCUMENTED_VALUES = [
  'loadManifests',
  'plan', 'renderPlanText', 'renderPlanJson', 'renderPlanMarkdown', 'readPlanFile', 'savePlanFile',
  'apply',
  'checkDrift',
  'evaluatePolicy', 'renderSarif',
  'openStateBackend', 'fingerprintKey', 'FileHistoryStore', 'ledgerSealKey', 'configurationHash', 'detectDeploySource',
  'createClient', 'ApiError', 'isApiError', 'REGION_BASE_URLS',
  'startEmulator', 'defaultSeed',
  'findTestFiles', 'loadTestFiles', 'runTests', 'runSucceeded', 'renderTestText', 'renderTestJson', 'renderTestJunit', 'renderTestMarkdown', 'captureTestFile',
  'Recordings', 'readBaseline', 'compareWithBaseline', 'verdictStatistics', 'JudgeCache',
  'parseEndOfCallWebhook', 'parsePrefetchRequest', 'prefetchResponse', 'prefetchAnswerProblem', 'checkWebhookHeaders', 'endOfCallPayload', 'prefetchQuery', 'WEBHOOK_BUDGET_MS',
  'VoxformError', 'isVoxformError', 'COMMAND_ERROR_CODES', 'API_ERROR_CODES', 'PLAN_PROBLEM_CODES', 'DIAGNOSTIC_CODES',
];

describe('the entry point of the library', () => {
  it('exports exactly what docs/library.md lists, and nothing internal', () => {
    expect(Object.keys(library).sort()).toEqual([...DOCUMENTED_VALUES].sort());
  });

  // A program that imports voxform keeps its own signals: Ctrl-C still ends it unless it says otherwise.
  it('installs no signal handler when imported', async () => {
    const entry = pathToFileURL(path.join(repoRoot, 'dist/index.js')).href;
    const count = `await import(${JSON.stringify(entry)}); console.log(['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s)).join(' '));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', count]);
    expect(stdout).toBe('0 0 0\n');
  });

  it('exports every type docs/library.md lists, as a program compiled against the package imports it', async () => {
    const types = await documentedTypes();
    expect(types).toEqual(expect.arrayContaining(['DesiredState', 'PolicyRule', 'PolicyArea', 'SourceLocation']));
    expect(await readFile(path.join(compiled!.dir, 'library-types.ts'), 'utf8')).toBe(`export type { ${types.join(', ')} } from 'voxform';\n`);
    const { diagnostics } = compiledExample('library-types');
    expect(diagnostics).toBe('');
  });

  it('is described, every value of it, in docs/library.md', async () => {
    const text = await readFile(path.join(repoRoot, 'docs/library.md'), 'utf8');
    const missing = DOCUMENTED_VALUES.filter((name) => !text.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
