/**
 * The command tree: every command with its options and arguments, as commander parses them. It
 * names each command's module by a word and runs nothing itself: whoever builds it (the CLI's
 * entry, main.ts; a command line run inside `voxform ci run`, run-command.ts; `voxform completion`;
 * help and tests) passes the function that runs a command.
 */
import { Argument, Command, Option, type HelpContext, type ParseOptions } from 'commander';
import { VoxformError } from '../errors.js';
import { addCommandHelp } from './help.js';
import { argumentCount, missingCommandError, usageError } from './usage-errors.js';
import { manifestArgumentError, namesManifest } from './manifest-argument.js';
import { findOptionsAfterDashes, shownTarget, shownValue, type GivenOptions } from './options-after-dashes.js';
import { didYouMean } from '../util/did-you-mean.js';
import { wholeNumberOption } from './whole-number.js';
import { MOST } from '../util/option-bounds.js';
import { timeoutOption } from './timeout.js';
import { refuseEmptyValues, refuseOptionsAsValues } from './empty-values.js';
import { countOccurrences, refuseRepeatedValues, takesOneValue } from './repeated-values.js';
import { describeVersion } from '../status/versions.js';
import { shellWord } from '../util/shell-word.js';
import { chosenFlags, nextCommand, type ChosenTarget } from './next-command.js';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** An option given more than once collects its values (`(repeatable)` in its help): `-f`, `--agent`, `--target`. */
const isRepeatable = (option: Option): boolean => option.parseArg === collect;

/** A whole number from 1 to `max` (whole-number.ts); a budget's error gives its default for the example, where 4 would refuse nearly every run. */
function positiveInt(name: string, max: number, budgetDefault?: number) {
  return wholeNumberOption(name, { min: 1, max, ...(budgetDefault === undefined ? {} : { hint: `For example: ${name} ${budgetDefault} (the default).` }) });
}

/** An option only the parent takes (`plan show PLAN -f x.yaml`) would otherwise be ignored without a word. */
function refuseParentOnlyOptions(cmd: Command, parent: Command): void {
  const own = new Set(cmd.options.map((option) => option.attributeName()));
  for (const option of parent.options) {
    if (own.has(option.attributeName()) || parent.getOptionValueSource(option.attributeName()) !== 'cli') continue;
    const name = `${parent.name()} ${cmd.name()}`;
    throw new VoxformError('invalid_argument', `\`voxform ${name}\` does not take ${option.long ?? option.flags}.`, { hint: `Run \`voxform ${name} --help\` for its arguments and options.` });
  }
}

/** Where state is kept: the operator's choice, never a manifest's (docs/state.md). */
const STATE_OPTION = 'the state: a file path or a postgres:// URL (env VOXFORM_STATE; default .voxform/state.json)';

function withConnection(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'the service base URL (default: the region gateway; env VOXFORM_BASE_URL)')
    .addOption(new Option('--region <region>', 'the regional gateway (env VOXFORM_REGION)').choices(['us', 'eu']))
    .option('--local', 'use the embedded emulator (data in .voxform/local.json)')
    .option('--timeout <time>', 'how long the service has to answer a request, e.g. 30s, 2m (default 30s; env VOXFORM_TIMEOUT)', timeoutOption);
}

function withManifest(cmd: Command): Command {
  return cmd
    .option('-f, --file <path>', 'a manifest file or folder (repeatable; default voxform.yaml, else agents.yaml)', collect)
    .option('--env <name>', 'apply the named environment overlay');
}

const LOCK_TIMEOUT = { min: 0, max: MOST.lockTimeoutSeconds, hint: 'For example: --lock-timeout 60 waits up to a minute for another run to release the lock.' };

/** The options of a command that runs an apply (`apply`, `rollback`, `promote`, `drift`): approval, state, lock, parallelism. */
function withApplyRun(cmd: Command): Command {
  return cmd
    .option('--auto-approve', 'apply without asking')
    .option('--state <url|path>', STATE_OPTION)
    .option('--lock-timeout <seconds>', 'wait this long for another apply to release the state lock', wholeNumberOption('--lock-timeout', LOCK_TIMEOUT), 0)
    .option('--allow-missing-state', 'apply though the state holds nothing of the workspace while its history records applies of it (what is on the service counts as never applied)')
    .option('--parallelism <n>', 'changes in flight at once', positiveInt('--parallelism', MOST.parallelism), 8);
}

/** The options nextCommand writes (ChosenTarget's), by their attribute names. */
const CHOSEN_TARGET_KEYS = new Set(['file', 'env', 'local', 'baseUrl', 'region', 'state']);

/** `['voxform', 'state', 'list']`: the words that run `cmd`. */
function commandWords(cmd: Command): string[] {
  const words: string[] = [];
  for (let current: Command | null = cmd; current; current = current.parent) words.unshift(current.name());
  return words;
}

/** Commander's commands, whose usage mistakes come as every other error does: code, sentence, hint (usage-errors.ts). */
class VoxformCommand extends Command {
  /** The folder relative paths given on the command line start from (read on the root command). */
  cwd = process.cwd();

  override createCommand(name?: string): Command {
    return new VoxformCommand(name);
  }

  /**
   * `voxform help frob` is a usage mistake like `voxform frob`, not a request for the general help;
   * so is a group without its command (`voxform state`), as any missing argument is. `voxform`
   * alone is a request for its help, as `voxform --help` (docs/errors.md).
   */
  override help(context?: HelpContext | ((text: string) => string)): never {
    const [word, topic] = this.args;
    if (typeof context === 'object' && context.error && word === undefined) {
      if (this.parent) throw missingCommandError(commandWords(this).join(' '), this.commands.map((cmd) => cmd.name()));
      return super.help();
    }
    if (typeof context === 'object' && context.error && word === 'help' && topic !== undefined && !this.findCommand(topic)) this.refuseCommand(topic);
    return super.help(context as HelpContext);
  }

  /** The command of this group named `word`, by name or alias. */
  private findCommand(word: string): Command | undefined {
    return this.commands.find((cmd) => cmd.name() === word || cmd.aliases().includes(word));
  }

  /** `word` names no command of this group: the parser's unknown-command error, with the closest name. */
  private refuseCommand(word: string): never {
    const suggestion = didYouMean(word, this.commands.map((cmd) => cmd.name()));
    this.error(`unknown command '${word}'${suggestion ? ` (Did you mean ${suggestion}?)` : ''}`, { code: 'commander.unknownCommand' });
  }

  /**
   * `voxform help webhook send` is `voxform webhook send --help`: commander's help command reads one
   * word, so it showed the group's help for a command of the group. What commander's help command
   * dropped without a word, showing a help and exit 0, is refused as the same words without `help`
   * are: a word that names no command of a group that takes no arguments (`voxform help state nope`
   * as `voxform state nope`), and an option it does not read (`voxform help --bogus`). Words
   * after a command that takes arguments are left to it (`voxform help fmt x` is fmt's help).
   */
  override parseAsync(argv?: readonly string[], options?: ParseOptions): Promise<this> {
    return super.parseAsync(argv && options?.from === 'user' ? this.helpOfNested(argv) : argv, options);
  }

  private helpOfNested(argv: readonly string[]): readonly string[] {
    // The root's options, which take no value, may come before `help` (`voxform --no-color help plan`).
    const at = argv.findIndex((word) => !word.startsWith('-'));
    if (argv[at] !== 'help') return argv;
    const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
    const flags = rest.filter((word) => word.startsWith('-') && word !== '--');
    const unread = flags.find((flag) => !this.readsAfterHelp(flag));
    if (unread !== undefined) this.error(`unknown option '${unread}'`, { code: 'commander.unknownOption' });
    let found: VoxformCommand = this;
    for (const word of rest.filter((each) => !each.startsWith('-'))) {
      if (found.commands.length === 0) break;
      const next = found.findCommand(word);
      if (next) found = next as VoxformCommand;
      else if (found.registeredArguments.length > 0) break;
      else found.refuseCommand(word);
    }
    return found === this ? argv : [...commandWords(found).slice(1), ...flags, '--help'];
  }

  /** The options `voxform help` takes: the root's own (`--no-color`, `--version`) and help. */
  private readsAfterHelp(flag: string): boolean {
    return flag === '-h' || flag === '--help' || this.options.some((option) => flag === option.long || flag === option.short);
  }

  /**
   * The command whose help a usage mistake points to: the command of this group that the line goes
   * on to, if any. An option the group shares with it is parsed by the group before the line reaches
   * it (`voxform plan show --format xml`: `plan` refuses the value), and its help is the one that
   * describes what was typed. Option values are skipped, so an environment named `show` is no command.
   */
  private commandOfLine(): Command {
    // The parent has read the line up to this command's name; the rest is this command's.
    const line = this.parent?.args.slice(1) ?? [];
    for (let at = 0; at < line.length; at++) {
      const word = line[at] as string;
      if (word === '--') break;
      if (!word.startsWith('-')) return this.findCommand(word) ?? this;
      const option = this.options.find((each) => word === each.long || word === each.short);
      if (option && (option.required || option.optional)) at++;
    }
    return this;
  }

  override error(message: string, options?: { code?: string; exitCode?: number }): never {
    const words = commandWords(this);
    const ofLine = this.commandOfLine();
    // An argument not among its choices is of the wrong form: shown as its name, never repeated.
    const argumentShown = (value: string, position: number) => {
      const argument = this.registeredArguments[Math.min(position, this.registeredArguments.length - 1)];
      return argument?.argChoices && !argument.argChoices.includes(value) ? `<${argument.name()}>` : shellWord(value);
    };
    const optionsAfterDashes = findOptionsAfterDashes(this.args, this.optionsTaken(), words, this.optionsTyped(), argumentShown, this.optionsGiven());
    // Options typed after `--` explain the arguments too many, a manifest among them (`-- ID -f agents.yaml`) too.
    if (options?.code === 'commander.excessArguments' && !optionsAfterDashes) this.refuseManifestArguments(words);
    throw usageError(options?.code, message, {
      path: commandWords(ofLine).join(' '),
      hasCommands: ofLine.commands.length > 0,
      commands: ofLine.commands.map((cmd) => cmd.name()),
      takesArguments: this.registeredArguments.length > 0,
      withArgumentAfterDashes: (argument) => this.withArgumentAfterDashes(words.slice(1), argument),
      optionsAfterDashes,
    });
  }

  /**
   * The options the parser has taken from the command line, as a command line to paste shows them:
   * those that chose the project and service as nextCommand writes them, but an environment as its
   * placeholder and an unusable base URL too (shownTarget), any other as typed when it is one of its
   * choices (`--format json`), else as its placeholder (options-after-dashes.ts).
   */
  private optionsTyped(): string[] {
    const others: string[] = [];
    for (let cmd: Command | null = this; cmd; cmd = cmd.parent) {
      for (const option of cmd.options) {
        const key = option.attributeName();
        if (CHOSEN_TARGET_KEYS.has(key) || cmd.getOptionValueSource(key) !== 'cli') continue;
        const value: unknown = cmd.getOptionValue(key);
        const flag = option.long ?? option.short ?? option.flags;
        if (option.isBoolean() || typeof value === 'boolean') others.push(flag);
        else for (const each of Array.isArray(value) ? value : [value]) others.push(flag, shownValue(option, String(each)));
      }
    }
    return [...chosenFlags(shownTarget(this.chosenTarget())), ...others];
  }

  /** The options that take one value (refuseRepeatedValues refuses two), and those the parser took before `--`. */
  private optionsGiven(): GivenOptions {
    const givenBefore = new Set<string>();
    for (let cmd: Command | null = this; cmd; cmd = cmd.parent) {
      for (const option of cmd.options) if (cmd.getOptionValueSource(option.attributeName()) === 'cli') givenBefore.add(option.attributeName());
    }
    return { takesOneValue: (option) => takesOneValue(option, isRepeatable), givenBefore };
  }

  /** Arguments past those the command takes that name manifests, when it takes them with -f: said so (manifest-argument.ts). */
  private refuseManifestArguments(words: string[]): void {
    if (!this.options.some((option) => option.long === '--file')) return;
    const cwd = this.root().cwd;
    const manifests = this.args.filter((argument) => namesManifest(argument, cwd));
    if (manifests.length === 0) return;
    const operands = this.args.filter((argument) => !manifests.includes(argument));
    throw manifestArgumentError(manifests, [...words.slice(1), ...operands.map(shellWord)].join(' '), this.chosenTarget(), argumentCount(this.registeredArguments.length));
  }

  /** The options that chose the project and service, as parsed so far (this command's and its parents'). */
  private chosenTarget(): ChosenTarget {
    let chosen: ChosenTarget = {};
    for (let cmd: Command | null = this; cmd; cmd = cmd.parent) chosen = { ...cmd.opts(), ...chosen };
    return chosen;
  }

  /** The command at the top of the tree, which knows the folder the command line runs in. */
  private root(): VoxformCommand {
    let cmd: Command = this;
    while (cmd.parent) cmd = cmd.parent;
    return cmd as VoxformCommand;
  }

  /** The options this command takes: its own, its parents', and help. */
  private optionsTaken(): Option[] {
    const options: Option[] = [new Option('-h, --help')];
    for (let cmd: Command | null = this; cmd; cmd = cmd.parent) options.push(...cmd.options);
    return options;
  }

  /**
   * This command line again with `argument`, taken for an option, after `--`: its operands, then the
   * options that chose what it works on (nextCommand), also those typed after `argument`, which the
   * parser stopped before. Pasted, it must work on the same project and service (`--local` kept).
   */
  private withArgumentAfterDashes(commandWords: string[], argument: string): string {
    const at = this.args.indexOf(argument);
    // What follows the argument, parsed now: an invalid value there is reported as such.
    const after = this.parseOptions(this.args.slice(at + 1));
    const operands = [...this.args.slice(0, at), ...after.operands];
    return `${nextCommand([...commandWords, ...operands.map(shellWord)].join(' '), this.chosenTarget())} -- ${shellWord(argument)}`;
  }
}

/** Where the parser writes help and version text: the run's own outputs, which redact and escape. */
interface ParserOutput {
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
}

/**
 * The command tree. `output`: where help and version go, and that the parser returns instead of
 * ending the process (`exitOverride`); set on the root before any command is added, so that every
 * command inherits it (`voxform help plan` inside `voxform ci run` must not end the run). `cwd`: the
 * folder the command line's paths start from.
 */
export function buildProgram(run: (name: string, options: Record<string, unknown>) => Promise<void>, output?: ParserOutput, cwd = process.cwd()): Command {
  const program = new VoxformCommand('voxform');
  program.cwd = cwd;
  if (output) program.exitOverride().configureOutput({ writeOut: (text) => output.stdout.write(text), writeErr: (text) => output.stderr.write(text) });
  program
    .description('Agents-as-code for hosted voice agents: validate, plan and apply YAML manifests.')
    .version(describeVersion(), '-v, --version')
    .option('--no-color', 'no colour in output (also NO_COLOR=1)')
    .configureHelp({ sortSubcommands: false });

  const action = (name: string) => async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const positional = cmd.args;
    // A subcommand's options may be parsed by its parent command (`test capture ID --out F`): merge them.
    const parent = cmd.parent && cmd.parent !== program ? cmd.parent.opts() : {};
    if (cmd.parent && cmd.parent !== program) refuseParentOnlyOptions(cmd, cmd.parent);
    // A naming value typed empty (a script's unset variable), or an option read as a value, is refused before any command runs (empty-values.ts).
    refuseEmptyValues(cmd, commandWords(cmd));
    refuseOptionsAsValues(cmd, commandWords(cmd));
    refuseRepeatedValues(cmd, commandWords(cmd));
    await run(name, { ...program.opts(), ...parent, ...cmd.opts(), args: positional });
  };

  withManifest(program.command('validate').description('check manifests and their policy; report every problem with file:line:col'))
    .addOption(new Option('--format <format>', 'output format (sarif: SARIF 2.1.0 for code scanning)').choices(['text', 'json', 'sarif']).default('text'))
    .action(action('validate'));

  const policy = program.command('policy').description('the policy rules checked by validate and plan (docs/policy.md)');
  withManifest(policy.command('list').description('list every rule, its level and where that level was set'))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(action('policy-list'));

  addChangeCommands(program, action);
  addProjectCommands(program, action);
  addServiceCommands(program, action);
  addWebhookCommands(program, action);

  addStateCommands(program, action);
  addCiCommands(program, action);

  addCommandHelp(program);
  countOccurrences(program, isRepeatable);
  return program;
}

/** Runs the named command with the options commander parsed for it. */
type CommandAction = (name: string) => (...args: unknown[]) => Promise<void>;

/** plan, apply and export: the commands that read the service and change it. */
function addChangeCommands(program: Command, action: CommandAction): void {
  const plan = withConnection(withManifest(program.command('plan').description('show what apply would change on the service')))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--out <file>', 'save the plan for `voxform apply PLAN`')
    .option('--detailed-exitcode', 'exit 0 when nothing changes, 2 when something does, 1 on error')
    .option('--target <address>', 'only this resource and what it needs (repeatable), e.g. agent.front-desk', collect)
    .option('--state <url|path>', STATE_OPTION)
    .option('--parallelism <n>', 'requests in flight at once', positiveInt('--parallelism', MOST.parallelism), 8)
    .option('--base <revision>', 'flag policy relaxations against this git revision, e.g. origin/main (env VOXFORM_BASE_REF)')
    .option('--take-over <address>', 'let this plan change an agent, number, campaign or credential another environment of the service set (repeatable)', collect)
    .action(action('plan'));
  // `plan` parses `--format` before `show` sees it (see `action`): no default here, `plan`'s applies.
  plan
    .command('show')
    .description('print a saved plan as `plan` printed it (no service contacted, no API key needed)')
    .argument('<plan>', 'a plan file saved by `voxform plan --out`')
    .addOption(new Option('--format <format>', 'output format (default: text)').choices(['text', 'json', 'markdown']))
    .action(action('plan-show'));

  withApplyRun(withConnection(withManifest(program.command('apply').description('make the service match the manifests (or a saved plan)'))))
    .argument('[plan]', 'a plan file saved by `voxform plan --out`')
    .option('--target <address>', 'only this resource and what it needs (repeatable)', collect)
    .option('--take-over <address>', 'let this apply change an agent, number, campaign or credential another environment of the service set (repeatable)', collect)
    .action(action('apply'));

  withApplyRun(withConnection(withManifest(program.command('rollback').description('return agents to a configuration the history recorded, through plan and apply'))))
    .argument('<ref>', 'a history record id (or a unique prefix), a commit (7+ hex digits), or `previous`')
    .option('--agent <name>', 'only this agent of the record (repeatable)', collect)
    .action(action('rollback'));

  withApplyRun(withConnection(program.command('promote').description('give an environment exactly what its source runs, once the gates pass, through plan and apply')))
    .option('-f, --file <path>', 'a manifest file or folder (repeatable; default voxform.yaml, else agents.yaml)', collect)
    .requiredOption('--to <env>', 'the environment to promote to')
    .option('--from <env>', 'the environment to promote from (default: the target\'s promote_from)')
    .option('--dry-run', 'print the gate table and the plan; apply nothing')
    .action(action('promote'));

  withConnection(program.command('diff').description('compare two environments\' live agents now, field by field'))
    .option('-f, --file <path>', 'a manifest file or folder (repeatable; default voxform.yaml, else agents.yaml)', collect)
    .requiredOption('--env <name>', 'an environment to compare (give two)', collect)
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--state <url|path>', STATE_OPTION)
    .option('--parallelism <n>', 'requests in flight at once', positiveInt('--parallelism', MOST.parallelism), 8)
    .action(action('diff'));

  withConnection(withManifest(program.command('history').description('list the applies recorded for this workspace, then its test runs against the live agents, newest first')))
    .option('--agent <name>', 'only records that hold this agent')
    .option('--limit <n>', 'at most this many records (default 20)', positiveInt('--limit', MOST.count))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--state <url|path>', STATE_OPTION)
    .action(action('history'));

  withApplyRun(withConnection(withManifest(program.command('drift').description('what differs between the service, the last apply and the manifests, and where each change came from'))))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--notify <url>', 'post the result to this receiver (yours: the operator chooses it)')
    .addOption(new Option('--notify-format <format>', 'what --notify posts: the JSON report or a Slack message (default: json)').choices(['json', 'slack']))
    .option('--heal', 'put agents changed outside voxform back to their last recorded configuration, through plan and apply')
    .option('--watch <interval>', 'check again every INTERVAL (e.g. 5m; jittered) until Ctrl-C or SIGTERM, one line per check')
    .action(action('drift'));

  withConnection(program.command('export').description('write live agents as a manifest with prompts/*.md'))
    .option('--agent <id>', 'an agent id to export (repeatable)', collect)
    .option('--from-phones', 'export every agent bound to a phone number')
    .option('--out <dir>', 'where to write', '.')
    .option('--force', 'overwrite existing files')
    .option('--state <url|path>', `${STATE_OPTION}; its deploy ledger says which live values came from \${env:…}`)
    .action(action('export'));
}

/** init, templates, fmt and the emulator: the commands that work on the project or run locally. */
function addProjectCommands(program: Command, action: CommandAction): void {
  program
    .command('init')
    .description('start a project from a template')
    .argument('[dir]', 'the folder to write into', '.')
    .option('--template <name|folder>', 'a template name (`voxform templates` lists them) or a folder holding template.yaml')
    .option('--var <key=value>', 'a template variable (repeatable)', collect)
    .option('--force', 'overwrite existing files')
    .action(action('init'));

  program.command('templates').description('list the agent templates').action(action('templates'));

  program
    .command('completion')
    .description('print a shell completion script: commands, options, their values, and the manifests\' agent and environment names (docs/completion.md)')
    .option('-f, --file <path>', 'the manifests whose names to complete (repeatable; default voxform.yaml, else agents.yaml)', collect)
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .action(action('completion'));

  program
    .command('fmt')
    .description('rewrite manifests in the canonical layout')
    .argument('[paths...]', 'files or folders (default: the manifests of this folder)')
    .option('--check', 'change nothing; exit 1 listing the files that are not formatted')
    .action(action('fmt'));

  const emulator = program
    .command('emulator')
    .description('run the local voice-agent service')
    .option('--port <n>', 'port to listen on', '4010')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data <file>', 'persist the account to this JSON file')
    .option('--seed <file>', 'load an account from this YAML or JSON file')
    .option('--latency <ms>', 'add this much latency to every request (ms, or MIN-MAX for jitter)')
    .option('--fail-rate <p>', 'answer this fraction of requests with 503 (0 to 1)')
    .option('--llm <url>', 'play agents with this OpenAI-compatible model (env VOXFORM_EMULATOR_LLM)')
    .option('--llm-model <name>', 'the model name for --llm (env VOXFORM_EMULATOR_LLM_MODEL)')
    .option('--traffic <profile>', 'add synthetic calls at start: a built-in profile (steady, light, volatile) or a YAML/JSON profile file')
    .option('--traffic-calls <n>', 'calls per agent for --traffic (default: the profile\'s)', positiveInt('--traffic-calls', MOST.count))
    .option('--traffic-seed <seed>', 'the random seed of --traffic (default 1)')
    .action(action('emulator'));
  addEmulatorTrafficCommand(emulator, action);
}

/** `voxform emulator traffic`: synthetic calls for the folder's `--local` account or a running emulator. */
function addEmulatorTrafficCommand(emulator: Command, action: CommandAction): void {
  withManifest(emulator.command('traffic'))
    .description('add seeded synthetic calls to an emulator\'s call log (docs/traffic.md)')
    .option('--local', 'the folder\'s embedded emulator (.voxform/local.json)')
    .option('--url <url>', 'a running `voxform emulator`, e.g. http://127.0.0.1:4010')
    .option('--profile <profile>', 'a built-in profile (steady, light, volatile) or a YAML/JSON profile file', 'steady')
    .option('--calls <n>', 'calls per agent (default: the profile\'s)', positiveInt('--calls', MOST.count))
    .option('--seed <seed>', 'the random seed (default 1): the same seed and configurations give the same calls')
    .option('--agent <name|id>', 'only this agent: a name from the manifests, an agent\'s name on the service, or an id (repeatable; default every agent)', collect)
    .option('--until <time>', 'the end of the window (ISO 8601, Unix seconds, or a duration back from now), not later than now; default now')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(action('emulator-traffic'));
}

/** logs, keys, chat, schema and test: the commands that use the service without changing the manifests' resources. */
function addServiceCommands(program: Command, action: CommandAction): void {
  withConnection(withManifest(program.command('logs').description('list call logs (the latest 50 unless --limit or --all)')))
    .option('--agent <name|id>', 'only this agent: an agent id, or the local name or name on the service of an agent of the manifests')
    .option('--status <status>', 'only this call status (e.g. user-ended, error, in-progress)')
    .option('--since <time>', 'from this time (ISO 8601, Unix seconds, or a duration such as 24h)')
    .option('--until <time>', 'up to this time')
    .option('--phone <number>', 'only calls from or to this number')
    .option('--campaign <id>', 'only this campaign')
    .option('--limit <n>', 'at most this many records (default 50)', positiveInt('--limit', MOST.count))
    .option('--all', 'every record, however many')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'ndjson']).default('text'))
    .option('--stats', 'print counts, durations and credits instead of records')
    .option('--state <url|path>', `${STATE_OPTION}; its deploy ledger says which live values came from \${env:…}`)
    .action(action('logs'));

  withConnection(withManifest(program.command('report').description('calls per agent and configuration version, each version compared with the one before')))
    .option('--agent <name|id>', 'only this agent: an agent id, or the local name or name on the service of an agent of the manifests or the apply history')
    .option('--since <time>', 'from this time (ISO 8601, Unix seconds, or a duration such as 7d)')
    .option('--until <time>', 'up to this time')
    .option('--since-deploy', 'the latest deploy\'s version and the one before it, whole, and no older version')
    .option('--include-tests', 'count the calls of `voxform test` and `voxform chat` too (left out by default)')
    .addOption(new Option('--format <format>', 'output format').choices(['markdown', 'json', 'html']).default('markdown'))
    .option('--out <file>', 'write the report to this file instead of stdout')
    .option('--state <url|path>', STATE_OPTION)
    .action(action('report'));

  const keys = program.command('keys').description('manage API keys');
  withConnection(keys.command('create').description('create an API key and print it once'))
    .addOption(new Option('--type <type>', 'the key type').choices(['private', 'public']).makeOptionMandatory())
    .option('--name <name>', 'a name for the key (at most 100 characters)')
    .action(action('keys-create'));

  withConnection(withManifest(program.command('chat').description('talk to an agent in text')))
    .requiredOption('--agent <name|id>', 'the agent: an agent id, or the local name or name on the service of an agent of the manifests')
    .option('--state <url|path>', `${STATE_OPTION}; its deploy ledger says which live values came from \${env:…}`)
    .action(action('chat'));

  program.command('schema').description('print the manifest JSON Schema (for editors)').action(action('schema'));

  withConnection(withManifest(program.command('status').description('show the service, the key type, the state file, its lock and the last apply')))
    .option('--state <url|path>', STATE_OPTION)
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(action('status'));

  const test = withConnection(withManifest(program.command('test').description('run conversation tests against the configuration under review')))
    .argument('[paths...]', 'test files or folders (default: tests/ beside the manifest)')
    .addOption(new Option('--against <target>', 'talk to the desired config (what apply would send), the live agent, or both').choices(['desired', 'live', 'both']).default('desired'))
    .option('--agent <name>', 'only the tests of this manifest agent (repeatable)', collect)
    .option('--grep <text>', 'only tests whose name contains this text')
    .option('--repeat <n>', 'run each test this many times (overrides repeat:)', positiveInt('--repeat', MOST.count))
    .option('--parallelism <n>', 'conversations at once', positiveInt('--parallelism', MOST.parallelism), 8)
    .option('--max-conversations <n>', 'refuse a run of more conversations than this (default 1000)', positiveInt('--max-conversations', MOST.count, 1000))
    .option('--max-requests <n>', 'refuse a run that may send more requests to the agent and the judge than this (default 4000)', positiveInt('--max-requests', MOST.count, 4000))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'junit', 'markdown']).default('text'))
    .option('--out <file>', 'write the report to this file instead of stdout')
    .option('--skip-judge', 'use no judge model: judge checks and simulated callers are reported as skipped')
    .option('--with-secrets', "send the config's secrets and, with --local, call its webhooks and tools (only for manifests you have reviewed)")
    .addOption(new Option('--mode <mode>', 'live: talk to the agent; record: and write each test file\'s recording; replay: answer from the recordings, sending nothing; auto: replay where recorded, else live').choices(['live', 'record', 'replay', 'auto']).default('live'))
    .option('--baseline <file>', 'an earlier JSON result: fail only on tests that got worse')
    .option('--no-cache', "neither read nor write the judge's cached verdicts (.voxform/cache/)")
    .option('--state <url|path>', `${STATE_OPTION}; a live run's evidence for promote is recorded there`)
    .action(action('test'));
  withConnection(withManifest(test.command('capture').description('turn a logged call into a test file (personal data replaced)')))
    .argument('<call-id>', 'the call id (see `voxform logs`)')
    .option('--out <file>', 'write the test file here instead of stdout')
    .option('--force', 'overwrite the file --out names when it exists')
    .option('--state <url|path>', `${STATE_OPTION}; its deploy ledger says which live values came from \${env:…}`)
    .action(action('test-capture'));

  withConnection(withManifest(program.command('get').description('list what is live on the service, each entry marked with the manifest name that manages it or "unmanaged" (docs/get.md)')))
    .addArgument(new Argument('<kind>', 'what to list').choices(['phones', 'agents', 'campaigns', 'knowledge']))
    .argument('[name]', 'only this one: a phone number; an agent id, or the local name or name on the service of an agent of the manifests; a campaign\'s or knowledge file\'s manifest name or id (an id that starts with - goes after --)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--state <url|path>', `${STATE_OPTION}; read for what it records of phones, campaigns and knowledge, and its deploy ledger for the agents' names filled from \${env:…}`)
    .action(action('get'));
}

/** `voxform state …`: the state backend's workspaces, locks and migration. */
function addStateCommands(program: Command, action: CommandAction): void {
  const state = program.command('state').description('list, show, remove, unlock, migrate and upgrade the state backend (--state or VOXFORM_STATE)');
  const withState = (cmd: Command) => cmd.option('--state <url|path>', STATE_OPTION);
  withState(state.command('list').description('list the workspaces, their serials, last applies and lock holders'))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(action('state-list'));
  withState(state.command('show').description("show one workspace's records (the only one, when there is one)"))
    .argument('[workspace]', 'the workspace, `ENV@SERVICE` (see `voxform state list`)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(action('state-show'));
  withState(state.command('rm').description("remove a workspace's state (what it last applied, its claims on shared resources) from the backend; its deploy history is kept"))
    .argument('<workspace>', 'the workspace, `ENV@SERVICE` (see `voxform state list`)')
    .option('--force', 'remove without asking (required without a terminal)')
    .action(action('state-rm'));
  withState(state.command('unlock').description('open a lock whose holder hangs or is gone, by its lock id'))
    .argument('<lock-id>', 'the lock id, as `voxform state list` or the refused run names it')
    .option('--force', 'required: open a lock another run may hold')
    .action(action('state-unlock'));
  withState(state.command('migrate').description('copy state and history to another backend, and check the copy'))
    .requiredOption('--to <url|path>', 'the target: a postgres:// URL or a file path')
    .option('--force', 'overwrite workspaces the target already holds')
    .action(action('state-migrate'));
  withState(state.command('upgrade').description("bring a database's tables to this voxform's schema (once, as their owner)"))
    .action(action('state-upgrade'));
}

/** `voxform ci run`: a command of a CI job, then its report on the review (docs/ci.md). */
function addCiCommands(program: Command, action: CommandAction): void {
  const ci = program.command('ci').description('run a command in a CI job and report it on the pull or merge request (docs/ci.md)');
  withManifest(ci.command('run').description('run plan, apply, test, promote or drift, then comment, label and summarize'))
    .addOption(new Option('--provider <provider>', 'the CI the job runs in (its variables give the project, review and token)').choices(['github', 'gitlab']).makeOptionMandatory())
    .addOption(new Option('--command <command>', 'the voxform command to run').choices(['plan', 'apply', 'test', 'promote', 'drift']).makeOptionMandatory())
    .option('--out-dir <dir>', 'where the saved plan and reports are written (and apply reads the plan)', 'voxform-ci')
    .option('--command-args <text>', 'more arguments for the command, separated by spaces (e.g. "--target agent.front-desk")')
    .action(action('ci-run'));
}

/** webhook send and serve: exercising the receivers of the agents' webhooks without a call. */
function addWebhookCommands(program: Command, action: CommandAction): void {
  const webhook = program.command('webhook').description('send a webhook to a receiver, or run a receiver (docs/webhooks.md)');
  withConnection(withManifest(webhook.command('send').description('send one end-of-call or prefetch webhook and check the answer')))
    .option('--to <url>', 'the receiver to send to (yours: the operator chooses it)')
    .option('--to-configured', 'send to the URL the --agent configures (only for manifests you have reviewed)')
    .addOption(new Option('--event <event>', 'which webhook').choices(['end-of-call', 'prefetch']).makeOptionMandatory())
    .option('--call <call-id>', 'send the payload of this logged call instead of a sample (see `voxform logs`)')
    .option('--agent <name>', 'a manifest agent: send its configured headers')
    .action(action('webhook-send'));
  withManifest(webhook.command('serve').description('run a local receiver that checks every webhook it gets'))
    .option('--port <n>', 'port to listen on (0 picks a free one)', '4020')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--prefetch-response <file>', 'a JSON PrefetchWebhookResponse to answer prefetch with (default {})')
    .option('--agent <name>', 'a manifest agent: require the headers it configures')
    .action(action('webhook-serve'));
}
