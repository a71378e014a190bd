import { Option, type Argument, type Command } from 'commander';
import { completionScript, type Shell } from '../../completion/scripts.js';
import type { Completion, CompletionCommand, CompletionOption, PositionalAfterWord } from '../../completion/tree.js';
import type { CommandContext } from '../context.js';
import type { DesiredState } from '../../manifest/types.js';
import { loadManifestsIfAny } from '../load-manifests.js';
import { buildProgram } from '../program.js';
import { valueName } from '../empty-values.js';
import { BUILT_IN_PROFILES } from '../../emulator/traffic/index.js';
import { CALL_STATUSES } from './logs.js';
import { templateNames } from '../../templates/catalog.js';

interface CompletionOptions {
  file?: string[];
  /** The shell (commander checks it is bash, zsh or fish). */
  args: string[];
}

/** The manifests' names a script offers: untrusted words, quoted by the script writers. */
interface ManifestNames {
  agents: string[];
  /** The agents' ids (of the environment the manifests load by default, else of every environment), for an option that takes an id. */
  agentIds: string[];
  environments: string[];
  /** Resource addresses, for `--target` and `--take-over`. */
  targets: string[];
  phones: string[];
  /** Campaigns' and knowledge files' local names, for `get campaigns|knowledge NAME`. */
  campaigns: string[];
  knowledge: string[];
}

/** `voxform completion bash|zsh|fish`: the completion script on stdout. */
export async function run(options: CompletionOptions, ctx: CommandContext): Promise<number> {
  const shell = options.args[0] as Shell;
  const names = await manifestNames(options, ctx);
  const program = buildProgram(async () => undefined);
  ctx.stdout.write(completionScript(shell, completionTree(program, names)));
  return 0;
}

/**
 * The folder's manifests' names; none without manifests, and none (with a warning) when they have errors.
 * Manifests that give ids only in their environments (docs/promotion.md's layout) load once per
 * environment, and the script offers the names of them all: each is what `--env NAME` takes.
 */
async function manifestNames(options: CompletionOptions, ctx: CommandContext): Promise<ManifestNames> {
  const unused = 'the script completes no agent or environment names';
  // Only names are read (never a value from the environment: an id cannot be one), so a secret the shell lacks is no error here.
  const withholdUnsetEnv = true;
  const loaded = await loadManifestsIfAny({ file: options.file, withholdUnsetEnv }, ctx, unused);
  if (loaded.state) return namesOf([loaded.state]);
  if (!loaded.idsInEnvironments) return namesOf([]);
  const states: DesiredState[] = [];
  for (const env of loaded.environmentAgents.keys()) {
    const { state } = await loadManifestsIfAny({ file: options.file, env, withholdUnsetEnv }, ctx, `the script completes no names from the environment "${env}"`);
    if (state) states.push(state);
  }
  return { ...namesOf(states), environments: [...loaded.environmentAgents.keys()] };
}

/** The names the loaded states define, each once, in the order they are met. */
function namesOf(states: readonly DesiredState[]): ManifestNames {
  const unique = (words: (state: DesiredState) => Iterable<string>) => [...new Set(states.flatMap((state) => [...words(state)]))];
  const agents = unique((state) => state.agents.keys());
  const phones = unique((state) => state.phones.keys());
  const campaigns = unique((state) => state.campaigns.keys());
  const knowledge = unique((state) => state.knowledge.keys());
  return {
    agents,
    agentIds: unique((state) => [...state.agents.values()].map((agent) => agent.id)),
    environments: unique((state) => state.environments),
    targets: [
      ...agents.map((name) => `agent.${name}`),
      ...phones.map((number) => `phone.${number}`),
      ...campaigns.map((name) => `campaign.${name}`),
      ...knowledge.map((name) => `knowledge.${name}`),
      ...unique((state) => state.credentials.keys()).map((provider) => `credential.${provider}`),
    ],
    phones,
    campaigns,
    knowledge,
  };
}

/** Value names (`<file>`, `<url|path>`) whose values are file names. */
const FILE_VALUES = /^(file|path|dir|plan|paths|url\|path)$/;

function optionCompletion(option: Option, names: ManifestNames): Completion | undefined {
  if (!option.required && !option.optional) return undefined;
  if (option.argChoices) return { words: option.argChoices };
  // `export --agent <id>` takes ids; every other --agent takes a manifest name.
  if (option.long === '--agent') return { words: valueName(option) === 'id' ? names.agentIds : names.agents };
  if (option.long === '--env') return { words: names.environments };
  if (option.long === '--target' || option.long === '--take-over') return { words: names.targets };
  // A template is a built-in name or a template folder.
  if (option.long === '--template') return { words: templateNames(), paths: 'folders' };
  // A traffic profile is a built-in name or a profile file (YAML or JSON).
  if (valueName(option) === 'profile') return { words: Object.keys(BUILT_IN_PROFILES), paths: 'data-files' };
  if (option.long === '--status' && valueName(option) === 'status') return { words: CALL_STATUSES };
  return FILE_VALUES.test(valueName(option) ?? '') ? 'files' : 'free';
}

function argumentCompletion(argument: Argument): Completion {
  if (argument.argChoices) return { words: argument.argChoices };
  return FILE_VALUES.test(argument.name()) ? 'files' : 'free';
}

/** `get KIND NAME` completes the manifests' names of that kind: agents, phone numbers, campaigns, knowledge files. */
function argumentsAfterWord(path: string, names: ManifestNames): PositionalAfterWord[] {
  if (path !== 'get') return [];
  return (['agents', 'phones', 'campaigns', 'knowledge'] as const).map((word) => ({ index: 1, word, completion: { words: names[word] } }));
}

/** Every command of the program as completion data, with `--help` (commander keeps it apart from the options). */
function completionTree(program: Command, names: ManifestNames): CompletionCommand[] {
  const help: CompletionOption = { flags: ['-h', '--help'], value: undefined };
  const commands: CompletionCommand[] = [];
  const visit = (command: Command, path: string) => {
    const options = command.options.filter((option) => !option.hidden).map((option): CompletionOption => ({
      flags: [option.short, option.long].filter((flag): flag is string => flag !== undefined),
      value: optionCompletion(option, names),
    }));
    const args = command.registeredArguments;
    commands.push({
      path,
      subcommands: command.commands.map((sub) => sub.name()),
      options: [...options, help],
      positionals: args.map(argumentCompletion),
      afterWord: argumentsAfterWord(path, names),
      variadic: args.at(-1)?.variadic ?? false,
    });
    for (const sub of command.commands) visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, '');
  return commands;
}
