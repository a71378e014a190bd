/**
 * The receiver example of docs/webhooks.md, as a user would use it: compiled under strict settings
 * against the `voxform` package, run, and sent both webhooks by `voxform webhook send`.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { compileExample, typescriptExample } from '../helpers/doc-example.js';
import { SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
const stops: Array<() => void> = [];
afterEach(async () => {
  while (stops.length > 0) stops.pop()?.();
  await project?.close();
  project = undefined;
});

async function compileReceiver(dir: string): Promise<string> {
  const { diagnostics, script } = await compileExample(dir, 'receiver', await typescriptExample('docs/webhooks.md', '## In your own server'));
  expect(diagnostics).toBe('');
  return script;
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

/** The example manifest's front desk has no prefetch webhook: one with the token header, as the example's receiver expects. */
async function givePrefetchWebhook(dir: string): Promise<void> {
  const manifest = path.join(dir, 'voxform.yaml');
  const text = await readFile(manifest, 'utf8');
  const endOfCall = '      session_data_webhook:\n';
  expect(text).toContain(endOfCall);
  const prefetch = '      extra_prompt_webhook:\n        url: https://hooks.example.com/voice/prefetch\n        headers:\n          x-hook-token: ${env:HOOK_TOKEN:-local-dev-token}\n';
  await writeFile(manifest, text.replace(endOfCall, prefetch + endOfCall));
}

describe('the receiver example of docs/webhooks.md', () => {
  it('compiles, runs, accepts both webhooks with the right header and refuses either with a wrong one', async () => {
    project = await startExampleProject();
    await givePrefetchWebhook(project.dir);
    const receiver = await startReceiver(await compileReceiver(project.dir), project.dir);
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
    // The prefetch endpoint checks the headers too: copied, the example is no unauthenticated endpoint.
    const wrongPrefetch = await send('prefetch', { HOOK_TOKEN: 'not-the-token-1234' });
    expect(wrongPrefetch.stdout).toContain('FAIL  the receiver answered 401');
    expect(wrongPrefetch.code).toBe(1);

    expect(receiver.output()).toContain('call sample-call-0001 ended: user-ended, 42 s');
    for (const output of [endOfCall.stdout, endOfCall.stderr, prefetch.stdout, wrong.stdout, wrong.stderr, wrongPrefetch.stdout, wrongPrefetch.stderr]) expect(output).not.toContain(SECRETS.HOOK_TOKEN);
  });
});
