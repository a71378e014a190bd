/**
 * A value typed on the command line that is not of the form its option takes is refused naming the
 * option or argument and what it takes, never the value (docs/security.md §5): options are read
 * before the manifests, so a secret typed in the wrong place is not yet one the output hides.
 */
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { usageError } from '../../src/cli/usage-errors.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const PLANTED = 'hk_planted_7Qz9wX';
/** The planted value is a manifest's secret too: one the output hides once the manifests are read. */
const MANIFEST = 'version: 1\nagents:\n  desk:\n    id: ag_1\n    config:\n      session_data_webhook: { url: "https://hooks.example.com/end", headers: { x-token: "${env:HOOK_TOKEN}" } }\n';

/** Every command of the tree with its words (`voxform state rm` as ['state', 'rm']). */
function commandsOf(command: Command, words: string[] = []): Array<{ words: string[]; command: Command }> {
  return [{ words, command }, ...command.commands.flatMap((sub) => commandsOf(sub, [...words, sub.name()]))];
}

const tree = commandsOf(buildProgram(async () => undefined));
const optionChoices = tree.flatMap(({ words, command }) => command.options.filter((option) => option.argChoices && option.long).map((option) => [[...words, option.long as string], option.long as string] as const));
const argumentChoices = tree.filter(({ command }) => command.registeredArguments[0]?.argChoices).map(({ words, command }) => [words, `<${command.registeredArguments[0]!.name()}>`] as const);
/** The command's mandatory options, each with a value it takes: the parser checks them before it reports an unknown option. */
const mandatory = (command: Command) => command.options.filter((option) => option.mandatory).flatMap((option) => [option.long as string, option.argChoices?.[0] ?? 'x']);
const flagsWithoutValue = tree.flatMap(({ words, command }) => command.options.filter((option) => option.isBoolean() && option.long && !option.negate).map((option) => [[...words, ...mandatory(command)], option.long as string] as const));

async function run(args: readonly string[]) {
  const result = await runCliInProcess([...args], { cwd: await tempDir({ 'voxform.yaml': MANIFEST }), env: { HOOK_TOKEN: PLANTED } });
  return { code: result.code, output: `${result.stdout}${result.stderr}` };
}

describe('a usage error never repeats the value typed', () => {
  it('covers the options and arguments with choices of the whole tree, with manifests that hold the value', async () => {
    const loaded = await run(['validate']);
    expect(loaded).toEqual({ code: 0, output: expect.not.stringContaining(PLANTED) });
    expect(optionChoices.length).toBeGreaterThan(15);
    expect(argumentChoices.length).toBeGreaterThan(1);
    expect(flagsWithoutValue.length).toBeGreaterThan(15);
    expect(parsedOptions.length).toBeGreaterThan(5);
  });

  it.each(optionChoices)('%j with a secret as its value', async (args, flag) => {
    for (const typed of [[...args, PLANTED], [...args.slice(0, -1), `${flag}=${PLANTED}`]]) {
      const { code, output } = await run(typed);
      expect(code).toBe(1);
      expect(output).toContain(`error[invalid_option]: The value given to ${flag} is not one it takes: choose `);
      expect(output).not.toContain(PLANTED);
    }
  });

  it.each(argumentChoices)('%j with a secret as its %s', async (words, argument) => {
    const { code, output } = await run([...words, PLANTED]);
    expect(code).toBe(1);
    expect(output).toContain(`error[invalid_argument]: The ${argument} given to \`voxform ${words.join(' ')}\` is not one it knows: choose `);
    expect(output).not.toContain(PLANTED);
  });

  it.each(flagsWithoutValue)('%j %s given a secret after `=`', async (words, flag) => {
    const { code, output } = await run([...words, `${flag}=${PLANTED}`]);
    expect(code).toBe(1);
    expect(output).toContain(`has no option ${flag} that takes a value`);
    expect(output).not.toContain(PLANTED);
  });

  /** Options whose parser refuses the value (a whole number's): their errors say the form, not the value. */
  const refuses = (parse: (value: string, previous: unknown) => unknown) => {
    try {
      parse(PLANTED, undefined);
      return false;
    } catch {
      return true;
    }
  };
  const parsedOptions = tree.flatMap(({ words, command }) => command.options.filter((option) => option.parseArg && !option.argChoices && option.long && refuses(option.parseArg)).map((option) => [[...words, ...mandatory(command)], option.long as string] as const));
  const formChecks: Array<readonly [string[], string]> = [
    [['plan', '--local'], '--timeout'],
    [['drift', '--local'], '--watch'],
    [['logs', '--local'], '--phone'],
    [['logs', '--local'], '--since'],
    [['report', '--local'], '--until'],
    [['init'], '--var'],
    [['emulator'], '--latency'],
    [['emulator'], '--fail-rate'],
    [['emulator'], '--llm'],
    [['emulator', 'traffic'], '--url'],
  ];

  it('logs --status given a secret: a status voxform does not know is sent as given, its note not repeating the value', async () => {
    const { code, output } = await run(['logs', '--local', '--status', PLANTED]);
    expect(code).toBe(0);
    expect(output).toContain('note: the value given to --status is not a call status voxform knows');
    expect(output).not.toContain(PLANTED);
  });

  it.each([...parsedOptions, ...formChecks])('%j given a secret of the wrong form', async (args, flag) => {
    const { code, output } = await run([...args, flag, PLANTED]);
    expect(code).toBe(1);
    expect(output).toMatch(new RegExp(`^error\\[[a-z_]+\\]: (The value given to |A value given to )?${flag} `, 'm'));
    expect(output).not.toContain(PLANTED);
  });

  it.each([
    [['plan', '--local'], 'VOXFORM_TIMEOUT', 'The value of VOXFORM_TIMEOUT is not a time'],
    [['emulator'], 'VOXFORM_EMULATOR_LLM', 'VOXFORM_EMULATOR_LLM must be the http(s) base URL'],
  ])('%j: %s of the wrong form is not repeated either', async (args, variable, said) => {
    const result = await runCliInProcess(args, { cwd: await tempDir({ 'voxform.yaml': MANIFEST }), env: { HOOK_TOKEN: PLANTED, [variable]: PLANTED } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(said);
    expect(`${result.stdout}${result.stderr}`).not.toContain(PLANTED);
  });

  /** A URL the operator gave that is not usable may still carry a password or a token: none is quoted. */
  const unusableUrls = [PLANTED, `vox:${PLANTED}@127.0.0.1:4571`, `http://vox:${PLANTED}@127.0.0.1:99999`, `https://gw.example.com/?api_key=${PLANTED}`, `https://gw.example.com/#${PLANTED}`, `ftp://${PLANTED}@gw.example.com`];

  it.each(unusableUrls)('--base-url and VOXFORM_BASE_URL given %j: refused without the value', async (url) => {
    for (const [args, env, said] of [
      [['plan', '--base-url', url], {}, 'The value given to --base-url is not usable: '],
      [['status'], { VOXFORM_BASE_URL: url }, 'The value of VOXFORM_BASE_URL is not usable: '],
    ] as const) {
      const result = await runCliInProcess([...args], { cwd: await tempDir({ 'voxform.yaml': MANIFEST }), env: { HOOK_TOKEN: PLANTED, VOXFORM_API_KEY: 'k-test', ...env } });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(`error[base_url_invalid]: ${said}`);
      expect(`${result.stdout}${result.stderr}`).not.toContain(PLANTED);
    }
  });

  it.each([...unusableUrls, `https://gw.example.com/${PLANTED}`])('VOXFORM_TRUSTED_ORIGINS holding %j: the entry is named by its place', async (url) => {
    const result = await runCliInProcess(['plan', '--base-url', 'http://127.0.0.1:9'], { cwd: await tempDir({ 'voxform.yaml': MANIFEST }), env: { HOOK_TOKEN: PLANTED, VOXFORM_API_KEY: 'k-test', VOXFORM_TRUSTED_ORIGINS: `https://ok.example.com,${url}` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[trusted_origins_invalid]: VOXFORM_TRUSTED_ORIGINS: its entry 2 of 2 is not an origin: ');
    expect(`${result.stdout}${result.stderr}`).not.toContain(PLANTED);
  });

  it('a value the parser cannot take apart is not repeated either: a URL only almost a URL, a short option with `=`', async () => {
    for (const typed of [['emulator', '--llm', `http://[${PLANTED}`], ['plan', `-x=${PLANTED}`], ['plan', `--=${PLANTED}`]]) {
      const { code, output } = await run(typed);
      expect(code, typed.join(' ')).toBe(1);
      expect(output, typed.join(' ')).toMatch(/^error\[[a-z_]+\]: /);
      expect(output, typed.join(' ')).not.toContain(PLANTED);
    }
  });

  it('the command line written again for options typed after `--` shows a value of the wrong form as its placeholder', async () => {
    for (const typed of [['drift', '--', '--region', PLANTED], ['get', PLANTED, '--', '--local'], ['completion', '--', PLANTED, '--help']]) {
      const { code, output } = await run(typed);
      expect(code, typed.join(' ')).toBe(1);
      expect(output, typed.join(' ')).not.toContain(PLANTED);
    }
  });

  // The parser refuses the line before the manifests are read: an environment's name cannot be checked, so none is written again.
  it.each([
    [['plan', '--local', '--', '--env', PLANTED], 'voxform plan --local --env NAME'],
    [['status', '--local', '--', '--env', PLANTED], 'voxform status --local --env NAME'],
    [['diff', '--local', '--env', 'staging', '--', '--env', PLANTED], 'voxform diff --env NAME --local --env NAME'],
    [['plan', '--local', '--env', PLANTED, '--', '--format', 'json'], 'voxform plan --env NAME --local --format json'],
    [['plan', '--', '--base-url', `http://user:${PLANTED}@h/`], 'voxform plan --base-url URL'],
    [['plan', '--', `--base-url=https://h.example.com/?token=${PLANTED}`], 'voxform plan --base-url URL'],
    [['plan', '--base-url', `http://h.example.com/#${PLANTED}`, '--', '--format', 'json'], 'voxform plan --base-url URL --format json'],
    [['plan', '--', '--base-url', 'http://127.0.0.1:4010', '-f', 'voxform.yaml', '--region', 'eu'], 'voxform plan --base-url http://127.0.0.1:4010 -f voxform.yaml --region eu'],
  ])('%j: the line written again holds no environment, and a base URL only when usable', async (typed, line) => {
    for (const files of [{ 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: ag_1\n    config: { prompt: Hello }\nenvironments:\n  staging: {}\n' }, {}] as Array<Record<string, string>>) {
      const result = await runCliInProcess(typed, { cwd: await tempDir(files), env: {} });
      const output = `${result.stdout}${result.stderr}`;
      expect(result.code, output).toBe(1);
      expect(output).toContain(`hint: Put options before \`--\`: \`${line}\`.`);
      expect(output).not.toContain(PLANTED);
    }
  });

  it('an option of one value given before `--` and after it: no line written, which the parser would refuse as given twice', async () => {
    for (const typed of [['plan', '--local', '--env', 'staging', '--', '--env', 'production'], ['plan', '--local', '--', '--env', 'staging', '--env', PLANTED], ['get', 'agents', '--local', '--', '--format', 'json', '--format', 'text']]) {
      const result = await runCliInProcess(typed, { cwd: await tempDir({}), env: {} });
      const output = `${result.stdout}${result.stderr}`;
      expect(result.code, output).toBe(1);
      expect(output, typed.join(' ')).toMatch(/hint: `--(env|format)` is given more than once and takes one value: give it once, before `--`\.\n/);
      expect(output).not.toContain('Put options before');
      expect(output).not.toContain(PLANTED);
    }
  });

  it('an option after `--format json` answers in JSON without the value', async () => {
    const { code, output } = await run(['plan', '--format', 'json', '--region', PLANTED]);
    expect(code).toBe(1);
    expect(JSON.parse(output).error).toEqual({ code: 'invalid_option', message: 'The value given to --region is not one it takes: choose us or eu.', hint: 'Run `voxform plan --help` for its commands and options.' });
  });

  // A group that takes arguments too (`test PATH`) takes a word that is none of its commands for one, and one that
  // runs itself (`plan`) says it takes none: the word is not repeated there either.
  const groups = tree.filter(({ command }) => command.commands.length > 0 && command.registeredArguments.length === 0).map(({ words, command }) => [words, command.commands.map((sub) => sub.name()), command.options.some((option) => option.long === '--format')] as const);

  it.each(groups)('%j given a secret as its command: not repeated, its commands listed', async (words, commands, json) => {
    for (const format of json ? [[], ['--format', 'json']] : [[]]) {
      const { code, output } = await run([...words, PLANTED, ...format]);
      expect(code).toBe(1);
      const cmd = `\`voxform${words.map((word) => ` ${word}`).join('')}\``;
      expect(output).toMatch(new RegExp(`${cmd} (has no command of that name\\.|takes no argument, not 1\\.)`));
      if (output.includes('has no command')) expect(output).toContain(`Its commands: ${commands.length > 1 ? `${commands.slice(0, -1).join(', ')} or ` : ''}${commands.at(-1)}`);
      expect(output).not.toContain(PLANTED);
    }
  });

  /** Environments defined, and no reference to the value: it is a secret of the job no scrub knows. */
  const ENVIRONMENTS = 'version: 1\nagents:\n  desk:\n    id: ag_1\n    config: { prompt: Hello }\nenvironments:\n  staging: {}\n  production: {}\n';

  it.each([
    [['plan', '--local', '--env'], '--env', true],
    [['validate', '--env'], '--env', true],
    [['diff', '--local', '--env', 'staging', '--env'], '--env', true],
    [['promote', '--local', '--to'], '--to', false],
    [['promote', '--local', '--to', 'production', '--from'], '--from', false],
  ])('%j given a secret as the environment: not repeated, the defined ones named', async (args, flag, json) => {
    for (const format of json ? [[], ['--format', 'json']] : [[]]) {
      const result = await runCliInProcess([...args, PLANTED, ...format], { cwd: await tempDir({ 'voxform.yaml': ENVIRONMENTS }), env: {} });
      const output = `${result.stdout}${result.stderr}`;
      expect(result.code, output).toBe(1);
      expect(output).toContain(`${flag} names an environment the manifests do not define.`);
      expect(output).toMatch(/The manifests define \\?"production\\?", \\?"staging\\?"/);
      expect(output).not.toContain(PLANTED);
    }
    // A near miss is named by the environment it is near: a name voxform knows.
    const near = await runCliInProcess([...args, 'stagin'], { cwd: await tempDir({ 'voxform.yaml': ENVIRONMENTS }), env: {} });
    if (flag !== '--to') expect(near.stderr).toContain(`${flag} names an environment the manifests do not define; did you mean "staging"?`);
  });

  /**
   * What each command taking --env needs beside it to run; `webhook serve`, a server that runs until
   * stopped, is held to the same rule by the one check every command runs through (run-command.ts).
   */
  const withEnvironment: Record<string, string[]> = {
    validate: [], 'policy list': [], plan: [], apply: [], rollback: ['HEAD'], diff: ['--env', 'other'], history: [], drift: [], 'emulator traffic': [],
    logs: [], report: [], chat: ['--agent', 'desk'], status: [], test: [], 'test capture': ['c1'], get: ['agents'], 'webhook send': ['--event', 'end-of-call'], 'ci run': ['--provider', 'github', '--command', 'plan'],
  };

  it('an environment no manifest could be read to check (none found, or not YAML) is withheld by every command that takes --env', async () => {
    const takingEnv = tree.filter(({ command }) => command.options.some((option) => option.long === '--env')).map(({ words }) => words.join(' '));
    expect(takingEnv.filter((words) => words !== 'webhook serve').sort()).toEqual(Object.keys(withEnvironment).sort());
    const folders: Array<[string, Record<string, string>, string[]]> = [
      ['a folder without manifests', {}, []],
      ['a manifest not read as YAML', { 'voxform.yaml': 'version: 1\nagents: [\n' }, []],
      ['a -f naming no file', {}, ['-f', 'missing.yaml']],
    ];
    for (const [where, files, named] of folders) {
      for (const [words, rest] of Object.entries(withEnvironment)) {
        const local = tree.find((entry) => entry.words.join(' ') === words)?.command.options.some((option) => option.long === '--local') ? ['--local'] : [];
        const result = await runCliInProcess([...words.split(' '), ...rest, ...local, ...named, '--env', PLANTED], { cwd: await tempDir(files), env: {} });
        expect(`${result.stdout}${result.stderr}`, `${words} in ${where}`).not.toContain(PLANTED);
      }
    }
  });

  it.each([
    [['plan', '--local', '--env', 'staging', '--env', PLANTED], '--env', 'voxform plan'],
    [['promote', '--local', '--to', 'production', '--to', PLANTED], '--to', 'voxform promote'],
    [['logs', '--local', '--limit', '3', '--limit', '4'], '--limit', 'voxform logs'],
    [['test', '--local', '--format', 'json', '--format', 'text'], '--format', 'voxform test'],
    [['test', 'capture', 'c1', '--out', 'a.yaml', '--out', PLANTED], '--out', 'voxform test capture'],
  ])('%j: an option of one value given twice is refused, neither value taken nor repeated', async (args, flag, words) => {
    const result = await runCliInProcess([...args], { cwd: await tempDir({ 'voxform.yaml': ENVIRONMENTS }), env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error[invalid_option]: ${flag} is given twice to \`${words}\`: it takes one value, and which one was meant is not voxform's to guess.\n  hint: Give ${flag} once.\n`);
    expect(result.stdout).toBe('');
  });

  it('a repeatable option given twice is taken whole: -f, --agent', async () => {
    const result = await runCliInProcess(['validate', '-f', 'voxform.yaml', '-f', 'staging.yaml'], { cwd: await tempDir({ 'voxform.yaml': ENVIRONMENTS, 'staging.yaml': 'version: 1\n' }), env: {} });
    expect(result.code, result.stderr).toBe(0);
    const tests = await runCliInProcess(['test', '--local', '--agent', 'desk', '--agent', 'desk', '--mode', 'replay'], { cwd: await tempDir({ 'voxform.yaml': ENVIRONMENTS }), env: {} });
    expect(tests.stderr).not.toContain('is given twice');
    expect(tests.stderr).toContain('tests_not_found');
  });

  it("a reason of the parser's own is kept, the value still not repeated", () => {
    const command = { path: 'voxform plan', hasCommands: false };
    expect(usageError('commander.invalidArgument', `error: option '--limit <n>' argument '${PLANTED}' is invalid. Not a whole number.`, command).message).toBe('The value given to --limit is invalid: Not a whole number.');
    expect(usageError('commander.invalidArgument', `error: command-argument value '${PLANTED}' is invalid for argument 'ref'. Not a commit.`, command).message).toBe('The <ref> given to `voxform plan` is invalid: Not a commit.');
  });
});
