import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_HELP } from '../../src/cli/help.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCliInProcess } from '../helpers/cli.js';
import type { DriftClass } from '../../src/drift/types.js';

/** Every command the user can run: those with an action, by their full name (`keys create`). */
function runnableCommands(program: Command): Array<{ name: string; command: Command }> {
  const found: Array<{ name: string; command: Command }> = [];
  const visit = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      const name = [...prefix, sub.name()];
      // A group (`keys`) only holds subcommands; a command with subcommands of its own (`test`) runs too.
      if (sub.commands.length === 0 || name.join(' ') in COMMAND_HELP) found.push({ name: name.join(' '), command: sub });
      visit(sub, name);
    }
  };
  visit(program, []);
  return found;
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

/** Splits an example the way a POSIX shell would for these simple lines (double quotes only). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') {
      quoted = !quoted;
      word ??= '';
    } else if (/\s/.test(ch) && !quoted) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

describe('command help', () => {
  const program = buildProgram(async () => undefined);
  const commands = runnableCommands(program);

  it('covers every command, and only commands that exist', () => {
    expect(commands.map((c) => c.name).sort()).toEqual(Object.keys(COMMAND_HELP).sort());
  });

  for (const { name, command } of commands) {
    it(`${name}: lists its environment variables, exit codes and examples`, () => {
      const help = helpOf(command);
      expect(help).toMatch(/\nEnvironment:\n {2}\S/);
      expect(help).toMatch(/\nExit codes:\n {2}0 {4}\S/);
      // Any command exits 130 when interrupted (docs/errors.md), so each says so, once.
      expect(help.match(/\n {2}130 {2}interrupted|\n {2}130 {2}stopped/g)).toHaveLength(1);
      expect(help).toMatch(/\nExamples:\n {2}\$ voxform /);
      for (const variable of COMMAND_HELP[name]?.environment ?? []) expect(help).toContain(variable);
      // An option that stands in for a variable (--state, -f, --timeout, …) brings the variable along.
      const section = help.slice(help.indexOf('\nEnvironment:\n'), help.indexOf('\nExit codes:\n'));
      const implied: Record<string, string[]> = {
        '--state': ['VOXFORM_STATE'],
        '--file': ['VOXFORM_ENV_ALLOW', 'VOXFORM_TRUSTED_ORIGINS'],
        '--timeout': ['VOXFORM_TIMEOUT'],
        '--base-url': ['VOXFORM_BASE_URL'],
        '--region': ['VOXFORM_REGION'],
      };
      for (const option of command.options) for (const variable of implied[option.long ?? ''] ?? []) expect(section, option.long).toContain(`\n  ${variable} `);
    });
  }

  it('drift: the exit code of a difference names every class of difference', () => {
    // Typed by the classes: a new one fails the type check here until the help names it.
    const named: Record<DriftClass, string> = {
      outside: 'changed outside voxform',
      pending: 'in git not applied yet',
      both: 'both',
      unlabelled: 'not labelled',
      environment: "changed by another environment's apply",
      unrecorded: 'no apply recorded in this state',
    };
    const line = COMMAND_HELP.drift?.exitCodes.find((code) => code.startsWith('2 '));
    for (const words of Object.values(named)) expect(line).toContain(words);
  });

  it('get: exit 1 names each kind NAME may be unknown as, campaigns and knowledge files too', () => {
    const line = COMMAND_HELP.get?.exitCodes.find((code) => code.startsWith('1 '));
    for (const code of ['phone_unknown', 'agent_unknown', 'campaign_unknown', 'knowledge_unknown']) expect(line).toContain(code);
  });

  it('gives examples that the parser accepts as written', async () => {
    for (const [name, help] of Object.entries(COMMAND_HELP)) {
      for (const example of help.examples) {
        const ran: string[] = [];
        const parser = buildProgram(async (command) => void ran.push(command));
        const quiet = (command: Command) => {
          command.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
          command.commands.forEach(quiet);
        };
        quiet(parser);
        const words = shellWords(example);
        const redirect = words.indexOf('>');
        if (redirect !== -1) words.splice(redirect, 2); // the shell's, not voxform's
        await expect(parser.parseAsync(words.slice(1), { from: 'user' }), example).resolves.toBeDefined();
        expect(ran, example).toEqual([name.replace(' ', '-')]);
      }
    }
  });

  it('voxform emulator and test list every variable the emulator\'s model is read from (its key comes from nowhere else)', async () => {
    const source = await readFile(new URL('../../src/cli/emulator-llm.ts', import.meta.url), 'utf8');
    // Read as `env.NAME`, or through the reader of header values (`headerValueFromEnv(env, 'NAME')`).
    const read = [...new Set([...source.matchAll(/env\.(VOXFORM_[A-Z_]+)|FromEnv\(env, '(VOXFORM_[A-Z_]+)'\)/g)].map((match) => match[1] ?? match[2]))];
    expect(read).toContain('VOXFORM_EMULATOR_LLM_API_KEY');
    for (const name of ['emulator', 'test']) {
      const help = helpOf(commands.find((c) => c.name === name)?.command as Command);
      for (const variable of read) expect(help, `${name}: ${variable}`).toContain(variable);
    }
  });

  it('advertises --parallelism only where it is used', () => {
    const withParallelism = commands.filter(({ command }) => command.options.some((option) => option.long === '--parallelism')).map((c) => c.name);
    expect(withParallelism.sort()).toEqual(['apply', 'diff', 'drift', 'plan', 'promote', 'rollback', 'test']);
  });
});

/** The text of a source file of src/. */
function source(file: string): string {
  return readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8');
}

/** The module that runs each command, by its action name (`keys-create`), as src/cli/run-command.ts loads it. */
function commandModules(): Map<string, string> {
  const loaders = source('cli/run-command.ts');
  return new Map([...loaders.matchAll(/^ {2}'?([\w-]+)'?: (?:async )?\(\) =>[\s\S]*?import\('\.\/commands\/([\w-]+)\.js'\)/gm)].map((match) => [match[1] as string, `cli/commands/${match[2]}.ts`]));
}

/** The argument text of each call of `name(` in `text`, to its closing parenthesis. */
function callsOf(text: string, name: string): string[] {
  const calls: string[] = [];
  for (let at = text.indexOf(`${name}(`); at !== -1; at = text.indexOf(`${name}(`, at + 1)) {
    let depth = 0;
    let end = at + name.length;
    do {
      const ch = text[end++];
      if (ch === '(') depth++;
      if (ch === ')') depth--;
    } while (depth > 0 && end < text.length);
    calls.push(text.slice(at, end));
  }
  return calls;
}

/**
 * What each shared path a command module calls makes it read, as the path's own code reads it: the
 * state backend (src/state/choice.ts), the state's evidence of secrets and the base revision's copy
 * of it (src/state/state-at-revision.ts), the policy with the operator's packs (src/cli/policy-check.ts,
 * and every apply that is not a recorded configuration's: apply-on-terminal.ts), the allow-list of
 * `${env:…}` (src/secrets/env-policy.ts).
 */
const READ_BY_CALLS: Array<{ reads: string[]; calls: (text: string) => boolean }> = [
  { reads: ['VOXFORM_STATE'], calls: (text) => /\b(ownFilesOf|openOperatorBackend|connectProject)\(/.test(text) },
  { reads: ['VOXFORM_STATE', 'VOXFORM_BASE_REF'], calls: (text) => /\b(operatorTrustedSecrets|readTrustedSecrets|noteEveryLedgerRecord|noteStateEvidence|planInputs)\(/.test(text) },
  {
    reads: ['VOXFORM_POLICY_PACKS', 'VOXFORM_TRUST_PROJECT_PACKS'],
    calls: (text) => /\b(checkPolicy|refuseMandatoryViolations|planPolicy|loadOperatorPacks)\(/.test(text) || callsOf(text, 'applyOnTerminal').some((call) => !/\brecorded:/.test(call)),
  },
  { reads: ['VOXFORM_ENV_ALLOW'], calls: (text) => /\b(envPolicyOf|loadManifests)\(/.test(text) },
  // `export` loads only the files it wrote itself (loadManifests), whatever the job.
  { reads: ['CI', 'VOXFORM_TRUST_UNCOMMITTED_FILES'], calls: (text) => /\b(loadCommandManifests|loadAsValidateChecks|loadManifestsIfAny|readProject|loadTestFiles|formatFiles|checkoutSuite)\(/.test(text) },
];

describe('the variables each command reads, in its help', () => {
  const program = buildProgram(async () => undefined);
  const commands = runnableCommands(program);
  const modules = commandModules();
  const environmentSection = (name: string) => {
    const help = helpOf(commands.find((c) => c.name === name)?.command as Command);
    return help.slice(help.indexOf('\nEnvironment:\n'), help.indexOf('\nExit codes:\n'));
  };

  /** What the command's module reads through the shared paths it calls; `ci run`: what each command it runs reads, and the runner's variables its hosts check. */
  const readBy = (name: string): string[] => {
    if (name === 'ci run') {
      const hosts = source('ci/github.ts') + source('ci/gitlab.ts');
      const runner = [...hosts.matchAll(/(?:runnerVariable|apiBaseUrl|requireToken)\(env, '([A-Z0-9_]+)'/g)].map((match) => match[1] as string);
      const ran = commands.find((c) => c.name === name)?.command.options.find((option) => option.long === '--command')?.argChoices ?? [];
      return [...runner, ...ran.flatMap(readBy)];
    }
    const file = modules.get(name.replace(' ', '-'));
    if (file === undefined) throw new Error(`no module runs ${name}`);
    const text = source(file);
    return READ_BY_CALLS.filter((path) => path.calls(text)).flatMap((path) => path.reads);
  };

  it('finds the module of every command', () => {
    for (const { name } of commands) expect(modules.has(name.replace(' ', '-')), name).toBe(true);
  });

  for (const { name } of commands) {
    it(`${name}: lists every variable the shared paths it runs read`, () => {
      const section = environmentSection(name);
      for (const variable of new Set(readBy(name))) expect(section, `${name}: ${variable}`).toContain(`\n  ${variable} `);
    });
  }

  it('lists those the audit found missing, each where it is read and can stop the command', () => {
    const missing: Record<string, string[]> = {
      apply: ['VOXFORM_POLICY_PACKS', 'VOXFORM_TRUST_PROJECT_PACKS', 'VOXFORM_BASE_REF'],
      promote: ['VOXFORM_POLICY_PACKS', 'VOXFORM_TRUST_PROJECT_PACKS', 'VOXFORM_BASE_REF'],
      'ci run': ['VOXFORM_POLICY_PACKS', 'VOXFORM_TRUST_PROJECT_PACKS', 'VOXFORM_BASE_REF', 'GITHUB_SHA', 'GITHUB_GRAPHQL_URL', 'CI_PROJECT_ID', 'CI_COMMIT_SHA'],
      test: ['VOXFORM_BASE_REF'],
      chat: ['VOXFORM_BASE_REF'],
      logs: ['VOXFORM_BASE_REF'],
      get: ['VOXFORM_BASE_REF'],
      drift: ['VOXFORM_BASE_REF'],
      diff: ['VOXFORM_BASE_REF'],
      export: ['VOXFORM_BASE_REF', 'VOXFORM_ENV_ALLOW'],
      init: ['VOXFORM_STATE'],
    };
    for (const [name, variables] of Object.entries(missing)) for (const variable of variables) expect(environmentSection(name), `${name}: ${variable}`).toContain(`\n  ${variable} `);
  });
});

describe('help of a command inside a group', () => {
  it('`voxform help webhook send` is the help of `webhook send`, as `webhook send --help` is', async () => {
    const asked = await runCliInProcess(['help', 'webhook', 'send']);
    const flag = await runCliInProcess(['webhook', 'send', '--help']);
    expect(asked.stdout).toMatch(/^Usage: voxform webhook send \[options\]/);
    expect(asked).toEqual(flag);
    expect((await runCliInProcess(['help', 'emulator', 'traffic'])).stdout).toMatch(/^Usage: voxform emulator traffic /);
  });

  it('words after a command that takes arguments are left to it: `voxform help fmt x` is fmt\'s help', async () => {
    const result = await runCliInProcess(['help', 'fmt', 'x']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: voxform fmt /);
    expect((await runCliInProcess(['help', 'webhook', 'send', 'x'])).stdout).toMatch(/^Usage: voxform webhook send /);
  });

  it('the root\'s own options are read on either side of `help`', async () => {
    const flag = await runCliInProcess(['state', 'list', '--help']);
    expect(await runCliInProcess(['help', 'state', 'list', '--no-color'])).toEqual(flag);
    expect(await runCliInProcess(['--no-color', 'help', 'state', 'list'])).toEqual(flag);
  });
});
