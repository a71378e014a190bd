/**
 * Docs that run: every shell example in README.md and docs/ is run as written, in a fresh copy of the
 * example project, against the emulator. An example that cannot run here (it needs a real account,
 * starts a server that runs until Ctrl-C, or is a usage synopsis) says so in the line before its
 * fence — `<!-- not runnable: REASON -->` — and the reason must be given.
 *
 * The folder holds what a reader set up per the README has, and nothing more: agents.example.yaml
 * with example/ (no voxform.yaml, so an example names its manifest with -f, as the README does) and
 * no secret in the environment (the example's ${env:…} references fall back). An example without
 * --local talks to the emulator as the README's "Install in your project" leaves it running:
 * VOXFORM_BASE_URL and VOXFORM_API_KEY set.
 * Installing is already done in the test (npm is a stand-in that accepts `npm ci`, `npm install`
 * and `npm run build`); `voxform` and `npx voxform` run the built CLI of this checkout.
 */
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { repoRoot, useTempDirs } from '../helpers/cli.js';

interface ShellExample {
  file: string;
  line: number;
  script: string;
  notRunnable: string | undefined;
}

const FENCE = /^```(sh|bash|shell|console)\s*$/;
const NOT_RUNNABLE = /^<!--\s*not runnable:\s*(.*?)\s*-->\s*$/;

/** A block written as a transcript (`$ command` then output) runs its `$` lines only. */
function scriptOf(lines: string[]): string {
  const transcript = lines.some((line) => line.startsWith('$ '));
  if (!transcript) return lines.join('\n');
  return lines.filter((line) => line.startsWith('$ ')).map((line) => line.slice(2)).join('\n');
}

export function extractShellExamples(file: string, text: string): ShellExample[] {
  const lines = text.split('\n');
  const examples: ShellExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i] ?? '')) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? '').startsWith('```'); i++) body.push(lines[i] ?? '');
    const marker = NOT_RUNNABLE.exec(lines[start - 1] ?? '');
    examples.push({ file, line: start + 1, script: scriptOf(body), notRunnable: marker ? marker[1] : undefined });
  }
  return examples;
}

async function markdownFiles(): Promise<string[]> {
  const docs = await readdir(path.join(repoRoot, 'docs'), { recursive: true });
  return ['README.md', ...docs.filter((name) => name.endsWith('.md')).map((name) => path.join('docs', name))].sort();
}

const STAND_INS: Record<string, string> = {
  voxform: `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, 'bin/voxform.cjs')}" "$@"\n`,
  npx: '#!/bin/sh\nif [ "$1" = voxform ]; then shift; exec voxform "$@"; fi\necho "docs test: npx $* is not available here" >&2; exit 1\n',
  npm: [
    '#!/bin/sh',
    'case "$1 $2" in',
    '  "ci "*|"install "*|"run build") echo "docs test: npm $* (already done)"; exit 0 ;;',
    'esac',
    'echo "docs test: npm $* is not available here" >&2; exit 1',
    '',
  ].join('\n'),
};

function runScript(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, stdio: 'pipe' });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
    child.stdin.end();
  });
}

const tempDir = useTempDirs();
const examples: ShellExample[] = [];
for (const file of await markdownFiles()) examples.push(...extractShellExamples(file, await readFile(path.join(repoRoot, file), 'utf8')));

describe('shell examples in README.md and docs/', () => {
  let emulator: RunningEmulator;
  let standIns: string;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'loopback' });
    // Kept for the whole file (the per-test folders are removed after each test).
    standIns = await mkdtemp(path.join(tmpdir(), 'voxform-docs-bin-'));
    for (const [name, script] of Object.entries(STAND_INS)) {
      await writeFile(path.join(standIns, name), script);
      await chmod(path.join(standIns, name), 0o755);
    }
  });
  afterAll(async () => {
    await emulator?.close();
    if (standIns) await rm(standIns, { recursive: true, force: true });
  });

  it('finds the examples, most of them runnable', () => {
    const runnable = examples.filter((example) => example.notRunnable === undefined);
    expect(runnable.length).toBeGreaterThanOrEqual(examples.length / 3);
    expect(runnable.length).toBeGreaterThan(1);
  });

  for (const example of examples) {
    const where = `${example.file}:${example.line}`;
    if (example.notRunnable !== undefined) {
      it(`${where} is marked not runnable, with a reason`, () => {
        expect(example.notRunnable, where).toMatch(/\w{3,}/);
      });
      continue;
    }
    it(`${where} runs as written`, async () => {
      const dir = await tempDir();
      await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'agents.example.yaml'));
      await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
      await mkdir(path.join(dir, 'home'));
      const env = {
        PATH: `${standIns}:${process.env.PATH ?? ''}`,
        HOME: path.join(dir, 'home'),
        NO_COLOR: '1',
        VOXFORM_BASE_URL: emulator.url,
        VOXFORM_API_KEY: emulator.apiKey,
      };
      const result = await runScript(example.script, dir, env);
      expect(result.code, `${where} failed:\n${example.script}\n--- output ---\n${result.output}`).toBe(0);
    });
  }
});
