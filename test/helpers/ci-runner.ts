/**
 * Runs the voxform Action (action.yml) and the voxform GitLab component (templates/voxform.yml) as
 * their CI runners would, far enough to prove them: the Action's steps in order, with its inputs
 * and defaults, its `if:` conditions, `run:` steps in GitHub's bash, and the artifact steps as copies
 * into a folder; the component interpolated with its inputs, merged with the recipe's job of the
 * same name, and its script run in `sh -e`. Only the expressions the two files use are understood:
 * anything else fails the test, so they stay that simple.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from './cli.js';

type Node = Record<string, any>;

export interface Run {
  code: number;
  output: string;
}

function runScript(shell: string, args: string[], script: string, cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(shell, [...args, script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

export async function readAction(): Promise<Node> {
  return parse(await readFile(path.join(repoRoot, 'action.yml'), 'utf8')) as Node;
}

/** The Action's inputs with their defaults, `given` over them; an unknown or missing required input throws. */
export function actionInputs(action: Node, given: Record<string, string>, github: Record<string, string>): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const name of Object.keys(given)) if (!(name in action.inputs)) throw new Error(`the Action has no input "${name}"`);
  for (const [name, spec] of Object.entries(action.inputs as Node)) {
    if (given[name] !== undefined) inputs[name] = String(given[name]);
    else if (spec.required) throw new Error(`the Action's input "${name}" is required`);
    else inputs[name] = expand(String(spec.default ?? ''), { inputs: {}, github, runnerTemp: '' });
  }
  return inputs;
}

interface Contexts {
  inputs: Record<string, string>;
  github: Record<string, string>;
  runnerTemp: string;
}

/** `${{ inputs.X }}`, `${{ inputs.X || 'Y' }}`, `${{ runner.temp }}`, `${{ github.token }}` in `text`. */
function expand(text: string, ctx: Contexts): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => {
    let match: RegExpExecArray | null;
    if ((match = /^inputs\.([\w-]+)(?:\s*\|\|\s*'([^']*)')?$/.exec(expression))) return ctx.inputs[match[1]!] || (match[2] ?? '');
    if (expression === 'runner.temp') return ctx.runnerTemp;
    if ((match = /^github\.(\w+)$/.exec(expression))) return ctx.github[match[1]!] ?? '';
    // `github.X && format('…{0}…', github.X) || ''`: the text with X in it when X is set, else empty.
    if ((match = /^github\.(\w+) && format\('([^']*)', github\.(\w+)\) \|\| ''$/.exec(expression)) && match[1] === match[3]) {
      const value = ctx.github[match[1]!] ?? '';
      return value === '' ? '' : match[2]!.replaceAll('{0}', value);
    }
    throw new Error(`an expression the test's runner does not know: ${expression}`);
  });
}

/** `always()`, `inputs.X == 'Y'`, `inputs.X != 'Y'`, joined by `&&`. */
function condition(text: string | undefined, ctx: Contexts): boolean {
  if (text === undefined) return true;
  return text.split('&&').every((term) => {
    const trimmed = term.trim();
    if (trimmed === 'always()') return true;
    const match = /^inputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'$/.exec(trimmed);
    if (!match) throw new Error(`a condition the test's runner does not know: ${trimmed}`);
    return (ctx.inputs[match[1]!] === match[3]) === (match[2] === '==');
  });
}

/** A workflow job's `env:` as the runner sets it for an event whose `github` context is `github`. */
export function jobEnv(job: Node, github: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries((job.env ?? {}) as Node).map(([name, value]) => [name, expand(String(value), { inputs: {}, github, runnerTemp: '' })]));
}

export interface ActionRun extends Run {
  /** The step outputs the Action wrote (GITHUB_OUTPUT). */
  outputs: Record<string, string>;
  /** The steps run, by name or `uses`. */
  steps: string[];
}

/**
 * One use of the Action in a job: `given` inputs, `env` the job's environment (GITHUB_* included),
 * `runnerTemp` the job's temporary folder, `artifacts` the workflow run's artifacts (a folder).
 */
export async function runAction(given: Record<string, string>, options: { cwd: string; env: Record<string, string>; runnerTemp: string; artifacts: string }): Promise<ActionRun> {
  const action = await readAction();
  const github = { token: options.env.GITHUB_TOKEN ?? '' };
  const ctx: Contexts = { inputs: actionInputs(action, given, github), github, runnerTemp: options.runnerTemp };
  const files = { output: path.join(options.runnerTemp, 'github-output'), env: path.join(options.runnerTemp, 'github-env') };
  for (const file of Object.values(files)) if (!existsSync(file)) await writeFile(file, '');
  const steps: string[] = [];
  let output = '';
  for (const step of action.runs.steps as Node[]) {
    if (!condition(step.if, ctx)) continue;
    const with_ = Object.fromEntries(Object.entries((step.with ?? {}) as Node).map(([key, value]) => [key, expand(String(value), ctx)]));
    steps.push(step.name ?? step.uses);
    if (step.uses === 'actions/setup-node@v4') continue;
    if (step.uses === 'actions/upload-artifact@v4') {
      if (existsSync(with_.path!)) await cp(with_.path!, path.join(options.artifacts, with_.name!, path.basename(with_.path!)), { recursive: true });
      continue;
    }
    if (step.uses === 'actions/download-artifact@v4') {
      const from = path.join(options.artifacts, with_.name!);
      if (!existsSync(from)) return { code: 1, output: `${output}Artifact not found for name: ${with_.name}`, outputs: {}, steps };
      await mkdir(with_.path!, { recursive: true });
      await cp(from, with_.path!, { recursive: true });
      continue;
    }
    if (step.uses !== undefined) throw new Error(`an action the test's runner does not know: ${step.uses}`);
    const env = Object.fromEntries(Object.entries((step.env ?? {}) as Node).map(([key, value]) => [key, expand(String(value), ctx)]));
    const exported = Object.fromEntries((await readFile(files.env, 'utf8')).split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    const cwd = path.resolve(options.cwd, expand(String(step['working-directory'] ?? '.'), ctx));
    const result = await runScript('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c'], step.run, cwd, {
      ...options.env,
      ...exported,
      ...env,
      RUNNER_TEMP: options.runnerTemp,
      GITHUB_OUTPUT: files.output,
      GITHUB_ENV: files.env,
      GITHUB_ACTION_PATH: repoRoot,
    });
    output += result.output;
    if (result.code !== 0) return { code: result.code, output, outputs: await stepOutputs(files.output), steps };
  }
  return { code: 0, output, outputs: await stepOutputs(files.output), steps };
}

async function stepOutputs(file: string): Promise<Record<string, string>> {
  return Object.fromEntries((await readFile(file, 'utf8')).split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/** A job's fresh temporary folder, with the voxform the Action's install step finds installed (VOXFORM_BIN). */
export async function newRunnerTemp(): Promise<{ runnerTemp: string; env: Record<string, string> }> {
  const runnerTemp = await mkdtemp(path.join(tmpdir(), 'voxform-runner-'));
  return { runnerTemp, env: { VOXFORM_BIN: path.join(repoRoot, 'bin/voxform.cjs') } };
}

export interface Component {
  spec: Node;
  body: Node;
}

export async function readComponent(): Promise<Component> {
  const [spec, body] = parseAllDocuments(await readFile(path.join(repoRoot, 'templates/voxform.yml'), 'utf8')).map((doc) => doc.toJS() as Node);
  return { spec: spec!.spec, body: body! };
}

/** The component's inputs with their defaults, `given` over them; unknown inputs, missing ones and values outside `options` throw. */
export function componentInputs(component: Component, given: Record<string, unknown>): Record<string, unknown> {
  const specs = component.spec.inputs as Node;
  for (const name of Object.keys(given)) if (!(name in specs)) throw new Error(`the component has no input "${name}"`);
  const inputs: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (given[name] === undefined && !('default' in spec)) throw new Error(`the component's input "${name}" is required`);
    const value = given[name] ?? spec.default;
    if (spec.options && !spec.options.includes(value)) throw new Error(`the component's input "${name}" is "${String(value)}", not one of ${spec.options.join(', ')}`);
    if ((spec.type ?? 'string') !== typeof value) throw new Error(`the component's input "${name}" is not a ${spec.type ?? 'string'}`);
    inputs[name] = value;
  }
  return inputs;
}

/** The component's jobs with `$[[ inputs.X ]]` replaced, in keys and values. */
export function interpolateComponent(component: Component, inputs: Record<string, unknown>): Node {
  const replace = (text: string) =>
    text.replace(/\$\[\[\s*inputs\.([\w-]+)\s*\]\]/g, (_, name: string) => {
      if (!(name in inputs)) throw new Error(`the component uses an input it does not declare: ${name}`);
      return String(inputs[name]);
    });
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return replace(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, child]) => [replace(key), walk(child)]));
    return value;
  };
  if (/\$\[\[(?!\s*inputs\.)/.test(JSON.stringify(component.body))) throw new Error('the component interpolates something other than inputs');
  return walk(component.body) as Node;
}

/** Runs a GitLab job's `before_script` and `script` as one `sh -e` script in `cwd`, the project's folder. */
export function runGitlabJob(job: Node, options: { cwd: string; env: Record<string, string> }): Promise<Run> {
  const lines = [...((job.before_script ?? []) as string[]), ...((job.script ?? []) as string[])];
  return runScript('sh', ['-ec'], lines.join('\n'), options.cwd, { ...options.env, ...Object.fromEntries(Object.entries((job.variables ?? {}) as Node).map(([k, v]) => [k, String(v)])), CI_PROJECT_DIR: options.cwd });
}
