/** What each command's `--help` adds to its options: environment, exit codes, examples, from one table. */
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { SPARE_AGENT_IDS } from '../emulator/spare-agents.js';
import { greatest } from '../util/extremes.js';

/** The package's own docs/ folder: the pages `--help` and error hints name as `docs/NAME.md` ship in it. */
const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));
const DOCS_URL = 'https://github.com/voxform/voxform/tree/main/docs';

/** Every environment variable voxform reads, with what it means. Only the operator sets these. */
const ENVIRONMENT = {
  VOXFORM_API_KEY: 'the private API key, sent as `authorization` (only to the gateway or an origin you named)',
  VOXFORM_REGION: 'the regional gateway, `us` or `eu` (beats the manifest; `--region` beats it)',
  VOXFORM_BASE_URL: 'the service base URL (beats the manifest; `--base-url` beats it)',
  VOXFORM_TRUSTED_ORIGINS: 'comma-separated origins a manifest `base_url` may name',
  VOXFORM_ENV_ALLOW: 'comma-separated names and `PREFIX_*` patterns that `${env:…}` may read',
  VOXFORM_TIMEOUT: 'how long one request may take, e.g. `30s` or `2m` (`--timeout` beats it)',
  VOXFORM_STATE: 'where state, lock and history are kept: a file path or a `postgres://` URL (`--state` beats it)',
  VOXFORM_CI_JOB_URL: 'the CI job URL a held lock names (GitHub Actions and GitLab CI are read without it)',
  VOXFORM_DEBUG: '`1`: the request log (key redacted) and stack traces',
  VOXFORM_JUDGE_URL: 'an OpenAI-compatible endpoint for `judge:` checks and simulated callers',
  VOXFORM_JUDGE_MODEL: 'the judge endpoint\'s model',
  VOXFORM_JUDGE_API_KEY: 'the judge endpoint\'s key (never printed)',
  VOXFORM_EMULATOR_LLM: 'an OpenAI-compatible model that plays the agents of `--local` and `voxform emulator`',
  VOXFORM_EMULATOR_LLM_MODEL: 'that model\'s name (`--llm-model` beats it)',
  VOXFORM_EMULATOR_LLM_API_KEY: 'that model\'s key, read from here only (never printed)',
  GITHUB_SERVER_URL: 'set by GitHub Actions: with `GITHUB_REPOSITORY`, where `report` links a deploy\'s diff',
  GITHUB_REPOSITORY: 'set by GitHub Actions: the repository (`owner/name`)',
  CI_PROJECT_URL: 'set by GitLab CI: the project, where `report` links a deploy\'s diff',
  GITHUB_TOKEN: 'the token `ci run` comments and labels with on GitHub (never printed)',
  GITHUB_API_URL: 'set by GitHub Actions: the API `ci run` talks to',
  GITHUB_GRAPHQL_URL: 'set by GitHub Actions: the GraphQL API `ci run` asks who its token is (else beside GITHUB_API_URL)',
  GITHUB_REF: 'set by GitHub Actions: `refs/pull/N/merge` names the pull request `ci run` comments on',
  GITHUB_SHA: 'set by GitHub Actions: the commit whose merged pull request `ci run --command apply` reports on',
  GITHUB_STEP_SUMMARY: 'set by GitHub Actions: the job summary `ci run` appends to',
  GITLAB_TOKEN: 'the token `ci run` writes notes and labels with on GitLab: `api` scope (never printed)',
  CI_API_V4_URL: 'set by GitLab CI: the API `ci run` talks to',
  CI_PROJECT_ID: 'set by GitLab CI: the project whose merge requests `ci run` writes notes and labels on',
  CI_COMMIT_SHA: 'set by GitLab CI: the commit whose merged merge request `ci run --command apply` reports on',
  CI_MERGE_REQUEST_IID: 'set by GitLab CI in a merge-request pipeline: the merge request `ci run` comments on',
  VOXFORM_POLICY_PACKS: 'comma-separated paths of JavaScript rule packs outside the checkout (operator code, trusted; docs/policy.md)',
  VOXFORM_TRUST_PROJECT_PACKS: '1: load rule packs inside the project too, where no pull-request code runs (docs/policy.md)',
  CI: 'set by CI services (set it to `true` where yours does not): voxform then reads only the files of the commit under review, as it holds them (docs/security.md)',
  VOXFORM_TRUST_UNCOMMITTED_FILES: '`1`: in a CI job, read files its steps wrote or changed in the checkout too, where no unreviewed change runs (docs/ci.md)',
  VOXFORM_BASE_REF: 'the git revision `plan` compares the policy with to flag relaxations (`--base` beats it); a state file in the checkout is read as it holds it too, as evidence of secrets, and one git cannot read stops the command (docs/security.md)',
  NO_COLOR: 'any value: no colour in output',
  FORCE_COLOR: '`0` or `false`: no colour on a terminal; `1`, `2`, `3` or `true`: colour in a pipe too (NO_COLOR and --no-color still win)',
  TERM: '`dumb`: a terminal that draws no escape sequences gets no colour and no progress line',
} as const;

type EnvironmentName = keyof typeof ENVIRONMENT;

/** What talks to the service reads: the key, where to send it, and how long to wait. */
const SERVICE_ENV: EnvironmentName[] = ['VOXFORM_API_KEY', 'VOXFORM_REGION', 'VOXFORM_BASE_URL', 'VOXFORM_TIMEOUT'];
/** What reads the project's files reads (src/project-files/checkout-files.ts): in a CI job, only the commit's files. */
const PROJECT_FILES_ENV: EnvironmentName[] = ['CI', 'VOXFORM_TRUST_UNCOMMITTED_FILES'];
/** What reads manifests reads besides (the operator's base URL is trusted as a manifest's `base_url`). */
const MANIFEST_ENV: EnvironmentName[] = ['VOXFORM_ENV_ALLOW', 'VOXFORM_TRUSTED_ORIGINS', 'VOXFORM_BASE_URL', ...PROJECT_FILES_ENV];
const ALWAYS_ENV: EnvironmentName[] = ['VOXFORM_DEBUG', 'NO_COLOR', 'FORCE_COLOR', 'TERM'];
/** What reads or writes state reads besides. */
const STATE_ENV: EnvironmentName[] = ['VOXFORM_STATE'];
/**
 * What reads the operator's state as the evidence of which live values are secret reads besides
 * (src/state/trusted-secrets.ts: every command that plans, or reads live agents or calls): a state
 * file in the checkout is read as the base revision holds it too, and a base git cannot read stops
 * the command (`state_base_unreadable`, src/state/state-at-revision.ts).
 */
const SECRET_EVIDENCE_ENV: EnvironmentName[] = [...STATE_ENV, 'VOXFORM_BASE_REF'];
/** What checks the manifests' policy reads besides (src/cli/policy-check.ts): the operator's rule packs. */
const POLICY_ENV: EnvironmentName[] = ['VOXFORM_POLICY_PACKS', 'VOXFORM_TRUST_PROJECT_PACKS'];
/** What `ci run` reads of the CI runner to report (src/ci/): the token, API, project, review and commit; a bad one stops it. */
const CI_RUNNER_ENV: EnvironmentName[] = ['GITHUB_TOKEN', 'GITHUB_API_URL', 'GITHUB_GRAPHQL_URL', 'GITHUB_REPOSITORY', 'GITHUB_REF', 'GITHUB_SHA', 'GITHUB_STEP_SUMMARY', 'GITLAB_TOKEN', 'CI_API_V4_URL', 'CI_PROJECT_ID', 'CI_MERGE_REQUEST_IID', 'CI_COMMIT_SHA'];

const OK_OR_ERROR = ['0  success', '1  an error (error[CODE] and one sentence on stderr, with file:line:col where a file is at fault; docs/errors.md explains each CODE)'];
/**
 * Every command exits 130 when Ctrl-C or SIGTERM stops it (src/cli/run-command.ts, docs/errors.md): said by
 * renderCommandHelp of each command whose table gives no 130 line of its own.
 */
const INTERRUPTED = '130  interrupted (Ctrl-C or SIGTERM): error[interrupted] says what the stop left undone';
/** Apply's and rollback's: what reached the service is reported as such, whole changes or parts of them. */
const APPLY_INTERRUPTED = '130  interrupted (Ctrl-C or SIGTERM): no new write is sent, those in flight are awaited; the summary lists what reached the service';

interface CommandHelp {
  environment: EnvironmentName[];
  /** OK_OR_ERROR where a command's table gives none. */
  exitCodes?: string[];
  examples: string[];
}

/** Keyed by the command's full name as the user types it (`keys create`). */
export const COMMAND_HELP: Record<string, Required<CommandHelp>> = withExitCodes({
  validate: {
    environment: [...MANIFEST_ENV, ...POLICY_ENV],
    exitCodes: ['0  the manifests are valid and no mandatory policy rule is violated', '1  problems or mandatory policy violations (each with file:line:col and its code, which docs/errors.md explains)'],
    examples: ['voxform validate', 'voxform validate -f agents/ --env staging', 'voxform validate --format json', 'voxform validate --format sarif > voxform.sarif'],
  },
  plan: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV, ...POLICY_ENV],
    exitCodes: [...OK_OR_ERROR, '1  also: a mandatory policy violation (the plan is printed)', '2  changes present (with --detailed-exitcode; 0 then means none)'],
    examples: ['voxform plan', 'voxform plan --format markdown --base origin/main --out plan.json > plan.md', 'voxform plan --detailed-exitcode --env production'],
  },
  'policy list': {
    environment: [...MANIFEST_ENV, ...POLICY_ENV],
    examples: ['voxform policy list', 'voxform policy list --format json'],
  },
  'plan show': {
    environment: [],
    exitCodes: ['0  the plan was printed', '1  the file is missing, damaged, or not a voxform plan'],
    examples: ['voxform plan show plan.json', 'voxform plan show plan.json --format markdown > comment.md', 'voxform plan show plan.json --format json'],
  },
  apply: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV, ...POLICY_ENV, 'VOXFORM_CI_JOB_URL'],
    exitCodes: ['0  everything applied', '1  an error, a failed change or a stale plan', APPLY_INTERRUPTED],
    examples: ['voxform apply', 'voxform apply plan.json', 'voxform apply --local --auto-approve --target agent.front-desk'],
  },
  drift: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV, 'VOXFORM_CI_JOB_URL'],
    exitCodes: [
      '0  no drift: the service matches the manifests (after --heal: nothing is left to differ)',
      '1  an error, or a notification that was not delivered (the reason is said)',
      "2  drift: something differs, of any class (changed outside voxform, in git not applied yet, both, not labelled, changed by another environment's apply, or no apply recorded in this state)",
      '130  interrupted (Ctrl-C or SIGTERM); with --watch, the way it stops',
    ],
    examples: [
      'voxform drift',
      'voxform drift --format json --notify https://hooks.example.com/voxform',
      'voxform drift --notify "$SLACK_WEBHOOK_URL" --notify-format slack',
      'voxform drift --heal --auto-approve',
      'voxform drift --watch 5m --notify "$SLACK_WEBHOOK_URL" --notify-format slack',
    ],
  },
  rollback: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV, 'VOXFORM_CI_JOB_URL'],
    exitCodes: ['0  the recorded configuration is applied', '1  an error (unknown or ambiguous REF, a variable missing), a failed change', APPLY_INTERRUPTED],
    examples: ['voxform rollback previous', 'voxform rollback 3f9a2c1 --agent front-desk', 'voxform rollback previous --local --auto-approve'],
  },
  promote: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV, ...POLICY_ENV, 'VOXFORM_CI_JOB_URL'],
    exitCodes: ['0  the source\'s configuration is applied (with --dry-run: every gate passes)', '1  a gate refuses, the checkout is not the source\'s commit, an error, a failed change', APPLY_INTERRUPTED],
    examples: ['voxform promote --to production --dry-run', 'voxform promote --to production', 'voxform promote --to production --from staging --auto-approve'],
  },
  diff: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV],
    examples: ['voxform diff --env staging --env production', 'voxform diff --env staging --env production --format json'],
  },
  history: {
    environment: ['VOXFORM_REGION', 'VOXFORM_BASE_URL', ...MANIFEST_ENV, ...STATE_ENV],
    examples: ['voxform history', 'voxform history --agent front-desk --limit 5', 'voxform history --local --format json'],
  },
  export: {
    // The manifest it writes is loaded and checked as plan will: the operator's allow-list and policy.
    environment: [...SERVICE_ENV, ...SECRET_EVIDENCE_ENV, 'VOXFORM_ENV_ALLOW', ...POLICY_ENV],
    examples: ['voxform export --agent -OKdqbqetEcM4ak369ym --out exported', 'voxform export --from-phones --local --out exported'],
  },
  init: {
    // The state is a file init must not write over.
    environment: [...STATE_ENV],
    // Every variable a template needs is given: without a terminal, init asks for none.
    examples: [
      `voxform init --template post-call-survey --var agent_id=${SPARE_AGENT_IDS[0]} --var business="Acme Dental" --var results_webhook_url=https://hooks.example.com/survey survey`,
      `voxform init --template receptionist --var agent_id=${SPARE_AGENT_IDS[0]} --var business="Acme Dental" --var business_description="a family dental practice" --var opening_hours="Monday to Friday 8am to 6pm" --var transfer_number=+15551239999 acme`,
    ],
  },
  templates: {
    environment: [],
    examples: ['voxform templates'],
  },
  fmt: {
    environment: PROJECT_FILES_ENV,
    exitCodes: ['0  formatted (with --check: already formatted)', '1  an error (with --check: files to format, listed)'],
    examples: ['voxform fmt', 'voxform fmt --check', 'voxform fmt agents/'],
  },
  emulator: {
    environment: ['VOXFORM_EMULATOR_LLM', 'VOXFORM_EMULATOR_LLM_MODEL', 'VOXFORM_EMULATOR_LLM_API_KEY'],
    exitCodes: ['0  never: the emulator runs until it is stopped', '1  could not start (the port is taken, a bad seed file)', '130  stopped with Ctrl-C or SIGTERM, its data file flushed (it says so)'],
    examples: ['voxform emulator', 'voxform emulator --port 4010 --data account.json', 'voxform emulator --latency 50-200 --fail-rate 0.05', 'voxform emulator --traffic steady --traffic-seed 7'],
  },
  'emulator traffic': {
    environment: [...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV],
    exitCodes: ['0  the calls were added', '1  a bad profile or flag, no emulator at --url, or no agent to give a call (nothing was added)'],
    examples: ['voxform emulator traffic --local', 'voxform emulator traffic --local --profile volatile --calls 500 --seed 7', 'voxform emulator traffic --url http://127.0.0.1:4010 --profile traffic.yaml --agent front-desk'],
  },
  logs: {
    environment: [...SERVICE_ENV, ...SECRET_EVIDENCE_ENV],
    examples: ['voxform logs --local', 'voxform logs --agent front-desk --since 24h', 'voxform logs --status error --format ndjson --all'],
  },
  report: {
    environment: [...SERVICE_ENV, ...STATE_ENV, 'GITHUB_SERVER_URL', 'GITHUB_REPOSITORY', 'CI_PROJECT_URL'],
    examples: ['voxform report --local', 'voxform report --agent front-desk --since 7d --format html --out report.html', 'voxform report --since-deploy --format markdown > comment.md'],
  },
  'keys create': {
    environment: [...SERVICE_ENV],
    examples: ['voxform keys create --type public --name website', 'voxform keys create --type private --local'],
  },
  chat: {
    environment: [...SERVICE_ENV, ...SECRET_EVIDENCE_ENV],
    examples: ['voxform chat --agent front-desk --local', 'voxform chat --agent -OKdqbqetEcM4ak369ym --local'],
  },
  test: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV, 'VOXFORM_JUDGE_URL', 'VOXFORM_JUDGE_MODEL', 'VOXFORM_JUDGE_API_KEY', 'VOXFORM_EMULATOR_LLM', 'VOXFORM_EMULATOR_LLM_MODEL', 'VOXFORM_EMULATOR_LLM_API_KEY'],
    exitCodes: ['0  every test met its pass rate', '1  a test failed, or an error'],
    examples: ['voxform test example/tests -f agents.example.yaml --local', 'voxform test --against both --format markdown --out tests.md', 'voxform test --skip-judge --grep greets'],
  },
  'test capture': {
    environment: [...SERVICE_ENV, ...SECRET_EVIDENCE_ENV],
    examples: ['voxform test capture CALL_ID --out tests/captured.test.yaml', 'voxform test capture CALL_ID --local --out tests/captured.test.yaml'],
  },
  'webhook send': {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV],
    exitCodes: ['0  the receiver answered as the service expects, within its 2 s budget', '1  the receiver failed the check (the result says why), or an error'],
    examples: [
      'voxform webhook send --to http://127.0.0.1:4020/hook --event end-of-call',
      'voxform webhook send --to http://127.0.0.1:4020/hook --event prefetch --agent front-desk',
      'voxform webhook send --to-configured --agent front-desk --event end-of-call --call CALL_ID --local',
    ],
  },
  'webhook serve': {
    environment: [...MANIFEST_ENV],
    exitCodes: ['0  never: the receiver runs until it is stopped', '1  could not start (the port is taken, a bad --prefetch-response file)', '130  stopped with Ctrl-C or SIGTERM (it says so)'],
    examples: ['voxform webhook serve', 'voxform webhook serve --port 4020 --agent front-desk --prefetch-response prefetch.json'],
  },
  status: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...STATE_ENV],
    exitCodes: ['0  the key is a private key the service accepted', '1  the key is missing, public or refused, the service did not answer, or an error (the report is printed)'],
    examples: ['voxform status', 'voxform status --local', 'voxform status --env production --format json'],
  },
  'state list': {
    environment: [...STATE_ENV],
    examples: ['voxform state list', 'voxform state list --state postgres://voxform@db.internal/voxform --format json'],
  },
  'state show': {
    environment: [...STATE_ENV],
    exitCodes: ['0  the workspace was shown', '1  no such workspace (or several and none named), or an error'],
    examples: ['voxform state show', 'voxform state show production@https://api-west.millis.ai --format json'],
  },
  'state rm': {
    environment: [...STATE_ENV],
    exitCodes: [
      '0  the workspace\'s state was removed (its deploy history is kept; nothing on the service changes)',
      '1  no such workspace, its lock is held, the answer was not yes, --force is missing without a terminal, or an error',
      '130  interrupted (Ctrl-C or SIGTERM): nothing was removed, unless the stop came while the state was being written (it says so)',
    ],
    examples: ['voxform state rm default@https://api-west.millis.ai', 'voxform state rm --force default@local'],
  },
  'state unlock': {
    environment: [...STATE_ENV],
    exitCodes: ['0  the lock was opened', '1  no lock of that id is held, --force is missing, or an error'],
    examples: ['voxform state unlock --force 3f9a2c0d11b84e7a'],
  },
  'state migrate': {
    environment: [...STATE_ENV],
    exitCodes: ['0  copied and checked', '1  the target is not empty (without --force), the check failed, or an error'],
    examples: ['voxform state migrate --to "$DATABASE_URL"', 'voxform state migrate --state .voxform/state.json --to postgres://voxform@db.internal/voxform'],
  },
  'state upgrade': {
    environment: [...STATE_ENV],
    exitCodes: ['0  the database is at this voxform\'s schema (upgraded, or already)', '1  the role may not upgrade the tables, the database is of a newer voxform, or an error'],
    examples: ['voxform state upgrade --state "$DATABASE_URL"'],
  },
  get: {
    environment: [...SERVICE_ENV, ...MANIFEST_ENV, ...SECRET_EVIDENCE_ENV],
    exitCodes: ['0  listed', '1  NAME is no phone, agent, campaign or knowledge file found (phone_unknown, agent_unknown, campaign_unknown, knowledge_unknown), or an error'],
    examples: ['voxform get phones', 'voxform get agents --local', 'voxform get agents front-desk --format json'],
  },
  completion: {
    environment: [...MANIFEST_ENV],
    examples: ['voxform completion bash > ~/.local/share/bash-completion/completions/voxform', 'voxform completion zsh > "${fpath[1]}/_voxform"', 'voxform completion fish > ~/.config/fish/completions/voxform.fish'],
  },
  'ci run': {
    // With what each command it runs reads (commandsRunBy).
    environment: CI_RUNNER_ENV,
    exitCodes: [
      '0  the command succeeded (drift: in sync) and its report is posted',
      '1  the command failed (a test, a gate, an error), or the comment, labels or summary could not be written',
      '2  drift found (--command drift)',
    ],
    examples: [
      'voxform ci run --provider github --command plan --env production',
      'voxform ci run --provider gitlab --command test --command-args "--skip-judge"',
      'voxform ci run --provider github --command promote --env production --command-args "--from staging --auto-approve"',
    ],
  },
  schema: {
    environment: [],
    examples: ['voxform schema > .voxform/manifest.schema.json'],
  },
});

function withExitCodes(table: Record<string, CommandHelp>): Record<string, Required<CommandHelp>> {
  return Object.fromEntries(Object.entries(table).map(([name, help]) => [name, { exitCodes: OK_OR_ERROR, ...help }]));
}

function fullName(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/** `130  interrupted` and `0  success` line up: the code padded to three columns. */
function alignExitCode(line: string): string {
  const [code = '', ...rest] = line.split('  ');
  return `  ${code.padEnd(3)}  ${rest.join('  ')}`;
}

/** The command's exit codes, 130 among them: its own words for an interruption, else INTERRUPTED. */
function exitCodes(help: Required<CommandHelp>): string[] {
  return help.exitCodes.some((line) => line.startsWith('130 ')) ? help.exitCodes : [...help.exitCodes, INTERRUPTED];
}

/**
 * The variables an option of the command stands in for: `--state` beside VOXFORM_STATE, `-f` beside
 * what reading manifests reads. Listed whatever the table says, so a command given the option lists them.
 */
const OPTION_ENV: Record<string, readonly EnvironmentName[]> = {
  '--state': STATE_ENV,
  '--file': MANIFEST_ENV,
  '--timeout': ['VOXFORM_TIMEOUT'],
  '--base-url': ['VOXFORM_BASE_URL'],
  '--region': ['VOXFORM_REGION'],
};

/** The variables a command's options imply. */
function optionEnvironment(command: Command): EnvironmentName[] {
  return command.options.flatMap((option) => OPTION_ENV[option.long ?? ''] ?? []);
}

/**
 * The commands `command` runs as its own work, named by the choices of its `--command` option
 * (`ci run --command plan`): each one's variables are read in the run too.
 */
function commandsRunBy(command: Command, program: Command): Command[] {
  const choices = command.options.find((option) => option.long === '--command')?.argChoices ?? [];
  return choices.flatMap((name) => program.commands.filter((each) => each.name() === name));
}

/** Every variable `command` reads: its table's, its options', and those of the commands it runs. */
function environmentOf(command: Command, program: Command): EnvironmentName[] {
  const ran = commandsRunBy(command, program).flatMap((each) => environmentOf(each, program));
  return [...new Set([...(COMMAND_HELP[fullName(command)]?.environment ?? []), ...optionEnvironment(command), ...ran])];
}

function renderCommandHelp(help: Required<CommandHelp>, read: readonly EnvironmentName[]): string {
  const environment = [...new Set([...read, ...ALWAYS_ENV])];
  const width = greatest(environment.map((name) => name.length));
  return [
    '',
    'Environment:',
    ...environment.map((name) => `  ${name.padEnd(width)}  ${ENVIRONMENT[name]}`),
    '',
    'Exit codes:',
    ...exitCodes(help).map(alignExitCode),
    '',
    'Examples:',
    ...help.examples.map((line) => `  $ ${line}`),
    '',
  ].join('\n');
}

/** Adds the table's section to every command's help (the help test catches a command missing from the table). */
export function addCommandHelp(program: Command): void {
  program.addHelpText('after', `\nDocumentation: docs/*.md, in this package at ${DOCS_DIR}\n  and at ${DOCS_URL}\n`);
  const visit = (command: Command) => {
    for (const sub of command.commands) {
      const help = COMMAND_HELP[fullName(sub)];
      if (help) sub.addHelpText('after', renderCommandHelp(help, environmentOf(sub, program)));
      visit(sub);
    }
  };
  visit(program);
}
