/**
 * An option or argument that names something (a path, a URL, an agent…) refuses the empty string, in
 * every command of the tree (src/cli/empty-values.ts): a script's unset variable (`voxform init "$DIR"
 * --force`, `--base-url "$URL"`) would otherwise be read as the current folder or the default, and the
 * command would act there.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { NAMING_VALUES, valueName } from '../../src/cli/empty-values.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const MANIFEST = 'version: 1\nagents:\n  desk:\n    id: ag_1\n    config: {}\n';

/** Every command of the tree with its words (`voxform state rm` as ['state', 'rm']). */
function commandsOf(command: Command, words: string[] = []): Array<{ words: string[]; command: Command }> {
  return [{ words, command }, ...command.commands.flatMap((sub) => commandsOf(sub, [...words, sub.name()]))];
}

const tree = commandsOf(buildProgram(async () => undefined));

/**
 * The value names of the tree that name nothing an empty value could stand for: choices, numbers,
 * times, forms a parser checks. A new value name is refused by the first test until it is put here or
 * in NAMING_VALUES: a new kind of naming option cannot go unchecked.
 */
const NOT_NAMING = new Set([
  'format', 'region', 'time', 'interval', 'seconds', 'ms', 'n', 'p', 'address', 'key=value',
  'seed', 'status', 'number', 'type', 'target', 'text', 'mode', 'event', 'provider', 'command', 'shell', 'kind',
]);

/** What a command needs before its options are read: its required arguments and mandatory options, each with a value it takes. */
function needs(command: Command): string[] {
  const argumentsNeeded = command.registeredArguments.filter((argument) => argument.required).map((argument) => argument.argChoices?.[0] ?? 'x');
  const optionsNeeded = command.options.filter((option) => option.mandatory).flatMap((option) => [option.long as string, option.argChoices?.[0] ?? 'x']);
  return [...argumentsNeeded, ...optionsNeeded];
}

const pathOptions = tree.flatMap(({ words, command }) =>
  command.options.filter((option) => NAMING_VALUES.has(valueName(option) ?? '')).map((option) => [[...words, ...needs(command)], option.long as string] as const),
);
const pathArguments = tree.flatMap(({ words, command }) =>
  command.registeredArguments.flatMap((argument, index) =>
    // The arguments before it are given a value each takes (a choice where it has choices), so only the empty one is refused.
    NAMING_VALUES.has(argument.name()) ? [[words, command.registeredArguments.slice(0, index).map((before) => before.argChoices?.[0] ?? 'x'), argument.name()] as const] : [],
  ),
);

/** Every file under `dir` with its content: what a refused command must leave as it was. */
async function contents(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
  return Object.fromEntries(await Promise.all(files.map(async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as const)));
}

async function refused(args: readonly string[]) {
  const dir = await tempDir({ 'voxform.yaml': MANIFEST });
  const result = await runCliInProcess([...args], { cwd: dir });
  expect(await contents(dir)).toEqual({ 'voxform.yaml': MANIFEST });
  return { code: result.code, said: result.stderr.split('\n').slice(0, 2).join('\n'), stdout: result.stdout };
}

describe('a naming value given empty', () => {
  it('every value name of the tree is known to name something or not', () => {
    const names = tree.flatMap(({ command }) => [...command.options.flatMap((option) => valueName(option) ?? []), ...command.registeredArguments.map((argument) => argument.name())]);
    expect(names.filter((name) => !NAMING_VALUES.has(name) && !NOT_NAMING.has(name))).toEqual([]);
    expect(pathOptions.length).toBeGreaterThan(40);
    expect(pathArguments.map(([words]) => words.join(' ')).sort()).toEqual(['apply', 'fmt', 'get', 'init', 'plan show', 'rollback', 'state rm', 'state show', 'state unlock', 'test', 'test capture']);
  });

  it.each(pathOptions)('%j %s "" is refused, nothing done', async (args, flag) => {
    const { code, said, stdout } = await refused([...args, flag, '']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    if (flag === '--state') expect(said).toMatch(/^error\[state_location_empty\]: --state is empty: it names no state/);
    else expect(said).toMatch(new RegExp(`^error\\[invalid_option\\]: ${flag} is empty: it takes .*, and an empty value is never taken for ((the current folder or )?the default|every address of this machine)\\.\\n  hint: Give `));
  });

  it('says what each option takes as help names it: plan\'s --base a git revision, rollback\'s <ref> a record', async () => {
    expect((await refused(['plan', '--local', '--base', ''])).said).toMatch(/^error\[invalid_option\]: --base is empty: it takes a git revision such as origin\/main,/);
    expect((await refused(['rollback', '--local', ''])).said).toMatch(/it takes a history record, a commit or `previous`,/);
  });

  it.each(pathArguments)('%j %j: its argument <%s> given "" is refused, nothing done', async (words, before, name) => {
    const { code, said, stdout } = await refused([...words, ...before, '']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(said).toMatch(new RegExp(`^error\\[invalid_argument\\]: (The|One of the) <${name}> given to \`voxform ${words.join(' ')}\` is empty: it takes `));
  });

  it('a variadic argument refuses an empty one among others', async () => {
    const { code, said } = await refused(['fmt', 'voxform.yaml', '']);
    expect(code).toBe(1);
    expect(said).toBe(
      'error[invalid_argument]: One of the <paths> given to `voxform fmt` is empty: it takes a file or folder, and an empty value is never taken for the current folder or the default.\n' +
        '  hint: Give a file or folder, or leave the argument out; in a script, check that the variable it comes from is set.',
    );
  });

  it('`voxform init "$DIR" --force` with DIR unset leaves the manifest of the current folder as it was', async () => {
    const vars = ['business=Acme', 'business_description=a shop', 'opening_hours=9-5', 'transfer_number=+15551230001', 'agent_id=ag_1'].flatMap((value) => ['--var', value]);
    const { code, said } = await refused(['init', '', '--force', '--template', 'receptionist', ...vars]);
    expect(code).toBe(1);
    expect(said).toBe(
      'error[invalid_argument]: The <dir> given to `voxform init` is empty: it takes a folder, and an empty value is never taken for the current folder or the default.\n' +
        '  hint: Give a folder, or leave the argument out; in a script, check that the variable it comes from is set.',
    );
  });

  it.each([[['']], [['state', '']], [['help', '']]])('a command given empty, %j, is refused as every empty value is, not sought as a command of no name', async (args) => {
    const group = args[0] === 'state' ? 'voxform state' : 'voxform';
    const { code, said, stdout } = await refused(args);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(said).toBe(
      `error[invalid_argument]: The command given to \`${group}\` is empty: it takes one of its commands, and an empty value is never taken for the default.\n` +
        `  hint: Give one of its commands (\`${group} --help\` lists them); in a script, check that the variable it comes from is set.`,
    );
  });

  it('a subcommand\'s own option wins over its parent\'s of the same name: `emulator traffic --seed ""` is a random seed, as `emulator --traffic-seed ""` is', async () => {
    // `emulator`'s `--seed <file>` is refused empty; `emulator traffic`'s `--seed <seed>` is any text, the empty one too.
    expect((await refused(['emulator', '--seed', ''])).said).toMatch(/^error\[invalid_option\]: --seed is empty: it takes a file/);
    const dir = await tempDir();
    const traffic = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--seed', ''], { cwd: dir });
    expect(traffic.code, traffic.stderr).toBe(0);
    expect(traffic.stdout).toMatch(/^Added 9 synthetic calls \(profile steady, seed ""\) to the call log of \.voxform\/local\.json:\n/);
  });

  it('a mandatory option is not told it may be left out', async () => {
    const { said } = await refused(['state', 'migrate', '--to', '']);
    expect(said).toBe(
      'error[invalid_option]: --to is empty: it takes a postgres:// URL or a file path, and an empty value is never taken for the current folder or the default.\n' +
        '  hint: Give a postgres:// URL or a file path; in a script, check that the variable it comes from is set.',
    );
  });
});

/** Each naming option of the tree with another long option of its command, which a missing value would let it read as its own. */
const optionsBeforeOptions = tree.flatMap(({ words, command }) => {
  const others = command.options.flatMap((option) => (option.long && option.long !== '--version' ? [option.long] : []));
  return command.options.flatMap((option) => {
    const next = others.find((other) => other !== option.long);
    return NAMING_VALUES.has(valueName(option) ?? '') && next !== undefined ? [[[...words, ...needs(command)], option.long as string, next] as const] : [];
  });
});

describe('an option read as the value of the option before it', () => {
  it.each(optionsBeforeOptions)('%j %s %s is refused, nothing done', async (args, flag, next) => {
    const { code, said, stdout } = await refused([...args, flag, next]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(said).toMatch(new RegExp(`^error\\[invalid_option\\]: ${flag} has no value: the next word, ${next}, is an option of \`voxform .*\`, and was read as its value\\.\\n  hint: Give ${flag} <[^>]+> its value before the next option\\.$`));
  });

  it('`logs --agent --local` goes nowhere, where it would have read every agent of the service the environment names', async () => {
    const { said } = await refused(['logs', '--agent', '--local']);
    expect(said).toBe('error[invalid_option]: --agent has no value: the next word, --local, is an option of `voxform logs`, and was read as its value.\n  hint: Give --agent <name|id> its value before the next option.');
  });

  it('takes a value starting with one dash, as an agent id does', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    const result = await runCliInProcess(['logs', '--agent', '-OKdqbqetEcM4ak369ym', '--local'], { cwd: dir });
    expect(result.stderr).not.toContain('has no value');
    expect(result.code).toBe(0);
  });
});
