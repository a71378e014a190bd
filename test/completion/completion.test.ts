/**
 * `voxform completion`: the bash script runs in a real bash (`complete -p`, then COMP_WORDS and
 * COMP_CWORD in, COMPREPLY out); zsh and fish scripts are syntax-checked and asked for candidates
 * where those shells are installed. Names from the manifests are data: a hostile one is offered as
 * the literal word it is, quoted where bash inserts it, and runs nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { completionScript, type Shell } from '../../src/completion/scripts.js';
import { templateNames } from '../../src/templates/catalog.js';
import type { CompletionCommand } from '../../src/completion/tree.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

function shellPath(shell: Shell): string | undefined {
  return ['/usr/bin', '/bin', '/usr/local/bin'].map((dir) => path.join(dir, shell)).find((file) => existsSync(file));
}

/** What bash completes for `words` (the last one is the word at the cursor), with the script sourced. */
function bashComplete(scriptFile: string, words: string[], cwd: string): string[] {
  const driver = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _voxform; printf "%s\\0" "${COMPREPLY[@]}"';
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', driver, 'bash', scriptFile, ...words], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(result.stderr).toBe('');
  return result.stdout.split('\0').filter((word) => word !== '');
}

/**
 * The words bash reads, once each of what it completes for `words` is on the command line and Enter
 * is pressed: one list per candidate (a candidate bash cannot read, such as an open quote, is an
 * empty list). Reading runs in `cwd`, so a candidate that runs a command leaves a file there.
 */
function bashInserted(scriptFile: string, words: string[], cwd: string): string[][] {
  const driver =
    'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _voxform; ' +
    'for reply in "${COMPREPLY[@]}"; do (eval "set -- $reply" && printf "%s\\0" "$@") 2>/dev/null; printf "\\1"; done';
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', driver, 'bash', scriptFile, ...words], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(result.stderr).toBe('');
  return result.stdout.split('\x01').slice(0, -1).map((read) => read.split('\0').slice(0, -1));
}

/** The candidates zsh's driver offers for the words after `voxform` (the last at the cursor), compdef stubbed. */
function zshCandidates(zsh: string, scriptFile: string, words: string[], cwd: string): string[] {
  const driver = 'compdef() { :; }; source "$1"; shift; __voxform_cur="${@[-1]}"; __voxform_candidates "${@[1,-2]}"';
  const result = spawnSync(zsh, ['-f', '-c', driver, 'zsh', scriptFile, ...words], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter((word) => word !== '');
}

/** What fish completes for a command line, the script sourced. */
function fishComplete(fish: string, scriptFile: string, line: string, cwd: string): string[] {
  const result = spawnSync(fish, ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', scriptFile, line], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter((word) => word !== '');
}

const MANIFEST = `version: 1
agents:
  front-desk: { id: -OKdqbqetEcM4ak369ym, name: Front desk }
  booking: { id: -OKdqbqetEcM4ak369yn, name: Booking }
phones:
  "+15551230001": { agent: front-desk }
campaigns:
  recall-reminders: { id: cmp_recall_2026 }
environments:
  staging: { agents: { front-desk: { id: -OKstagingFrontDesk01 } } }
  production: {}
`;

describe('voxform completion bash, in a real bash', () => {
  it('registers itself and completes commands, subcommands, options, --format values, and the manifests\' names', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'plan.json': '{}' });
    const generated = await runCliInProcess(['completion', 'bash'], { cwd: dir });
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stderr).toBe('');
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, generated.stdout);

    const registered = spawnSync('bash', ['--norc', '--noprofile', '-c', 'source "$1"; complete -p voxform', 'bash', scriptFile], { encoding: 'utf8' });
    expect(registered.stdout).toBe('complete -F _voxform voxform\n');

    const complete = (...words: string[]) => bashComplete(scriptFile, ['voxform', ...words], dir);
    const program = buildProgram(async () => undefined);
    expect(complete('')).toEqual(program.commands.map((command) => command.name()));
    expect(complete('pl')).toEqual(['plan']);
    expect(complete('plan', '')).toEqual(['show']);
    expect(complete('state', '')).toEqual(['list', 'show', 'rm', 'unlock', 'migrate', 'upgrade']);
    expect(complete('plan', '--fo')).toEqual(['--format']);
    expect(complete('plan', '--format', '')).toEqual(['text', 'json', 'markdown']);
    expect(complete('logs', '--format', '')).toEqual(program.commands.find((c) => c.name() === 'logs')?.options.find((o) => o.long === '--format')?.argChoices);
    expect(complete('plan', '-f', 'voxform.yaml', '--format', 'm')).toEqual(['markdown']);
    expect(complete('--no-color', 'validate', '--env', '')).toEqual(['production', 'staging']);
    expect(complete('test', '--agent', '')).toEqual(['front-desk', 'booking']);
    expect(complete('plan', '--target', 'agent.')).toEqual(['agent.front-desk', 'agent.booking']);
    expect(complete('plan', '--target', 'p')).toEqual(['phone.+15551230001']);
    expect(complete('get', '')).toEqual(['phones', 'agents', 'campaigns', 'knowledge']);
    expect(complete('get', 'campaigns', 'r')).toEqual(['recall-reminders']);
    expect(complete('get', 'agents', 'b')).toEqual(['booking']);
    // What `get` lists decides what its NAME completes: agent names, or phone numbers.
    expect(complete('get', 'agents', '')).toEqual(['front-desk', 'booking']);
    expect(complete('get', 'phones', '')).toEqual(['+15551230001']);
    expect(complete('get', 'frobs', '')).toEqual([]);
    // `export --agent` takes an id: the manifests' ids (the default environment's), never their names.
    expect(complete('export', '--agent', '')).toEqual(['-OKdqbqetEcM4ak369ym', '-OKdqbqetEcM4ak369yn']);
    expect(complete('export', '--agent', '-OKdqbqetEcM4ak369yn', '--agent', '-OKdqbqetEcM4ak369y')).toEqual(['-OKdqbqetEcM4ak369ym', '-OKdqbqetEcM4ak369yn']);
    expect(complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(complete('plan', 'show', 'pl')).toEqual(['plan.json']);
    expect(complete('apply', '--auto-approve', 'vox').sort()).toEqual(['voxform.bash', 'voxform.yaml']);
    // A switch takes no value: the next word is completed as a word of its own.
    expect(complete('apply', '--auto-approve', '--tar')).toEqual(['--target']);
  });

  it('completes traffic profiles and templates (built-in names and files), --take-over addresses, --status values, and an --option=value word', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'traffic.yaml': 'extends: steady\n', 'agent-templates/concierge/template.yaml': 'description: x\n' });
    const generated = await runCliInProcess(['completion', 'bash'], { cwd: dir });
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, generated.stdout);
    const complete = (...words: string[]) => bashComplete(scriptFile, ['voxform', ...words], dir);

    expect(complete('emulator', 'traffic', '--profile', '')).toEqual(expect.arrayContaining(['steady', 'light', 'volatile', 'traffic.yaml']));
    expect(complete('emulator', 'traffic', '--profile', 'vol')).toEqual(['volatile']);
    expect(complete('emulator', 'traffic', '--profile', 'tr')).toEqual(['traffic.yaml']);
    expect(complete('emulator', '--traffic', 'l')).toEqual(['light']);
    expect(complete('init', '--template', '')).toEqual(expect.arrayContaining([...templateNames(), 'agent-templates']));
    expect(complete('init', '--template', 'rec')).toEqual(['receptionist']);
    expect(complete('init', '--template', 'agent-templates/')).toEqual(['agent-templates/concierge']);
    expect(complete('plan', '--take-over', 'p')).toEqual(['phone.+15551230001']);
    expect(complete('apply', '--take-over', 'campaign.')).toEqual(['campaign.recall-reminders']);
    expect(complete('logs', '--status', 'user')).toEqual(['user-ended']);
    expect(complete('logs', '--status', 'c')).toEqual(['chat_completion']);
    // bash splits `--format=j` at the `=`: what it offers replaces the part after it.
    expect(complete('plan', '--format', '=')).toEqual(['text', 'json', 'markdown']);
    expect(complete('plan', '--format', '=', 'j')).toEqual(['json']);
    expect(complete('plan', '--target', '=', 'agent.b')).toEqual(['agent.booking']);
    // An option given as one `--format=json` is not taken for a positional or an option awaiting a value.
    expect(complete('plan', '--format', '=', 'json', '--target', 'agent.b')).toEqual(['agent.booking']);
    expect(complete('plan', '--format', '=', 'json', '')).toEqual(['show']);
    // Where COMP_WORDBREAKS has no `=`, the word is whole and so is what replaces it.
    expect(complete('plan', '--format=j')).toEqual(['--format=json']);
  });

  it('offers folders only after --template, and .yaml, .yml and .json files with folders after --profile: no other file, nothing hidden unless typed', async () => {
    const dir = await tempDir({ ...PATHS_FOLDER, 'voxform.yaml': MANIFEST });
    const generated = await runCliInProcess(['completion', 'bash'], { cwd: dir });
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, generated.stdout);
    const complete = (...words: string[]) => bashComplete(scriptFile, ['voxform', ...words], dir).sort();

    expect(complete('init', '--template', '')).toEqual([...templateNames(), 'agent-templates', 'profiles'].sort());
    expect(complete('init', '--template', '.g')).toEqual(['.git']);
    expect(complete('emulator', 'traffic', '--profile', '')).toEqual(['agent-templates', 'light', 'profiles', 'steady', 'surge.yml', 'traffic.yaml', 'volatile', 'voxform.yaml']);
    expect(complete('emulator', 'traffic', '--profile', 'profiles/')).toEqual(['profiles/night.json']);
    expect(complete('emulator', '--traffic', 's')).toEqual(['steady', 'surge.yml']);
    // Any file still completes where a value is a file.
    expect(complete('plan', 'show', 'e')).toEqual(['emu.out']);
  });

  it('offers every subcommand and option the parser has, nothing it lacks', async () => {
    const dir = await tempDir({});
    const generated = await runCliInProcess(['completion', 'bash'], { cwd: dir });
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, generated.stdout);
    const program = buildProgram(async () => undefined);
    for (const command of program.commands) {
      const options = bashComplete(scriptFile, ['voxform', command.name(), '--'], dir);
      expect(options.sort(), command.name()).toEqual([...command.options.flatMap((o) => (o.long ? [o.long] : [])), '--help'].sort());
      expect(bashComplete(scriptFile, ['voxform', command.name(), ''], dir).slice(0, command.commands.length), command.name()).toEqual(command.commands.map((sub) => sub.name()));
    }
  });

  it('manifests that give ids only in their environments: every environment\'s names, and no warning', async () => {
    const manifest = `version: 1
agents:
  front-desk: { name: Front desk }
phones:
  "+15551230001": { agent: front-desk }
environments:
  staging: { agents: { front-desk: { id: -OKstagingFrontDesk01 } } }
  production: { agents: { front-desk: { id: -OKdqbqetEcM4ak369ym } } }
`;
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const generated = await runCliInProcess(['completion', 'bash'], { cwd: dir });
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stderr).toBe('');
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, generated.stdout);
    const complete = (...words: string[]) => bashComplete(scriptFile, ['voxform', ...words], dir);
    expect(complete('plan', '--env', '')).toEqual(['staging', 'production']);
    expect(complete('logs', '--env', 'staging', '--agent', '')).toEqual(['front-desk']);
    expect(complete('plan', '--target', '')).toEqual(['agent.front-desk', 'phone.+15551230001']);
    expect(complete('export', '--agent', '')).toEqual(['-OKstagingFrontDesk01', '-OKdqbqetEcM4ak369ym']);
  });

  it('a variable the manifests read that is not set (a secret kept out of the shell) does not keep their names out', async () => {
    const manifest = 'version: 1\nagents:\n  desk:\n    id: -OKdqbqetEcM4ak369ym\n    config:\n      session_data_webhook: { url: "https://hooks.example.com/end", headers: { authorization: "Bearer ${env:DESK_HOOK_TOKEN_NOT_SET}" } }\n';
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const generated = await runCliInProcess(['completion', 'bash'], { cwd: dir });
    expect(generated.stderr).toBe('');
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, generated.stdout);
    expect(bashComplete(scriptFile, ['voxform', 'get', 'agents', ''], dir)).toEqual(['desk']);
    expect(bashComplete(scriptFile, ['voxform', 'export', '--agent', ''], dir)).toEqual(['-OKdqbqetEcM4ak369ym']);
  });

  it('a manifest with errors gives a script without names, a warning, and exit 0', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  "$(touch pwned)": { id: x }\n' });
    const generated = await runCliInProcess(['completion', 'bash'], { cwd: dir });
    expect(generated.code).toBe(0);
    expect(generated.stderr).toMatch(/^warning: the manifests have \d+ errors? \(`voxform validate` lists them\): the script completes no agent or environment names\.\n$/);
    expect(generated.stdout).not.toContain('pwned');
  });

  it('a -f path that does not exist is an error, as for every command; no manifest in the folder is not', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  desk: { id: x }\n' });
    const mistyped = await runCliInProcess(['completion', 'bash', '-f', 'voxfrom.yaml'], { cwd: dir });
    expect(mistyped.code).toBe(1);
    expect(mistyped.stderr).toContain('error[manifest_not_found]: voxfrom.yaml does not exist; did you mean voxform.yaml?');
    expect(mistyped.stdout).toBe('');
    const empty = await runCliInProcess(['completion', 'bash'], { cwd: await tempDir({}) });
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stderr).toBe('');
  });
});

/** A folder with what --template and --profile must tell apart: folders, profile files, other files, hidden entries. */
const PATHS_FOLDER = {
  'traffic.yaml': 'extends: steady\n',
  'surge.yml': 'extends: volatile\n',
  'profiles/night.json': '{"extends": "light"}',
  'profiles/readme.txt': 'x',
  'agent-templates/concierge/template.yaml': 'description: x\n',
  'emu.out': 'x',
  'notes.md': 'x',
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.hidden.yaml': 'extends: steady\n',
};

/** Names a pull request could try: command substitution, quotes, globs, options, escapes, a line break. */
const HOSTILE = ['$(touch pwned-1)', '`touch pwned-2`', "'; touch pwned-3; '", '"; touch pwned-4; "', '(touch pwned-5)', '${HOME}', '*', 'a b', 'back\\slash', '-n', '%s%n', "it's"];

function hostileTree(): CompletionCommand[] {
  return [
    { path: '', subcommands: ['get'], options: [{ flags: ['--help'], value: undefined }], positionals: [], variadic: false },
    {
      path: 'get',
      subcommands: [],
      options: [{ flags: ['--agent'], value: { words: [...HOSTILE, 'line\nbreak'] } }],
      positionals: [{ words: ['agents'] }, 'free'],
      afterWord: [{ index: 1, word: 'agents', completion: { words: [...HOSTILE, 'line\nbreak'] } }],
      variadic: false,
    },
  ];
}

describe('manifest names in every script are data', () => {
  it('bash offers each hostile name quoted, so the shell reads the literal word on Enter, runs none, and leaves out a name with a line break', async () => {
    const dir = await tempDir({});
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, completionScript('bash', hostileTree()));
    // What bash inserts is quoted: on Enter, the shell reads each name as that one word.
    expect(bashInserted(scriptFile, ['voxform', 'get', '--agent', ''], dir)).toEqual(HOSTILE.map((name) => [name]));
    expect(bashInserted(scriptFile, ['voxform', 'get', 'agents', ''], dir)).toEqual(HOSTILE.map((name) => [name]));
    expect(bashInserted(scriptFile, ['voxform', 'get', 'agents', '$('], dir)).toEqual([['$(touch pwned-1)']]);
    // A prefix bash inserted quoted (the part two names share) completes again.
    expect(bashInserted(scriptFile, ['voxform', 'get', 'agents', '\\$\\(t'], dir)).toEqual([['$(touch pwned-1)']]);
    // A typed word that decides what follows is compared as text, never run.
    expect(bashComplete(scriptFile, ['voxform', 'get', '$(touch pwned-6)', ''], dir)).toEqual([]);
    expect(bashComplete(scriptFile, ['voxform', 'get', "agents'; touch pwned-7; '", ''], dir)).toEqual([]);
    expect(await readdir(dir)).toEqual(['voxform.bash']);
  });

  it.each<Shell>(['bash', 'zsh', 'fish'])('%s: the script passes the shell\'s syntax check and offers the hostile names literally, running none', async (shell) => {
    const dir = await tempDir({});
    const scriptFile = path.join(dir, `voxform.${shell}`);
    const script = completionScript(shell, hostileTree());
    await writeFile(scriptFile, script);
    const binary = shellPath(shell);
    // Where the shell is not installed, the script is checked for what registers it; bash always is.
    if (!binary) {
      expect(script).toContain(shell === 'zsh' ? 'compdef _voxform voxform' : "complete -c voxform -f -a '(__voxform_complete)'");
      return;
    }
    const syntax = spawnSync(binary, ['-n', scriptFile], { encoding: 'utf8' });
    expect({ code: syntax.status, stderr: syntax.stderr }).toEqual({ code: 0, stderr: '' });
    const offered =
      shell === 'bash'
        ? bashInserted(scriptFile, ['voxform', 'get', 'agents', ''], dir).flat()
        : shell === 'zsh'
          ? zshCandidates(binary, scriptFile, ['get', 'agents', ''], dir)
          : fishComplete(binary, scriptFile, 'voxform get agents ', dir);
    expect(offered.sort()).toEqual([...HOSTILE].sort());
    expect(await readdir(dir)).toEqual([`voxform.${shell}`]);
  });

  it('bash: telling a command word reads its whole list, so the list\'s writer is never cut off ("write error: Broken pipe" on the terminal)', async () => {
    const dir = await tempDir({});
    const scriptFile = path.join(dir, 'voxform.bash');
    await writeFile(scriptFile, completionScript('bash', hostileTree()));
    // A list still being written when the word is found: its writer's next line meets a closed pipe unless it is read.
    // SIGPIPE ignored, as in a terminal a program such as Node or Python started: the writer then says so on the terminal.
    const driver = 'trap "" PIPE; source "$1"; __voxform_commands() { printf "%s\\n" get; sleep 0.2; printf "%s\\n" later; }; __voxform_is_command "" get; echo "found $?"';
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', driver, 'bash', scriptFile], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect({ stdout: result.stdout, stderr: result.stderr }).toEqual({ stdout: 'found 0\n', stderr: '' });
  });

  it('refuses a command or option word that is not plain (they are written into patterns unquoted)', () => {
    const tree: CompletionCommand[] = [{ path: '', subcommands: ['$(x)'], options: [], positionals: [], variadic: false }];
    expect(() => completionScript('bash', tree)).toThrow(/not a plain command or option word/);
  });

  it.each(['zsh', 'fish'] as const)('%s offers folders only after --template, and .yaml, .yml and .json files with folders after --profile', async (shell) => {
    const dir = await tempDir({ ...PATHS_FOLDER, 'voxform.yaml': MANIFEST });
    const generated = await runCliInProcess(['completion', shell], { cwd: dir });
    expect(generated.code, generated.stderr).toBe(0);
    const binary = shellPath(shell);
    // Where the shell is not installed, the script is checked for the paths it asks the shell for.
    if (!binary) {
      expect(generated.stdout).toContain(shell === 'zsh' ? "__VOXFORM_FOLDERS__) _files -/ ;;" : "string match -r -e -- '/\\t$'");
      expect(generated.stdout).toContain(shell === 'zsh' ? "__VOXFORM_DATA_FILES__) _files -g '*.(yaml|yml|json)' ;;" : "string match -r -e -- '(?:/|\\.yaml|\\.yml|\\.json)\\t$'");
      return;
    }
    const file = path.join(dir, `voxform.${shell}`);
    await writeFile(file, generated.stdout);
    if (shell === 'zsh') {
      // zsh's own _files does the listing: its driver is asked which form it calls, compadd and _files stubbed.
      const driver = 'compdef() { :; }; compadd() { print -r -- compadd "$@"; }; _files() { print -r -- _files "$@"; }; source "$1"; shift; words=(voxform "$@"); CURRENT=$#words; _voxform';
      const zshDriver = (...words: string[]) => spawnSync(binary, ['-f', '-c', driver, 'zsh', file, ...words], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } }).stdout;
      expect(zshDriver('init', '--template', 'rec')).toBe('compadd -- receptionist\n_files -/\n');
      expect(zshDriver('emulator', 'traffic', '--profile', 'l')).toBe("compadd -- light\n_files -g *.(yaml|yml|json)\n");
      expect(zshDriver('plan', 'show', '')).toBe('_files\n');
      return;
    }
    // fish lists a folder as `name/`.
    const complete = (line: string) => fishComplete(binary, file, line, dir).sort();
    expect(complete('voxform init --template ')).toEqual([...templateNames(), 'agent-templates/', 'profiles/'].sort());
    expect(complete('voxform emulator traffic --profile ')).toEqual(['agent-templates/', 'light', 'profiles/', 'steady', 'surge.yml', 'traffic.yaml', 'volatile', 'voxform.yaml']);
    expect(complete('voxform emulator traffic --profile profiles/')).toEqual(['profiles/night.json']);
    expect(complete('voxform plan show e')).toEqual(['emu.out']);
  });

  it('the CLI\'s scripts for zsh and fish pass their syntax check where the shells are installed', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    for (const shell of ['zsh', 'fish'] as const) {
      const generated = await runCliInProcess(['completion', shell], { cwd: dir });
      expect(generated.code, generated.stderr).toBe(0);
      const binary = shellPath(shell);
      if (!binary) continue;
      const file = path.join(dir, `voxform.${shell}`);
      await writeFile(file, generated.stdout);
      expect(spawnSync(binary, ['-n', file], { encoding: 'utf8' }).status, shell).toBe(0);
      const offered = shell === 'zsh' ? zshCandidates(binary, file, ['--no-color', 'plan', '--env', ''], dir) : fishComplete(binary, file, 'voxform --no-color plan --env ', dir);
      expect(offered.sort(), shell).toEqual(['production', 'staging']);
      // fish sorts what it offers.
      const candidates = (...words: string[]) => (shell === 'zsh' ? zshCandidates(binary, file, words, dir) : fishComplete(binary, file, `voxform ${words.join(' ')}`, dir)).sort();
      expect(candidates('get', 'phones', ''), shell).toEqual(['+15551230001']);
      expect(candidates('get', 'agents', ''), shell).toEqual(['booking', 'front-desk']);
      expect(candidates('export', '--agent', ''), shell).toEqual(['-OKdqbqetEcM4ak369ym', '-OKdqbqetEcM4ak369yn']);
    }
  });
});
