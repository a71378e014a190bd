/**
 * The receiver example of docs/webhooks.md, as a user would use it: compiled under strict settings
 * against the `voxform` package, run, and sent both webhooks by `voxform webhook send`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../helpers/cli.js';
import { SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';

const run = promisify(execFile);

/** The TypeScript block of the "In your own server" section. */
async function receiverExample(): Promise<string> {
  const doc = await readFile(path.join(repoRoot, 'docs/webhooks.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## In your own server'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('docs/webhooks.md has no TypeScript example under "In your own server"');
  return match[1];
}

let project: ExampleProject | undefined;
const stops: Array<() => void> = [];
afterEach(async () => {
  while (stops.length > 0) stops.pop()?.();
  await project?.close();
  project = undefined;
});

async function compileExample(dir: string): Promise<string> {
  await writeFile(path.join(dir, 'receiver.ts'), await receiverExample());
  await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  await mkdir(path.join(dir, 'node_modules'), { recursive: true });
  // `voxform` as a user installs it: the package (its exports point at dist/, built before the tests).
  await symlink(repoRoot, path.join(dir, 'node_modules/voxform'), 'dir');
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noPropertyAccessFromIndexSignature: true,
    noUnusedLocals: true,
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    typeRoots: [path.join(repoRoot, 'node_modules/@types')],
    outDir: 'out',
  };
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['receiver.ts'] }));
  const tsc = path.join(repoRoot, 'node_modules/.bin/tsc');
  const compiled = await run(tsc, ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  expect(compiled.stdout).toBe('');
  return path.join(dir, 'out/receiver.js');
}

/** Starts the compiled receiver on a free port; resolves to its URL and its output so far. */
async function startReceiver(script: string, cwd: string): Promise<{ url: string; output: () => string }> {
  const child = spawn(process.execPath, [script], { cwd, env: { PATH: process.env.PATH ?? '', HOOK_TOKEN: SECRETS.HOOK_TOKEN, PORT: '0' } });
  stops.push(() => child.kill());
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  for (let waited = 0; !/listening on port \d+/.test(output); waited += 20) {
    if (waited > 20_000 || child.exitCode !== null) throw new Error(`the receiver did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url: `http://127.0.0.1:${/listening on port (\d+)/.exec(output)?.[1] ?? ''}`, output: () => output };
}

describe('the receiver example of docs/webhooks.md', () => {
  it('compiles, runs, accepts both webhooks with the right header and refuses a wrong one', async () => {
    project = await startExampleProject();
    const receiver = await startReceiver(await compileExample(project.dir), project.dir);
    const send = (event: string, env: Record<string, string> = {}) =>
      runCli(['webhook', 'send', '--to', `${receiver.url}/hook`, '--event', event, '--agent', 'front-desk'], { cwd: project!.dir, env: { ...project!.env, ...env } });

    const endOfCall = await send('end-of-call');
    expect(endOfCall.stdout).toContain('PASS  answered 200');
    expect(endOfCall.code).toBe(0);
    const prefetch = await send('prefetch');
    expect(prefetch.stdout).toMatch(/PASS {2}answered 200 .* with a PrefetchWebhookResponse: metadata keys tier; extra_prompt of 42 characters/);
    expect(prefetch.code).toBe(0);
    const wrong = await send('end-of-call', { HOOK_TOKEN: 'not-the-token-1234' });
    expect(wrong.stdout).toContain('FAIL  the receiver answered 401');
    expect(wrong.code).toBe(1);

    expect(receiver.output()).toContain('call sample-call-0001 ended: user-ended, 42 s');
    for (const output of [endOfCall.stdout, endOfCall.stderr, prefetch.stdout, wrong.stdout, wrong.stderr]) expect(output).not.toContain(SECRETS.HOOK_TOKEN);
  });
});
