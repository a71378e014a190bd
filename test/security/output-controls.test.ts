/**
 * The printing promise (docs/security.md, "What reaches a terminal or a comment"): a string planted
 * wherever a pull request or a caller puts text — an agent's name, first message and prompt, a test's
 * name and a caller's message, and so the call log — holding terminal controls (an SGR colour, an
 * OSC 52 clipboard write, the C1 CSI U+009B, U+0085, DEL, a bidi override) and active Markdown (a
 * mention, an HTML tag, a link, a table pipe, a backtick). Every command in every format runs
 * against the emulator on loopback, and fails on any raw control character in what it prints, on
 * JSON that does not parse, and on Markdown in which the planted text is active.
 *
 * The commands and formats come from the CLI's own command list: a new command or format without a
 * case here fails the test, so none is skipped silently.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { repoRoot, runCliInProcess, useTempDirs, type CliResult } from '../helpers/cli.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { markdownCode, markdownHtmlText, markdownText } from '../../src/util/markdown-escape.js';
import { terminalText, toJsonText } from '../../src/util/printable.js';
import { terminalColors } from '../../src/util/terminal-colors.js';
import { CLEAR_LINE } from '../../src/cli/progress.js';

const PLANT = 'Hi \u001b[31mred\u001b]52;c;ZXZpbA==\u0007 \u009b2J \u0085 \u007f \u202eright\u202c @team <img src=x onerror=alert(1)> [link](https://evil.example) | `tick` done';
/** The planted text as a YAML (and JSON) double-quoted string: every character beyond ASCII escaped. */
const PLANT_QUOTED = `"${[...PLANT].map((ch) => (ch >= ' ' && ch <= '~' ? (ch === '"' || ch === '\\' ? `\\${ch}` : ch) : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('')}"`;

/** Any control character a terminal could obey: every C0 but the line feed and the tab, DEL, C1, bidi. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** The planted Markdown, active: a mention, an HTML tag, a link (written or bare). */
const ACTIVE_MARKDOWN = [/(^|[^\w])@team/, /<img/i, /\]\(https?:\/\//, /https?:\/\/evil/];

/** Markdown as it renders actively: fenced code blocks and code spans, which show text as it is, taken out. */
function outsideCode(markdown: string): string {
  return markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '').replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, '');
}

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

const MANIFEST = `version: 1
agents:
  front-desk:
    id: "${FRONT_DESK}"
    name: ${PLANT_QUOTED}
    config:
      prompt: ${PLANT_QUOTED}
      first_message: ${PLANT_QUOTED}
campaigns:
  recall: { id: cmp_recall_2026, name: ${PLANT_QUOTED} }
knowledge:
  faq: { file: faq.md, name: ${PLANT_QUOTED} }
environments:
  staging: { agents: { front-desk: { id: -OKstagingFrontDesk01 } } }
  production: { promote_from: staging, gates: { tests: pass } }
policy:
  custom:
    - { id: planted, level: advisory, path: config.first_message, max_length: 1, description: ${PLANT_QUOTED}, hint: ${PLANT_QUOTED} }
  waivers:
    - { rule: speech-url, resource: agent.front-desk, reason: ${PLANT_QUOTED}, expires: "2999-12-31" }
`;

const TESTS = `agent: front-desk
tests:
  - name: ${PLANT_QUOTED}
    turns:
      - expect: [{ contains: never-said }]
      - user: ${PLANT_QUOTED}
        expect: [{ contains: never-said }, { contains: "@team <img src=x onerror=alert(1)> [link](https://evil.example)" }]
`;

/** An earlier result in which the planted test passed: against it, the run names the test as newly failing. */
const BASELINE = JSON.stringify({
  format_version: 1,
  against: ['desired'],
  summary: {},
  changes: [],
  tests: [{ file: 'tests/front-desk.test.yaml', agent: 'front-desk', name: PLANT, location: { file: 'tests/front-desk.test.yaml', line: 1, col: 1 }, verdicts: { desired: { status: 'passed', passes: 1, runs: 1, pass_rate: 1, results: [] } } }],
  duration_ms: 0,
});

interface Case {
  args: string[];
  /** The planted text reaches this output (its harmless words are found): the case proves something. */
  reaches?: boolean;
  /** More environment for this case. */
  env?: Record<string, string>;
  /** A long-running server: started, fed the planted text, then stopped with SIGTERM. */
  serve?: (url: string) => Promise<void>;
}

/** One case per command and format, keyed `command|format` as the CLI lists them. */
const CASES: Record<string, Case> = {
  'validate|text': { args: ['validate'] },
  'validate|json': { args: ['validate', '--format', 'json'], reaches: true },
  'validate|sarif': { args: ['validate', '--format', 'sarif'], reaches: true },
  'policy list|text': { args: ['policy', 'list'], reaches: true },
  'policy list|json': { args: ['policy', 'list', '--format', 'json'], reaches: true },
  'plan|text': { args: ['plan'], reaches: true },
  'plan|json': { args: ['plan', '--format', 'json'], reaches: true },
  'plan|markdown': { args: ['plan', '--format', 'markdown', '--out', 'plan.json'], reaches: true },
  'plan show|text': { args: ['plan', 'show', 'plan.json'], reaches: true },
  'plan show|json': { args: ['plan', 'show', 'plan.json', '--format', 'json'], reaches: true },
  'plan show|markdown': { args: ['plan', 'show', 'plan.json', '--format', 'markdown'], reaches: true },
  'drift|text': { args: ['drift'], reaches: true },
  'drift|json': { args: ['drift', '--format', 'json'], reaches: true },
  'drift|markdown': { args: ['drift', '--format', 'markdown'], reaches: true },
  // Recorded, then replayed from the recording; the caller's planted words meet a check (flagged), and the baseline names the planted test.
  'test|text': { args: ['test', '--skip-judge', '--mode', 'record'], reaches: true },
  'test|json': { args: ['test', '--skip-judge', '--format', 'json', '--mode', 'replay'], reaches: true },
  'test|junit': { args: ['test', '--skip-judge', '--format', 'junit'], reaches: true },
  'test|markdown': { args: ['test', '--skip-judge', '--format', 'markdown', '--against', 'both', '--baseline', 'base.json'], reaches: true },
  'apply|text': { args: ['apply', '--auto-approve'], reaches: true },
  'get phones|text': { args: ['get', 'phones'] },
  'get phones|json': { args: ['get', 'phones', '--format', 'json'] },
  'get agents|text': { args: ['get', 'agents'], reaches: true },
  'get agents|json': { args: ['get', 'agents', '--format', 'json'], reaches: true },
  // After `apply`: the state records the planted names voxform gave the campaign and the uploaded file.
  'get campaigns|text': { args: ['get', 'campaigns'], reaches: true },
  'get campaigns|json': { args: ['get', 'campaigns', '--format', 'json'], reaches: true },
  'get knowledge|text': { args: ['get', 'knowledge'], reaches: true },
  'get knowledge|json': { args: ['get', 'knowledge', '--format', 'json'], reaches: true },
  'completion|text': { args: ['completion', 'bash'] },
  'history|text': { args: ['history'], reaches: true },
  'promote|text': { args: ['promote', '--to', 'production', '--dry-run'] },
  'diff|text': { args: ['diff', '--env', 'staging', '--env', 'production'], reaches: true },
  'diff|json': { args: ['diff', '--env', 'staging', '--env', 'production', '--format', 'json'], reaches: true },
  'diff|markdown': { args: ['diff', '--env', 'staging', '--env', 'production', '--format', 'markdown'], reaches: true },
  'history|json': { args: ['history', '--format', 'json'] },
  'rollback|text': { args: ['rollback', 'previous', '--auto-approve'] },
  'export|text': { args: ['export', '--agent', FRONT_DESK, '--out', 'exported', '--force'] },
  'logs|text': { args: ['logs'] },
  'logs|json': { args: ['logs', '--format', 'json'], reaches: true },
  'logs|ndjson': { args: ['logs', '--format', 'ndjson'], reaches: true },
  'report|markdown': { args: ['report'] },
  'report|json': { args: ['report', '--format', 'json'] },
  'report|html': { args: ['report', '--format', 'html', '--out', 'report.html'] },
  'test capture|text': { args: ['test', 'capture', 'CALL_ID'], reaches: true },
  'chat|text': { args: ['chat', '--agent', FRONT_DESK], reaches: true },
  'keys create|text': { args: ['keys', 'create', '--type', 'public', '--name', 'PLANT'] },
  'status|text': { args: ['status'] },
  'status|json': { args: ['status', '--format', 'json'] },
  'state list|text': { args: ['state', 'list'] },
  'state list|json': { args: ['state', 'list', '--format', 'json'] },
  'state show|text': { args: ['state', 'show'] },
  'state show|json': { args: ['state', 'show', '--format', 'json'] },
  'state unlock|text': { args: ['state', 'unlock', '--force', 'PLANT'] },
  'state migrate|text': { args: ['state', 'migrate', '--to', 'migrated.json'] },
  // A workspace the state does not hold, named by the planted text: refused, naming it printable (nothing removed).
  'state rm|text': { args: ['state', 'rm', 'PLANT', '--force'] },
  'state upgrade|text': { args: ['state', 'upgrade'] },
  'webhook send|text': { args: ['webhook', 'send', '--to', 'RECEIVER', '--event', 'end-of-call', '--call', 'CALL_ID'] },
  'webhook serve|text': { args: ['webhook', 'serve', '--port', '0'], serve: (url) => send(`${url}/${encodeURIComponent(PLANT)}`), reaches: true },
  'emulator|text': { args: ['emulator', '--port', '0'], serve: (url) => feedEmulator(url), reaches: true },
  'emulator traffic|text': { args: ['emulator', 'traffic', '--url', 'EMULATOR', '--calls', '1'], reaches: true },
  'emulator traffic|json': { args: ['emulator', 'traffic', '--url', 'EMULATOR', '--calls', '1', '--format', 'json'], reaches: true },
  'init|text': { args: ['init', 'scaffolded', '--var', 'PLANT'] },
  'templates|text': { args: ['templates'] },
  'fmt|text': { args: ['fmt', '--check'] },
  'schema|text': { args: ['schema'] },
  // As a push's job (no review to comment on): the planted test name reaches the job summary, checked below.
  'ci run|text': { args: ['ci', 'run', '--provider', 'github', '--command', 'test', '--out-dir', 'ci-out', '--command-args', '--skip-judge'], env: { GITHUB_STEP_SUMMARY: 'ci-summary.md' } },
};

/**
 * Every runnable command of the CLI with the formats its `--format` offers (`text` when it has none);
 * a command whose `<kind>` argument picks what it reads (`get`) counts once per kind.
 */
function commandsAndFormats(): string[] {
  const found: string[] = [];
  const walk = (command: Command, prefix: string) => {
    for (const sub of command.commands) {
      const name = `${prefix}${sub.name()}`;
      if ((sub as unknown as { _actionHandler: unknown })._actionHandler) {
        const format = sub.options.find((option) => option.long === '--format');
        const kinds = sub.registeredArguments.find((argument) => argument.name() === 'kind')?.argChoices;
        for (const named of kinds?.map((kind) => `${name} ${kind}`) ?? [name]) for (const choice of format?.argChoices ?? ['text']) found.push(`${named}|${choice}`);
      }
      walk(sub, `${name} `);
    }
  };
  walk(buildProgram(async () => undefined), '');
  return found.filter((key) => !key.startsWith('help|'));
}

/** A GET the server logs, whatever it answers; header values go out as raw bytes (latin1), C1 controls included. */
function send(url: string, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url, { headers }, (res) => res.resume().on('end', resolve));
    req.on('error', () => resolve());
    req.end();
  });
}

/** What `/_emulator/requests` answered after the planted request: the request log, read back as JSON. */
let requestLogText = '';

async function feedEmulator(url: string): Promise<void> {
  await send(`${url}/agents/${encodeURIComponent(PLANT)}?q=${encodeURIComponent(PLANT)}`, { 'x-planted': 'Hi \u009b2J \u0085 evil' });
  requestLogText = await fetch(`${url}/_emulator/requests`).then((response) => response.text());
}

/** Runs a server command, waits for its "listening on URL" line, feeds it, then stops it with SIGTERM. */
function runServer(args: string[], cwd: string, env: Record<string, string>, feed: (url: string) => Promise<void>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), ...args], { cwd, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    let fed = false;
    const onOutput = () => {
      const listening = /listening on (http:\/\/[^\s]+)/.exec(stdout + stderr);
      if (!listening || fed) return;
      fed = true;
      void feed(listening[1] as string).finally(() => child.kill('SIGTERM'));
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), onOutput()));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), onOutput()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end();
  });
}

const tempDir = useTempDirs();
let emulator: RunningEmulator;
let receiver: Server;
let receiverUrl = '';

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'loopback' });
  // A webhook receiver whose answer is the planted text (`webhook send` shows what it answered).
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(400, { 'content-type': 'text/plain' }).end(PLANT));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await emulator.close();
});

describe('the printable-text function and the JSON serializer', () => {
  it.each([
    ['\u001b]52;c;ZXZpbA==\u0007', false, '\\u001b]52;c;ZXZpbA==\\u0007'],
    ['a\u009b2J\u0085\u007f\u202eb\u2066\u200f', false, 'a\\u009b2J\\u0085\\u007f\\u202eb\\u2066\\u200f'],
    ['line\n\tindented\r\n', false, 'line\n\tindented\\r\n'],
    ['\u001b[31mred\u001b[39m', false, '\\u001b[31mred\\u001b[39m'],
    [`${terminalColors(true).red('red')}${CLEAR_LINE}`, true, '\u001b[31mred\u001b[39m\r\u001b[K'],
    [`${terminalColors(true).red('red')}${CLEAR_LINE}`, false, 'red'],
    // The same sequences in quoted text (a file name) are not voxform's, however exactly they copy them.
    ['\u001b[31mred\u001b[39m\r\u001b[K \u001b[8mhidden', true, '\\u001b[31mred\\u001b[39m\\r\\u001b[K \\u001b[8mhidden'],
    [terminalColors(true).bold('a \u001b[8mb'), true, '\u001b[1ma \\u001b[8mb\u001b[22m'],
    ['\u001b]0;title\u0007 \u009b2J', true, '\\u001b]0;title\\u0007 \\u009b2J'],
  ])('terminalText(%j, styled %s)', (text, styled, shown) => {
    expect(terminalText(text, styled)).toBe(shown);
  });

  it('toJsonText escapes DEL, C1 and bidi controls and reads back the same value', () => {
    const value = { name: PLANT };
    const text = toJsonText(value, 2);
    expect(text).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('the Markdown escaper', () => {
  it('leaves nothing of the planted string active, in text, in HTML and in a code span', () => {
    expect(markdownText(PLANT)).toBe(
      'Hi \\\\u001b\\[31mred\\\\u001b\\]52;c;ZXZpbA==\\\\u0007 \\\\u009b2J \\\\u0085 \\\\u007f \\\\u202eright\\\\u202c @&#8203;team &lt;img src=x onerror=alert(1)&gt; \\[link\\](https:&#47;&#47;evil.example) \\| \\`tick\\` done',
    );
    expect(markdownHtmlText('<b>@team</b> & "x" www.evil.example')).toBe('&lt;b&gt;@&#8203;team&lt;/b&gt; &amp; "x" www&#46;evil.example');
    expect(markdownCode('a ``b`` | c', { inTable: true })).toBe('```a ``b`` \\| c```');
    expect(markdownCode('`edge`')).toBe('`` `edge` ``');
  });

  it('links no web address whatever stands before it: GitHub links `www.` after `_`, `*`, `~` or `(` too', () => {
    expect(markdownText('_www.evil.example (www.evil.example) *www.evil.example')).toBe('\\_www&#46;evil.example (www&#46;evil.example) \\*www&#46;evil.example');
    expect(markdownHtmlText('__www.evil.example')).toBe('__www&#46;evil.example');
    // Within a word it is no address, and stays as written.
    expect(markdownText('awww.example')).toBe('awww.example');
  });

  it.each([
    ['# heading', '\\# heading'],
    ['- item', '\\- item'],
    ['1. item', '1\\. item'],
    ['> quote', '&gt; quote'],
    ['first\nsecond', 'first second'],
    // Four spaces or a tab would start a code block, where every escape shows as written: one space parts the text from what stands before it.
    ['    indented *name*', ' indented \\*name\\*'],
    ['\tat a tab', ' at a tab'],
    ['  - item', ' \\- item'],
    [' (takes it over from staging)', ' (takes it over from staging)'],
    // A run of `#` that ends a heading's line is its closing sequence, which a heading drops.
    ['booking line #', 'booking line \\#'],
    ['booking ## ', 'booking \\## '],
  ])('escapes a line start: %j', (text, escaped) => {
    expect(markdownText(text)).toBe(escaped);
  });
});

describe('what every command prints, with a planted string of controls and Markdown', () => {
  it('has a case for every command and format the CLI offers', () => {
    expect(Object.keys(CASES).sort()).toEqual(commandsAndFormats().sort());
  });

  it('prints no raw control character and no active Markdown in any command and format', { timeout: 600_000 }, async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/front-desk.test.yaml': TESTS, 'base.json': BASELINE, 'faq.md': 'Open 9 to 5.\n' });
    const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey };
    const problems: string[] = [];
    let callId = '';
    for (const [key, testCase] of Object.entries(CASES)) {
      const args = testCase.args.map((arg) => ({ PLANT, CALL_ID: callId, RECEIVER: receiverUrl, EMULATOR: emulator.url })[arg] ?? arg);
      const result = testCase.serve
        ? await runServer(args, dir, env, testCase.serve)
        : await runCliInProcess(args, { cwd: dir, env: { ...env, ...testCase.env }, input: key.startsWith('chat|') ? `${PLANT}\n/exit\n` : '' });
      const format = key.split('|')[1] as string;
      const outputs = { stdout: result.stdout, stderr: result.stderr };
      if (key === 'logs|json') callId = (JSON.parse(result.stdout) as Array<{ call_id: string }>).find((call) => call.call_id)?.call_id ?? '';
      for (const [where, text] of Object.entries(outputs)) {
        const raw = RAW_CONTROL.exec(text);
        if (raw) problems.push(`${key} ${where}: raw U+${raw[0].charCodeAt(0).toString(16).padStart(4, '0')} near ${JSON.stringify(text.slice(Math.max(0, raw.index - 30), raw.index + 10))}`);
      }
      if (/json/.test(format) && result.code === 0) {
        const lines = format === 'ndjson' ? result.stdout.trim().split('\n') : [result.stdout];
        for (const line of lines) if (line.trim() !== '') expect(() => JSON.parse(line), `${key}: valid JSON`).not.toThrow();
      }
      if (format === 'markdown') {
        for (const pattern of ACTIVE_MARKDOWN) {
          const active = pattern.exec(outsideCode(result.stdout));
          if (active) problems.push(`${key}: active Markdown ${pattern} near ${JSON.stringify(active.input.slice(Math.max(0, active.index - 60), active.index + 40))}`);
        }
      }
      if (testCase.reaches && !/onerror|evil/.test(`${result.stdout}${result.stderr}`)) problems.push(`${key}: the planted text does not reach the output (exit ${result.code}): ${result.stderr.slice(0, 300)}`);
      if (![0, 1, 2, ...(testCase.serve ? [130] : [])].includes(result.code)) problems.push(`${key}: ended with ${result.code}: ${result.stderr.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
    // The emulator's request log, read back as JSON, holds the planted request, printable.
    expect(requestLogText).toContain('x-planted');
    expect(requestLogText).not.toMatch(RAW_CONTROL);
    expect(requestLogText).toContain(JSON.stringify('Hi \\u009b2J \\u0085 evil').slice(1, -1));
    // The job summary `ci run` wrote is Markdown a browser shows: the planted text is in it, inactive.
    const summary = await readFile(path.join(dir, 'ci-summary.md'), 'utf8');
    expect(summary).toMatch(/onerror/);
    expect(summary).not.toMatch(RAW_CONTROL);
    for (const pattern of ACTIVE_MARKDOWN) expect(outsideCode(summary)).not.toMatch(pattern);
    // The HTML report is a file, read in a browser: its data is JSON inside a script, kept valid.
    expect(await readFile(path.join(dir, 'report.html'), 'utf8')).not.toMatch(RAW_CONTROL);
  });
});
