/**
 * What `plan`, `apply` and `validate` load before their first request: only what they use. Each
 * package or folder named here would cost start-up time on every run if it were loaded eagerly
 * (docs/plan.md, Speed): the YAML library (only templates and the general YAML parser need it), the
 * whole of undici (the client needs its pool alone), and the emulator, conversation and export code
 * no such command runs.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, useTempDirs } from '../helpers/cli.js';
import { importGraph } from '../helpers/import-graph.js';

const src = path.join(repoRoot, 'src');
const tempDir = useTempDirs();

describe('start-up imports', () => {
  for (const command of ['plan', 'apply', 'validate']) {
    it(`\`${command}\` loads no YAML library, no whole undici, no emulator, conversation or export code`, () => {
      const entry = path.join(src, `cli/commands/${command}.ts`);
      const { modules, packages } = importGraph(entry);
      expect([...packages].filter((name) => name === 'yaml' || name === 'undici' || name === 'openai')).toEqual([]);
      const folders = [...modules].map((file) => path.relative(src, file).split(path.sep)[0]);
      expect(folders.filter((folder) => ['emulator', 'conversations', 'export'].includes(folder as string))).toEqual([]);
      // The graph is the real one: it reaches the manifest loader and, but for validate, the client
      // (loaded once the command connects).
      expect(modules).toContain(path.join(src, 'manifest/load.ts'));
      if (command !== 'validate') expect(importGraph(entry, true).modules).toContain(path.join(src, 'api/http.ts'));
    });
  }

  // The validators are generated per schema file (src/schema/validators/): validate checks the
  // manifests only, and the service's and the test files' validators are most of the rest.
  it('`validate` loads the manifest\'s validators only', () => {
    const { modules } = importGraph(path.join(src, 'cli/commands/validate.ts'), true);
    const validators = [...modules].filter((file) => file.startsWith(path.join(src, 'schema/validators') + path.sep));
    expect(validators.map((file) => path.relative(src, file))).toEqual(['schema/validators/manifest.gen.ts']);
  });

  // Every command, `--version` and `--help` too, loads the command line's shell (src/cli/main.ts and
  // what it imports statically) first: the state backends, the history, the manifest loader, the
  // client and what runs a command come with the command that uses them, never with the shell. `--version` names the plan
  // and state formats and the database schema from their own small modules; an empty --state is
  // refused from the state's choice alone (state/choice.ts), which opens nothing; a base URL typed
  // after `--` is written again only when usable, by the regions' own check (api/regions.ts), which opens nothing either.
  it('the command line\'s shell loads no state backend, history, manifests, files or client', () => {
    const { modules } = importGraph(path.join(src, 'cli/main.ts'));
    const rooms = [...modules].map((file) => path.relative(src, file).split(path.sep));
    const allowed = ['state/postgres/url.ts', 'state/format-version.ts', 'state/postgres/schema.ts', 'plan/format-version.ts', 'state/choice.ts', 'api/regions.ts'];
    const loaded = rooms.filter((parts) => !allowed.includes(parts.join('/')));
    expect(loaded.filter(([room]) => ['manifest', 'plan', 'apply', 'history', 'project-files', 'api', 'policy', 'state'].includes(room as string))).toEqual([]);
    expect(rooms.map((parts) => parts.join('/'))).toEqual(expect.arrayContaining(allowed.slice(1)));
    // Running a command (its module, its context, the signal traps, prompts) comes with the command:
    // the parser alone answers --version and --help.
    const running = ['cli/run-command.ts', 'cli/signal-trap.ts', 'cli/confirm.ts'];
    expect(rooms.map((parts) => parts.join('/')).filter((file) => running.includes(file))).toEqual([]);
    expect(importGraph(path.join(src, 'cli/main.ts'), true).modules).toContain(path.join(src, 'cli/run-command.ts'));
  });

  // The built command line (scripts/bundle-cli.mjs): the shell is one file, and --version and --help
  // load nothing else of voxform's beyond the bundle's entry and its runtime.
  it.each([['--version'], ['--help'], ['plan', '--help']])('`voxform %s` loads the shell\'s one chunk and no command\'s', async (...args) => {
    const dir = await tempDir();
    const record = path.join(dir, 'loaded.json');
    const run = spawnSync(process.execPath, ['--require', path.join(repoRoot, 'test/helpers/loaded-files.cjs'), path.join(repoRoot, 'bin/voxform.cjs'), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', VOXFORM_TEST_LOADED_FILES: record },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const loaded = (JSON.parse(await readFile(record, 'utf8')) as string[]).filter((file) => !file.includes(`${path.sep}test${path.sep}helpers${path.sep}`));
    const bundle = path.join(repoRoot, 'dist/cli-bundle');
    expect(loaded.map((file) => path.relative(repoRoot, file)).sort()).toEqual(['bin/voxform.cjs', ...['main', 'rolldown-runtime', 'shell'].map((chunk) => path.relative(repoRoot, path.join(bundle, `${chunk}.cjs`)))].sort());
  });

  // `voxform test` needs a model only for judge: checks and simulated callers: the OpenAI client
  // (slow to load) comes with the first request to one.
  it('`test` loads no OpenAI client until a model is asked', () => {
    const entry = path.join(src, 'cli/commands/test.ts');
    expect([...importGraph(entry).packages].filter((name) => name === 'openai')).toEqual([]);
    expect(importGraph(entry, true).packages).toContain('openai');
  });

  // `plan --local` and `apply --local` start the embedded emulator (src/cli/connection.ts). Each
  // library named here serves what no plan or apply does there: the whole of undici the tool
  // webhooks of a model-played session, the OpenAI client the model itself, the YAML library seeds
  // written in YAML and traffic profiles. Loaded with the emulator, each would be start-up time of
  // every `plan --local` spent on nothing it uses.
  // proper-lockfile installs signal handlers when loaded: it comes with the first lock of the data file.
  it('the embedded emulator of --local loads no whole undici, no OpenAI client, no YAML library and no lock library', () => {
    const emulator = path.join(src, 'emulator/index.ts');
    const { modules, packages } = importGraph(emulator);
    expect([...packages].filter((name) => ['undici', 'openai', 'yaml', 'proper-lockfile'].includes(name))).toEqual([]);
    expect(importGraph(emulator, true).packages).toContain('proper-lockfile');
    expect(modules).toContain(path.join(src, 'emulator/server.ts'));
    // --local reads the model's settings without the `emulator` command's module (its traffic
    // profiles bring the YAML library).
    expect(importGraph(path.join(src, 'cli/connection.ts'), true).modules).not.toContain(path.join(src, 'cli/commands/emulator.ts'));
    // They are still there for what needs them, loaded when it runs.
    const later = importGraph(emulator, true).modules;
    for (const lazy of ['emulator/llm-agent.ts', 'emulator/llm-tools.ts', 'model/chat-model.ts']) expect(later).toContain(path.join(src, lazy));
  });
});
