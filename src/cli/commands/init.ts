import path from 'node:path';
import { createInterface } from 'node:readline';
import { isVoxformError, VoxformError } from '../../errors.js';
import { listTemplates, readTemplate, RESERVED_VARIABLES, type Template, type TemplateVariable, type VariableValue } from '../../templates/catalog.js';
import { answerProblem, givenValue, resolveVariables } from '../../init/expand.js';
import { editedFiles, editedWarning, MANIFEST_FILE, manifestOutline, planScaffold, refuseExisting, scaffoldTargets, shadowedManifest, shadowedWarning, type ExistingFiles, type Scaffold } from '../../init/scaffold.js';
import { CheckoutFiles } from '../../project-files/checkout-files.js';
import { refuseOutsideProject, refuseOwnFolder, writeScaffold } from '../../init/write-scaffold.js';
import { replacedManifest } from '../../init/replaced-manifest.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { isSpareAgentId, SPARE_AGENT_IDS, SPARE_AGENT_RANGE } from '../../emulator/spare-agents.js';
import type { CommandContext } from '../context.js';
import { ownFilesOf } from '../project.js';
import type { OwnFiles } from '../../project-files/own-files.js';
import { pluralNoun } from '../../util/plural.js';
import { shellWord } from '../../util/shell-word.js';
import { greatest } from '../../util/extremes.js';

/** What to do when init's questions meet the end of the input. */
const NO_QUESTIONS_HINT = 'Answer the questions at a terminal, or pass --template and --var KEY=VALUE so nothing is asked.';

/** The built-in variable every init asks for (RESERVED_VARIABLES). */
const AGENT_ID: TemplateVariable = {
  name: 'agent_id',
  description: 'The id of the live agent this manifest manages (agents are adopted, not created)',
  required: true,
  default: undefined,
};

interface InitOptions {
  /** `[dir]`: the folder to write into. */
  args?: string[];
  template?: string;
  var?: string[];
  force?: boolean;
}

/** `voxform init`: scaffolds a project from a template; missing values are asked on a terminal, else all named. */
export async function run(options: InitOptions, ctx: CommandContext): Promise<number> {
  const args = options.args ?? [];
  const dir = path.resolve(ctx.cwd, args[0] ?? '.');
  const force = options.force === true;
  const given = parseVars(options.var ?? []);
  const interactive = Boolean(ctx.stdin.isTTY && ctx.stderr.isTTY);
  const ask = interactive ? lineReader(ctx) : undefined;
  const own = ownFilesOf({}, ctx);
  const checkout = CheckoutFiles.forRun(ctx.env);
  // The files are written all or nothing (writeScaffold), and nothing is awaited after: a stop, at a question above all, leaves none.
  ctx.stopLeaves?.({ leftUndone: 'nothing was written', hint: 'Run the command again to write the project.' });
  try {
    await refuseOwnFolder(dir, { displayDir: displayDir(ctx, dir), command: 'voxform init', own });
    // The manifest is written whatever the template: an existing one stops the run before a template is asked for.
    if (typeof options.template !== 'string') await refuseConflicts(dir, [{ path: MANIFEST_FILE, mode: 'create' }], { force, own, checkout, manifest: manifestOutline(undefined, '') }, ctx);
    const template = typeof options.template === 'string' ? await readTemplate(options.template, { cwd: ctx.cwd }) : await chooseTemplate(ctx, ask);

    const { agent_id: givenAgentId, ...templateVars } = given;
    const resolved = resolveVariables(template, templateVars);
    let agentId = givenAgentId?.trim() ?? '';
    const missing = [...resolved.missing, ...(agentId === '' ? [AGENT_ID] : [])];
    // Unknown and missing variables are named together: one run tells everything to fix.
    if (resolved.unknown.length > 0) throw unknownVarsError(template, resolved.unknown, ask ? [] : missing);

    // Refuse before asking anything: typing five answers to then hear "exists already" is cruel.
    const targets = scaffoldTargets(template, resolved.values, agentId);
    // Every value given, and none to be asked again: a value that does not fit is the mistake to say first.
    if (!ask && missing.length === 0 && targets.problem) throw targets.problem;
    const existing = await refuseConflicts(dir, targets.paths, { force, own, checkout, manifest: targets.manifest }, ctx);

    if (missing.length > 0) {
      if (!ask) throw missingVarsError(template, missing);
      ctx.stderr.write(`Template ${template.name} needs ${missing.length === 1 ? 'one value' : `${missing.length} values`}.\n`);
      for (const [index, variable] of missing.entries()) {
        if (variable === AGENT_ID) {
          agentId = await askValue(ctx, ask, variable);
          continue;
        }
        const pending = missing.slice(index + 1).filter((later) => later !== AGENT_ID).map((later) => later.name);
        // An answer whose mistake shows on its own is asked again now, not after every other question.
        for (;;) {
          resolved.values[variable.name] = await askValue(ctx, ask, variable);
          const problem = answerProblem(template, resolved.values, { answered: variable.name, pending });
          if (problem === undefined) break;
          ctx.stderr.write(`  ${problem.message}\n`);
        }
      }
    }

    // Planned already when nothing was asked; an answer, or a value asked again, plans it anew.
    const scaffold = missing.length === 0 && targets.planned ? targets.planned : await planAsking(ctx, ask, template, { values: resolved.values, agentId });
    const shadowed = await shadowedManifest(dir);
    const replaced = await replacedManifest(path.join(dir, MANIFEST_FILE), existing, scaffold.files.find((file) => file.path === MANIFEST_FILE)?.content ?? '', 'voxform init');
    const edited = force ? await editedFiles(dir, scaffold.files, existing) : [];
    const written = await writeScaffold(dir, scaffold.files, { force, displayDir: displayDir(ctx, dir), command: 'voxform init', existing, losses: replaced?.refusal });
    report(ctx, { dir, template, written, envVars: scaffold.envVars, localName: scaffold.localName, promptFile: scaffold.promptFile, agentId });
    if (shadowed !== undefined) ctx.stderr.write(shadowedWarning(shadowed, displayDir(ctx, dir)));
    if (replaced !== undefined) ctx.stderr.write(replaced.warning);
    if (edited.length > 0) ctx.stderr.write(editedWarning(edited, 'voxform init'));
    return 0;
  } finally {
    ask?.close();
  }
}

/** `--var K=V` values; the last of a repeated name wins (as with Terraform's -var). */
function parseVars(raw: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const item of raw) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? '' : item.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new VoxformError('init_var_invalid', 'A value given to --var is not NAME=VALUE.', {
        hint: 'Write each variable as --var NAME=VALUE, quoting values with spaces: --var business="Acme Dental".',
      });
    }
    vars[name] = item.slice(eq + 1);
  }
  return vars;
}

/** `missing`: required variables without a value, named in the same error (nothing asks for them). */
function unknownVarsError(template: Template, unknown: readonly string[], missing: readonly TemplateVariable[]): VoxformError {
  const names = [...template.variables.map((v) => v.name), ...RESERVED_VARIABLES];
  const described = unknown.map((name) => {
    const suggestion = didYouMean(name, names);
    return suggestion ? `"${name}" (did you mean "${suggestion}"?)` : `"${name}"`;
  });
  const alsoMissing = missing.length > 0 ? `; it also needs ${missing.length === 1 ? 'a value' : 'values'} for ${missing.map((v) => v.name).join(', ')}` : '';
  return new VoxformError(
    'init_var_unknown',
    `Template ${template.name} has no ${pluralNoun(unknown.length, 'variable')} ${described.join(', ')}${alsoMissing}; nothing was written.`,
    { hint: `Its variables are: ${names.join(', ')} (see \`voxform templates\`).`, details: { unknown: [...unknown], missing: missing.map((v) => v.name) } },
  );
}

function missingVarsError(template: Template, missing: readonly TemplateVariable[]): VoxformError {
  const names = missing.map((v) => v.name);
  const flags = missing.map((v) => `--var ${v.name}=${v === AGENT_ID ? SPARE_AGENT_IDS[0] : '...'}`);
  const width = greatest(flags.map((f) => f.length));
  const lines = missing.map((v, i) => `    ${flags[i]!.padEnd(width)}  ${v.description}`);
  if (missing.includes(AGENT_ID)) lines.push(`  (${SPARE_AGENT_RANGE} are spare agents of the embedded emulator, for trying things with --local.)`);
  return new VoxformError(
    'init_vars_missing',
    `Template ${template.name} needs ${missing.length === 1 ? 'a value' : `values`} for ${names.join(', ')}; nothing was written.`,
    { hint: `Pass ${missing.length === 1 ? 'it' : 'each'} with --var NAME=VALUE (or run voxform init in a terminal to be asked):\n${lines.join('\n')}`, details: { missing: names } },
  );
}

interface LineReader {
  question(prompt: string): Promise<string | undefined>;
  close(): void;
}

/** Answers line by line from stdin (no raw mode: the terminal echoes), queued so piped answers are not lost. */
function lineReader(ctx: CommandContext): LineReader {
  const rl = createInterface({ input: ctx.stdin, terminal: false });
  const lines: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let ended = false;
  rl.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  rl.on('close', () => {
    ended = true;
    while (waiting.length > 0) waiting.shift()?.(undefined);
  });
  return {
    question(prompt) {
      ctx.stderr.write(prompt);
      if (lines.length > 0) return Promise.resolve(lines.shift());
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => rl.close(),
  };
}

async function askValue(ctx: CommandContext, ask: LineReader, variable: TemplateVariable): Promise<string> {
  const hint = variable === AGENT_ID ? ` (try ${SPARE_AGENT_IDS[0]} with --local)` : '';
  for (;;) {
    const answer = await ask.question(`  ${variable.name} — ${variable.description}${hint}: `);
    if (answer === undefined) {
      throw new VoxformError('init_aborted', `No value for ${variable.name}: the input ended; nothing was written.`, { hint: NO_QUESTIONS_HINT });
    }
    if (answer.trim() !== '') return answer.trim();
    ctx.stderr.write(`  ${variable.name} is required.\n`);
  }
}

/**
 * The scaffold of the values given. On a terminal, a value that does not fit where the template puts
 * it is asked for again, with what is wrong, instead of ending the run after every answer was typed.
 */
async function planAsking(ctx: CommandContext, ask: LineReader | undefined, template: Template, given: { values: Record<string, VariableValue>; agentId: string }): Promise<Scaffold> {
  for (;;) {
    try {
      return planScaffold({ template, ...given });
    } catch (error) {
      if (!ask || !isVoxformError(error) || error.code !== 'init_value_invalid') throw error;
      const names = (error.details as { variables?: string[] } | undefined)?.variables ?? [];
      const unfit = [...template.variables, AGENT_ID].filter((variable) => names.includes(variable.name));
      if (unfit.length === 0) throw error;
      ctx.stderr.write(`  ${error.message}\n`);
      for (const variable of unfit) {
        const answer = await askValue(ctx, ask, variable);
        if (variable === AGENT_ID) given.agentId = answer;
        else given.values[variable.name] = givenValue(variable, answer);
      }
    }
  }
}

async function chooseTemplate(ctx: CommandContext, ask: LineReader | undefined): Promise<Template> {
  const templates = await listTemplates();
  const names = templates.map((t) => t.name);
  if (!ask) {
    throw new VoxformError('init_template_required', `Choose a template with --template NAME: ${names.join(', ')}.`, {
      // As init_vars_missing says it: without a terminal nothing is asked, which piped answers do not change.
      hint: 'Pass one with --template NAME (or run voxform init in a terminal to be asked); `voxform templates` describes each one and its variables.',
    });
  }
  const width = greatest(names.map((n) => n.length));
  ctx.stderr.write('Templates:\n');
  templates.forEach((t, i) => ctx.stderr.write(`  ${String(i + 1).padStart(2)}. ${t.name.padEnd(width)}  ${t.description}\n`));
  for (;;) {
    const answer = (await ask.question('Template (number or name): '))?.trim();
    if (answer === undefined) throw new VoxformError('init_aborted', 'No template chosen: the input ended; nothing was written.', { hint: NO_QUESTIONS_HINT });
    const byNumber = /^[0-9]+$/.test(answer) ? templates[Number(answer) - 1] : undefined;
    const chosen = byNumber ?? templates.find((t) => t.name === answer);
    if (chosen) return chosen;
    const suggestion = didYouMean(answer, names);
    ctx.stderr.write(`  There is no template "${answer}"${suggestion ? `; did you mean "${suggestion}"?` : '.'}\n`);
  }
}

function report(
  ctx: CommandContext,
  input: { dir: string; template: Template; written: Awaited<ReturnType<typeof writeScaffold>>; envVars: string[]; localName: string; promptFile: string | undefined; agentId: string },
): void {
  const { written } = input;
  const out = ctx.stdout;
  const where = displayDir(ctx, input.dir);
  const made = `agent ${input.localName} from template ${input.template.name} in ${where}`;
  // Run again as before, every file holds what it would write: nothing was created.
  const untouched = written.created.length + written.overwritten.length + written.updated.length === 0;
  out.write(untouched ? `Kept ${made}: every file holds what voxform init would write, so none was written.\n` : `Created ${made}:\n`);
  for (const file of written.created) out.write(`  created      ${file}\n`);
  for (const file of written.overwritten) out.write(`  overwritten  ${file}\n`);
  for (const file of written.updated) out.write(`  updated      ${file}\n`);
  for (const file of written.kept) out.write(`  kept         ${file}\n`);
  out.write('\nNext:\n');
  if (where !== '.') out.write(`  cd ${shellWord(where)}\n`);
  // A prompt holding a hidden character is inline in the manifest, not in a file.
  if (input.template.prompt) out.write(`  edit ${input.promptFile ?? `the prompt in ${MANIFEST_FILE}`}: add the facts callers ask about\n`);
  if (input.envVars.length > 0) out.write(`  export ${input.envVars.map((name) => `${name}=...`).join(' ')}   # the manifest reads them with \${env:…}\n`);
  out.write('  voxform validate\n');
  out.write(`  ${planStep(ctx, input.agentId)}\n`);
}

/**
 * How to plan next: against the service VOXFORM_BASE_URL names when it is set (a started `voxform
 * emulator`, say), which --local would pass by for the embedded one; without it, a spare agent
 * exists only in the embedded emulator. The address is not printed: it may
 * hold credentials.
 */
function planStep(ctx: CommandContext, agentId: string): string {
  if ((ctx.env.VOXFORM_BASE_URL ?? '').trim() !== '') return 'voxform plan              # against the service VOXFORM_BASE_URL names';
  return isSpareAgentId(agentId) ? 'voxform plan --local      # against the embedded emulator' : 'voxform plan';
}

function displayDir(ctx: CommandContext, dir: string): string {
  return path.relative(ctx.cwd, dir) || '.';
}

/**
 * Stops the run when writing `paths` into `dir` would leave the project or overwrite something (see
 * refuseExisting), naming what a `manifest` written there would drop of the one there. Resolves to
 * how existing files are read (refuseOutsideProject): the scaffold planned later has the same paths.
 */
async function refuseConflicts(
  dir: string,
  paths: Parameters<typeof refuseExisting>[1],
  how: { force: boolean; own: OwnFiles; checkout: CheckoutFiles; manifest: string },
  ctx: CommandContext,
): Promise<ExistingFiles> {
  const existing = await refuseOutsideProject(dir, paths, { displayDir: displayDir(ctx, dir), command: 'voxform init', own: how.own, checkout: how.checkout });
  const replaced = how.force ? undefined : await replacedManifest(path.join(dir, MANIFEST_FILE), existing, how.manifest, 'voxform init');
  await refuseExisting(dir, paths, { force: how.force, displayDir: displayDir(ctx, dir), command: 'voxform init', losses: replaced?.refusal, existing });
  return existing;
}
