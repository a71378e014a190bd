/**
 * Every error says what to do on a line of its own (`  hint: …`, docs/errors.md). Each error voxform
 * builds states its hint (the type of VoxformError's and ApiError's options requires it); these
 * are the errors found before a command runs, and the argument parser's usage mistakes, which come
 * the same way, in our words, in text and in JSON.
 */
import { describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const MANIFEST = 'version: 1\nagents:\n  desk:\n    id: "-OKdqbqetEcM4ak369ym"\n';

describe('errors found before a command runs have a hint too', () => {

  it.each([
    [['plan', '--local', '--timeout', 'soon'], {}, 'error[invalid_option]: The value given to --timeout is not a time from 1 ms to 24 h.\n  hint: Write it as 30s, 2m or 500ms (a bare number is seconds).\n'],
    // A malformed value is a command-line mistake, said before the key is looked for, by every command that connects.
    ...['plan', 'apply', 'status', 'test', 'history', 'get agents'].map((command): [string[], Record<string, string>, string] => [
      [...command.split(' '), '--timeout', 'abc'],
      {},
      'error[invalid_option]: The value given to --timeout is not a time from 1 ms to 24 h.\n  hint: Write it as 30s, 2m or 500ms (a bare number is seconds).\n',
    ]),
    [['plan', '--local'], { VOXFORM_TIMEOUT: '-3' }, 'error[invalid_option]: The value of VOXFORM_TIMEOUT is not a time from 1 ms to 24 h.\n  hint: Write it as 30s, 2m or 500ms (a bare number is seconds).\n'],
    [['plan', '--local', '--parallelism', '0'], {}, 'error[invalid_option]: The value given to --parallelism is not a whole number from 1 to 256.\n  hint: For example: --parallelism 4.\n'],
    // Decimal digits only, up to the documented bound: a number parser would read these as 16 and 1e20.
    [['plan', '--local', '--parallelism', '0x10'], {}, 'error[invalid_option]: The value given to --parallelism is not a whole number from 1 to 256.\n  hint: For example: --parallelism 4.\n'],
    [['plan', '--local', '--parallelism', '99999999999999999999'], {}, 'error[invalid_option]: The value given to --parallelism is not a whole number from 1 to 256.\n  hint: For example: --parallelism 4.\n'],
    [['plan', '--local', '--parallelism', '257'], {}, 'error[invalid_option]: The value given to --parallelism is not a whole number from 1 to 256.\n  hint: For example: --parallelism 4.\n'],
    [['logs', '--local', '--limit', '99999999999999999999'], {}, 'error[invalid_option]: The value given to --limit is not a whole number from 1 to 1,000,000.\n  hint: For example: --limit 4.\n'],
    [['logs', '--local', '--limit', '1e3'], {}, 'error[invalid_option]: The value given to --limit is not a whole number from 1 to 1,000,000.\n  hint: For example: --limit 4.\n'],
    [['test', '--local', '--repeat', '1000001'], {}, 'error[invalid_option]: The value given to --repeat is not a whole number from 1 to 1,000,000.\n  hint: For example: --repeat 4.\n'],
    [['test', '--local', '--max-requests', 'abc'], {}, 'error[invalid_option]: The value given to --max-requests is not a whole number from 1 to 1,000,000.\n  hint: For example: --max-requests 4000 (the default).\n'],
    [['test', '--local', '--max-conversations', '0'], {}, 'error[invalid_option]: The value given to --max-conversations is not a whole number from 1 to 1,000,000.\n  hint: For example: --max-conversations 1000 (the default).\n'],
    // Every whole-number flag is read one way (whole-number.ts): --lock-timeout too, of every command that takes it.
    [['apply', '--local', '--lock-timeout', '0x10'], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [['apply', '--local', '--lock-timeout', '1e3'], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [['apply', '--local', '--lock-timeout', ' 5 '], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [['apply', '--local', '--lock-timeout', '1.5'], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [['apply', '--local', '--lock-timeout', '86401'], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [['drift', '--local', '--lock-timeout', '0x10'], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [['rollback', 'previous', '--local', '--lock-timeout', '-1'], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [['promote', '--to', 'prod', '--local', '--lock-timeout', '1e3'], {}, 'error[invalid_option]: The value given to --lock-timeout is not a whole number from 0 to 86,400.\n  hint: For example: --lock-timeout 60 waits up to a minute for another run to release the lock.\n'],
    [
      ['plan'],
      {},
      'error[api_key_missing]: No API key: VOXFORM_API_KEY is not set.\n  hint: Set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.\n',
    ],
    // Set but empty, as a GitHub job gets a secret it may not read (a pull request from a fork): not "not set".
    [
      ['plan'],
      { VOXFORM_API_KEY: ' ' },
      'error[api_key_missing]: No API key: VOXFORM_API_KEY is set but empty (a CI secret the job cannot read arrives empty: a pull request from a fork gets none, nor does a job whose secret is not defined).\n  hint: Set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.\n',
    ],
  ])('%j', async (args, env, stderr) => {
    const result = await runCliInProcess(args, { cwd: await tempDir({ 'voxform.yaml': MANIFEST }), env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(stderr);
  });
});

describe("the argument parser's mistakes read as every other error", () => {
  it.each([
    [['--bogus'], 'invalid_argument', '`voxform` has no option --bogus.', 'Run `voxform --help` for its commands and options.'],
    [['plan', '--bas'], 'invalid_argument', '`voxform plan` has no option --bas; did you mean --base?', 'Run `voxform plan --help` for its commands and options.'],
    // `--name=value` of an option that takes no value, or of none: the option is named, not the value.
    [['plan', '--local=yes'], 'invalid_argument', '`voxform plan` has no option --local that takes a value.', 'Run `voxform plan --help` for its commands and options.'],
    [['plan', '--format', 'yaml'], 'invalid_option', 'The value given to --format is not one it takes: choose text, json or markdown.', 'Run `voxform plan --help` for its commands and options.'],
    [['plan', '--region', 'mars'], 'invalid_option', 'The value given to --region is not one it takes: choose us or eu.', 'Run `voxform plan --help` for its commands and options.'],
    [['plan', '--format', 'jsno'], 'invalid_option', 'The value given to --format is not one it takes: choose text, json or markdown.', 'Did you mean json? Run `voxform plan --help` for its commands and options.'],
    [['plan', '--region', 'EU'], 'invalid_option', 'The value given to --region is not one it takes: choose us or eu.', 'Did you mean eu? Run `voxform plan --help` for its commands and options.'],
    [['plna'], 'invalid_argument', '`voxform` has no command of that name; did you mean plan?', 'Its commands: validate, policy, plan, apply, rollback, promote, diff, history, drift, export, init, templates, completion, fmt, emulator, logs, report, keys, chat, schema, status, test, get, webhook, state or ci (`voxform --help` describes them).'],
    [['state', 'frob'], 'invalid_argument', '`voxform state` has no command of that name.', 'Its commands: list, show, rm, unlock, migrate or upgrade (`voxform state --help` describes them).'],
    // Looking for a way to delete: how removing works, not a near miss (`history` for `destroy`).
    ...['destroy', 'delete', 'remove'].map((word): [string[], string, string, string] => [
      [word],
      'invalid_argument',
      `\`voxform\` has no command \`${word}\`: voxform deletes nothing on the service, which has no delete for agents, numbers, campaigns, knowledge files or credentials.`,
      'To stop managing a resource, remove it from the manifests: the next plan lists it as not managed any more, and the service keeps it as it is (docs/plan.md, "Removing a resource from the manifests").',
    ]),
    [['help', 'plna'], 'invalid_argument', '`voxform` has no command of that name; did you mean plan?', 'Its commands: validate, policy, plan, apply, rollback, promote, diff, history, drift, export, init, templates, completion, fmt, emulator, logs, report, keys, chat, schema, status, test, get, webhook, state or ci (`voxform --help` describes them).'],
    [['state', 'help', 'frob'], 'invalid_argument', '`voxform state` has no command of that name.', 'Its commands: list, show, rm, unlock, migrate or upgrade (`voxform state --help` describes them).'],
    // `help` refuses what the same words without it refuse, never showing a help instead.
    [['help', 'state', 'frob'], 'invalid_argument', '`voxform state` has no command of that name.', 'Its commands: list, show, rm, unlock, migrate or upgrade (`voxform state --help` describes them).'],
    [['--no-color', 'help', 'state', 'lst'], 'invalid_argument', '`voxform state` has no command of that name; did you mean list?', 'Its commands: list, show, rm, unlock, migrate or upgrade (`voxform state --help` describes them).'],
    [['help', 'plan', 'frob'], 'invalid_argument', '`voxform plan` has no command of that name.', 'Its commands: show (`voxform plan --help` describes them).'],
    [['help', '--bogus'], 'invalid_argument', '`voxform` has no option --bogus.', 'Run `voxform --help` for its commands and options.'],
    [['help', 'plan', '--bogus'], 'invalid_argument', '`voxform` has no option --bogus.', 'Run `voxform --help` for its commands and options.'],
    // A group without its command is a missing argument too; the hint lists the commands it takes.
    [['state'], 'invalid_argument', '`voxform state` needs a command.', 'Add one of its commands: list, show, rm, unlock, migrate or upgrade (`voxform state --help` describes them).'],
    [['keys'], 'invalid_argument', '`voxform keys` needs a command.', 'Add its command: create (`voxform keys --help` describes it).'],
    [['webhook', '--no-color'], 'invalid_argument', '`voxform webhook` needs a command.', 'Add one of its commands: send or serve (`voxform webhook --help` describes them).'],
    [['rollback'], 'invalid_argument', '`voxform rollback` needs its <ref> argument.', 'Run `voxform rollback --help` for its arguments and options.'],
    [['completion', 'tcsh'], 'invalid_argument', 'The <shell> given to `voxform completion` is not one it knows: choose bash, zsh or fish.', 'Run `voxform completion --help` for its arguments and options.'],
    // A near miss of a choice is named: the singular of a kind, a typo, another case.
    [['get', 'agent'], 'invalid_argument', 'The <kind> given to `voxform get` is not one it knows: choose phones, agents, campaigns or knowledge.', 'Did you mean agents? Run `voxform get --help` for its arguments and options.'],
    [['get', 'phone'], 'invalid_argument', 'The <kind> given to `voxform get` is not one it knows: choose phones, agents, campaigns or knowledge.', 'Did you mean phones? Run `voxform get --help` for its arguments and options.'],
    [['completion', 'ZSH'], 'invalid_argument', 'The <shell> given to `voxform completion` is not one it knows: choose bash, zsh or fish.', 'Did you mean zsh? Run `voxform completion --help` for its arguments and options.'],
    [['plan', 'show', 'a', 'b'], 'invalid_argument', '`voxform plan show` takes one argument, not 2.', 'Run `voxform plan show --help` for its arguments and options.'],
    [['keys', 'create'], 'invalid_argument', '`voxform keys create` needs --type <type>.', 'Run `voxform keys create --help` for its arguments and options.'],
    [['validate', '--format'], 'invalid_option', '--format needs a value (<format>).', 'Run `voxform validate --help` for its arguments and options.'],
    // An option `plan` shares with `show` is read by `plan` first: the hint is still the help of the command typed.
    [['plan', 'show', '--format', 'xml', 'p.json'], 'invalid_option', 'The value given to --format is not one it takes: choose text, json or markdown.', 'Run `voxform plan show --help` for its arguments and options.'],
    [['plan', '--env', 'staging', 'show', 'p.json', '--format'], 'invalid_option', '--format needs a value (<format>).', 'Run `voxform plan show --help` for its arguments and options.'],
    [['test', 'capture', 'ID', '--out'], 'invalid_option', '--out needs a value (<file>).', 'Run `voxform test capture --help` for its arguments and options.'],
    // An option's value that is also a command's name is not taken for the command.
    [['plan', '--env', 'show', '--format', 'xml'], 'invalid_option', 'The value given to --format is not one it takes: choose text, json or markdown.', 'Run `voxform plan --help` for its commands and options.'],
    [['plan', 'show', 'p.json', '-f', 'x.yaml'], 'invalid_argument', '`voxform plan show` does not take --file.', 'Run `voxform plan show --help` for its arguments and options.'],
    [['get', 'agents', '-OKspareAgent0000001', '--local'], 'invalid_argument', '`voxform get` has no option -O.', 'If -OKspareAgent0000001 is an argument (an id starting with `-`), put it after `--`, which ends the options: `voxform get agents --local -- -OKspareAgent0000001`.'],
    // The options that choose the project and service are kept, also those after the id, which the parser had not reached.
    [['get', '-f', 'a b.yaml', 'agents', '-OKspareAgent0000001', '--env', 'staging', '--state', 'postgres://voxform:pw@db/voxform', '--region', 'eu'], 'invalid_argument', '`voxform get` has no option -O.', "If -OKspareAgent0000001 is an argument (an id starting with `-`), put it after `--`, which ends the options: `voxform get agents -f 'a b.yaml' --env staging --region eu --state postgres://voxform:PASSWORD@db/voxform -- -OKspareAgent0000001`."],
    [['rollback', '-OKdqbq'], 'invalid_argument', '`voxform rollback` has no option -O.', 'If -OKdqbq is an argument (an id starting with `-`), put it after `--`, which ends the options: `voxform rollback -- -OKdqbq`.'],
    // A short option is named without what runs on from it, which may be a secret typed in the wrong place.
    [['validate', '-OKdqbq'], 'invalid_argument', '`voxform validate` has no option -O.', 'Run `voxform validate --help` for its arguments and options.'],
    [['plan', '-xSECRET'], 'invalid_argument', '`voxform plan` has no option -x.', 'Run `voxform plan --help` for its commands and options.'],
    [['help', '-xSECRET'], 'invalid_argument', '`voxform` has no option -x.', 'Run `voxform --help` for its commands and options.'],
    // Options after `--` are arguments: the error says so, with the options moved before it.
    [['get', 'agents', '--', 'ID', '--format', 'json'], 'invalid_argument', '`voxform get` takes 2 arguments, not 4. `--format` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform get agents ID --format json`.'],
    [['get', 'agents', '--', '-OKdqbq', '--format=json', '--local'], 'invalid_argument', '`voxform get` takes 2 arguments, not 4. `--format` and `--local` come after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform get agents --format json --local -- -OKdqbq`.'],
    [['plan', 'show', '--', 'p.json', '--format', 'markdown'], 'invalid_argument', '`voxform plan show` takes one argument, not 3. `--format` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform plan show p.json --format markdown`.'],
    [['completion', '--', '--help'], 'invalid_argument', 'The <shell> given to `voxform completion` is not one it knows: choose bash, zsh or fish. `--help` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform completion --help`.'],
    // A value that is not one of the option's choices is not repeated (a receiver's URL holds its token).
    [['drift', '--', '--notify', 'https://hooks.example.com/T0/B0/token'], 'invalid_argument', '`voxform drift` takes no argument, not 2. `--notify` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform drift --notify <url>`.'],
    // diff's --env is given twice: each is kept.
    [['diff', '--env', 'staging', '--env', 'production', '--', '--format', 'json'], 'invalid_argument', '`voxform diff` takes no argument, not 2. `--format` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform diff --env NAME --env NAME --format json`.'],
    // Before the manifest rule: `-f` after `--` explains the .yaml among the arguments.
    [['get', 'agents', '--', 'front-desk', '-f', 'agents.yaml'], 'invalid_argument', '`voxform get` takes 2 arguments, not 4. `-f` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform get agents front-desk -f agents.yaml`.'],
    [['apply', '--', 'saved.json', '-f', 'agents.yaml'], 'invalid_argument', '`voxform apply` takes one argument, not 3. `-f` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform apply saved.json -f agents.yaml`.'],
    [['rollback', '--', 'previous', '-f', 'agents.yaml'], 'invalid_argument', '`voxform rollback` takes one argument, not 3. `-f` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform rollback previous -f agents.yaml`.'],
    // The options typed before `--` stay in the command line; a state URL's password does not.
    [['get', 'agents', '--local', '--', 'ID', '--format', 'json'], 'invalid_argument', '`voxform get` takes 2 arguments, not 4. `--format` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform get agents ID --local --format json`.'],
    [['get', 'agents', '--', 'ID', '--state', 'postgres://voxform:pw@db/voxform'], 'invalid_argument', '`voxform get` takes 2 arguments, not 4. `--state` comes after `--`, which ends the options: everything after it is an argument.', 'Put options before `--`: `voxform get agents ID --state postgres://voxform:PASSWORD@db/voxform`.'],
  ])('%j', async (args, code, message, hint) => {
    const result = await runCliInProcess(args, { cwd: await tempDir({}) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error[${code}]: ${message}\n  hint: ${hint}\n`);
    expect(result.stdout).toBe('');
  });

  it('a manifest given as an argument, by any command that takes -f, is said to come with -f, with the command line that works', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST, 'prod.yml': MANIFEST, 'prod-agents': MANIFEST, 'notes.txt': 'not a manifest\n' });
    const hint = (command: string) => `  hint: Run \`${command}\`.\n`;
    const cases: Array<[string[], string]> = [
      [['validate', 'voxform.yaml'], `error[invalid_argument]: \`voxform validate\` takes no argument, and voxform.yaml is a manifest: manifests are given with -f.\n${hint('voxform validate -f voxform.yaml')}`],
      [['plan', 'voxform.yaml', '--local'], `error[invalid_argument]: \`voxform plan\` takes no argument, and voxform.yaml is a manifest: manifests are given with -f.\n${hint('voxform plan -f voxform.yaml --local')}`],
      [['drift', 'prod.yml', '--env', 'prod'], `error[invalid_argument]: \`voxform drift\` takes no argument, and prod.yml is a manifest: manifests are given with -f.\n${hint('voxform drift -f prod.yml --env prod')}`],
      [['diff', 'prod.yml', '--env', 'staging', '--env', 'prod'], `error[invalid_argument]: \`voxform diff\` takes no argument, and prod.yml is a manifest: manifests are given with -f.\n${hint('voxform diff -f prod.yml --env staging --env prod')}`],
      // The name decides: a manifest under another name gets the parser's own words.
      [['validate', 'prod-agents'], 'error[invalid_argument]: `voxform validate` takes no argument, not 1.\n  hint: Run `voxform validate --help` for its arguments and options.\n'],
      [['apply', 'voxform.yaml', '--local'], `error[invalid_argument]: \`voxform apply\` takes a saved plan (\`voxform plan --out FILE\`) as its argument, and voxform.yaml is a manifest: manifests are given with -f.\n${hint('voxform apply -f voxform.yaml --local')}`],
      [['validate', 'notes.txt'], 'error[invalid_argument]: `voxform validate` takes no argument, not 1.\n  hint: Run `voxform validate --help` for its arguments and options.\n'],
    ];
    for (const [args, stderr] of cases) {
      const result = await runCliInProcess(args, { cwd });
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 1, stderr });
    }
  });

  it('with --format json before `--`, the hint for options after it keeps --format json', async () => {
    const result = await runCliInProcess(['get', 'agents', '--format', 'json', '--', 'front-desk', '-f', 'agents.yaml'], { cwd: await tempDir({}) });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toEqual({
      code: 'invalid_argument',
      message: '`voxform get` takes 2 arguments, not 4. `-f` comes after `--`, which ends the options: everything after it is an argument.',
      hint: 'Put options before `--`: `voxform get agents front-desk --format json -f agents.yaml`.',
    });
  });

  it('a saved plan named .yaml is still a plan to apply, not a manifest', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    expect((await runCliInProcess(['plan', '--local', '--out', 'plan.yaml'], { cwd })).code).toBe(0);
    const applied = await runCliInProcess(['apply', 'plan.yaml', '--local', '--auto-approve'], { cwd });
    expect(applied.stderr).not.toContain('manifest');
    expect(applied.code).toBe(0);
  });

  it('`voxform` alone is a request for its help, as `voxform --help`', async () => {
    const bare = await runCliInProcess([], { cwd: await tempDir({}) });
    expect(bare).toEqual({ ...(await runCliInProcess(['--help'], { cwd: await tempDir({}) })), code: 0 });
    expect(bare.stdout).toContain('Usage: voxform [options] [command]');
  });

  it('help for a command that exists is still help', async () => {
    const result = await runCliInProcess(['help', 'plan'], { cwd: await tempDir({}) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: voxform plan');
  });

  it('with --format json, as the JSON envelope on stdout', async () => {
    const result = await runCliInProcess(['plan', '--format', 'json', '--bogus'], { cwd: await tempDir({}) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'invalid_argument', message: '`voxform plan` has no option --bogus.', hint: 'Run `voxform plan --help` for its commands and options.' },
    });
    const early = await runCliInProcess(['plan', '--parallelism=0', '--format=json'], { cwd: await tempDir({}) });
    expect(JSON.parse(early.stdout)).toMatchObject({ error: { code: 'invalid_option', hint: 'For example: --parallelism 4.' } });
  });
});

describe('an agent the embedded emulator does not have', () => {
  it('says under test --local that the emulator is an account of its own, and how to give it the agents; a seed made that way has them', async () => {
    const dir = await tempDir({
      'voxform.yaml': 'version: 1\nagents:\n  sales:\n    id: ag_sales_1\n    config:\n      first_message: "Hello"\n',
      'tests/sales.test.yaml': 'agent: sales\ntests:\n  - name: greets\n    turns:\n      - user: hi\n        expect: [{ not_contains: never said }]\n',
      'seed.yaml': 'keys:\n  - { type: private, key: abcdefabcdefabcdefabcdefabcdef12 }\nagents:\n  - { id: ag_sales_1, name: Sales, config: { prompt: Hello } }\n',
    });
    const missing = await runCliInProcess(['test', '--agent', 'sales', '--skip-judge', '--local'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error[api_not_found]: voxform.yaml:4:9: agent.sales: the service has no agent with id "ag_sales_1" (GET /agents/ag_sales_1 failed: the service answered 404 Not found).\n');
    expect(missing.stderr).toContain('hint: The embedded emulator (--local) is an account of its own, made from the default seed, and does not have this agent.');
    expect(missing.stderr).toContain('run `voxform emulator --data .voxform/local.json --seed FILE` once and stop it');
    expect(missing.stderr).not.toContain('Check the agent id');
    // The recipe of the hint: the folder's account made again from a seed of the agents and a private key.
    await rm(path.join(dir, '.voxform/local.json'));
    const emulator = await startEmulator({ port: 0, dataFile: path.join(dir, '.voxform/local.json'), seed: path.join(dir, 'seed.yaml') });
    await emulator.close();
    const seeded = await runCliInProcess(['test', '--agent', 'sales', '--skip-judge', '--local'], { cwd: dir });
    expect(seeded.stderr).toBe('');
    expect(seeded.code).toBe(0);
  });

  it('says the same for plan, apply and chat under --local, by one rule: not "create it in the dashboard" alone', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  sales:\n    id: ag_sales_1\n    config:\n      first_message: "Hello"\n' });
    for (const args of [['plan', '--local'], ['apply', '--local', '--auto-approve'], ['chat', '--local', '--agent', 'sales']]) {
      const result = await runCliInProcess(args, { cwd: dir, input: 'hi\n' });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain('hint: The embedded emulator (--local) is an account of its own, made from the default seed, and does not have this agent.');
    }
    // Each names the manifests' agent and the place of its id, as plan does.
    const chat = await runCliInProcess(['chat', '--local', '--agent', 'sales'], { cwd: dir, input: 'hi\n' });
    expect(chat.stderr).toContain('error[api_not_found]: voxform.yaml:4:9: agent.sales: the service has no agent with id "ag_sales_1" (GET /agents/ag_sales_1 failed: the service answered 404 Not found).\n');
    const tested = await runCliInProcess(['test', '--local', '--format', 'json'], { cwd: await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  sales:\n    id: ag_sales_1\n', 'tests/sales.test.yaml': 'agent: sales\ntests:\n  - name: greets\n    turns: [{ user: hi, expect: [{ not_contains: never said }] }]\n' }) });
    expect(JSON.parse(tested.stdout)).toMatchObject({
      error: { code: 'api_not_found', message: 'voxform.yaml:4:9: agent.sales: the service has no agent with id "ag_sales_1" (GET /agents/ag_sales_1 failed: the service answered 404 Not found).', details: { path: '/agents/ag_sales_1' } },
    });
    // Without --local the service's own hint stands.
    const service = await runCliInProcess(['plan', '--base-url', 'http://127.0.0.1:9', '--format', 'json'], { cwd: dir, env: { VOXFORM_API_KEY: 'abcdefabcdefabcdefabcdefabcdef12' } });
    expect(service.stdout).not.toContain('embedded emulator');
  });
});
