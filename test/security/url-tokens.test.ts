/**
 * A webhook's or tool's URL carries its token in user info or a query value. Every command treats
 * those parts as secrets (docs/security.md §5): the CLI registers the tokens of every URL in a
 * service's answers, so `plan`, `drift` and `logs` in every format show them as `(sensitive)`, and the
 * emulator's log line of a delivery masks them too. A query value too short to search for (`?v=2`)
 * stays readable, as every short secret does. A manifest's own URL is in git: its query values are
 * not searched for, or a pull request could hide any word it chose from every output.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerUrlTokens } from '../../src/secrets/url-tokens.js';
import { callService, useExampleProjects } from '../helpers/project.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

/** The live tokens a dashboard edit puts in the front desk's URLs (a password holding a raw `@`). */
const PLANTED = {
  password: 'TOPSECRETPW@4e1',
  hookToken: 'TOPSECRETQ-8a2',
  toolKey: 'TOPSECRETTOOL-c93',
};
/** The value the manifest's own tool URL writes: in git, so shown. */
const MANIFEST_KEY = 'MANIFESTKEY-2d7';

const startProject = useExampleProjects();

/** An example project whose live front desk calls URLs holding the planted tokens (port 9 refuses), and whose manifest's tool URL holds one. */
async function projectWithUrlTokens(log: string[]) {
  const project = await startProject({ quiet: false, log: (line) => log.push(line) });
  const manifest = path.join(project.dir, 'voxform.yaml');
  await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('webhook: https://api.example.com/calendar/slots', `webhook: https://api.example.com/calendar/slots?account=${MANIFEST_KEY}&v=2`));
  await callService(project, 'PUT', `/agents/${FRONT_DESK}`, {
    name: 'Front desk',
    config: {
      session_data_webhook: { url: `http://u:${PLANTED.password}@127.0.0.1:9/end?token=${PLANTED.hookToken}&v=2`, headers: { 'x-hook-token': 'TOPSECRET1-hdr' } },
      // One slash after the scheme, as URL parsers accept it.
      tools: [{ name: 'lookup', description: 'Looks a patient up.', webhook: ` https:/api.example.com/lookup?key=${PLANTED.toolKey}`, method: 'GET' }],
    },
  });
  return project;
}

function expectNoToken(output: string): void {
  for (const token of Object.values(PLANTED)) expect(output).not.toContain(token);
}

describe('URL tokens are secrets in every command', () => {
  it('plan (text, JSON, Markdown) and drift (JSON) show the live URLs with their tokens as (sensitive), the manifest\'s as written', async () => {
    const project = await projectWithUrlTokens([]);
    for (const format of ['text', 'json', 'markdown']) {
      const result = await project.cliInProcess(['plan', '--format', format]);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expectNoToken(result.stdout + result.stderr);
      // The URL is still shown, its short query value readable.
      expect(result.stdout).toContain('127.0.0.1:9/end?token=(sensitive)&v=2');
      expect(result.stdout).toContain(`slots?account=${MANIFEST_KEY}&v=2`);
    }
    const drift = await project.cliInProcess(['drift', '--format', 'json']);
    expect(drift.code, drift.stderr).toBe(2);
    expectNoToken(drift.stdout + drift.stderr);
    expect(drift.stdout).toContain('http://(sensitive)@127.0.0.1:9/end?token=(sensitive)&v=2');
  });

  it('logs (JSON, NDJSON) show a call record’s URLs with their tokens as (sensitive), and the emulator’s log its delivery', async () => {
    const log: string[] = [];
    const project = await projectWithUrlTokens(log);
    const { call_id } = (await callService(project, 'POST', '/register_call', { agent_id: FRONT_DESK })) as { call_id: string };
    await callService(project, 'POST', `/_emulator/calls/${call_id}/end`, { status: 'user-ended' });
    for (const format of ['json', 'ndjson']) {
      const result = await project.cliInProcess(['logs', '--format', format]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(call_id);
      expectNoToken(result.stdout + result.stderr);
      expect(result.stdout).toContain('lookup?key=(sensitive)');
    }
    const delivery = log.find((line) => line.includes('webhook end_of_call'));
    // The log has no registry to tell a short value from a token: it hides every value.
    expect(delivery).toContain('POST http://(sensitive)@127.0.0.1:9/end?token=(sensitive)&v=(sensitive) → ');
    expectNoToken(log.join('\n'));
  });
});

describe('registerUrlTokens', () => {
  /** The tokens handed on for one answer string. */
  const tokensOf = (text: string): string[] => {
    const found: string[] = [];
    registerUrlTokens(text, (token) => found.push(token));
    return found;
  };

  it('finds the user, the password, the whole user info and each query value, as written and decoded', () => {
    expect(tokensOf('https://botuser:pa%40ssword@h.example/x?token=abc%2Bdef&flag&x=&q=one+two#frag')).toEqual([
      'botuser', 'pa%40ssword', 'pa@ssword', 'botuser:pa%40ssword', 'botuser:pa@ssword', 'abc%2Bdef', 'abc+def', 'one+two', 'one two',
    ]);
    expect(tokensOf('https://h.example/x?flag#frag')).toEqual([]);
    expect(tokensOf('not a url?token=abcdefgh')).toEqual([]);
    // User info up to the last `@`, white space before the URL, one slash after the scheme.
    expect(tokensOf('https://service:pass@word@h.example/x')).toEqual(['service', 'pass@word', 'service:pass@word']);
    expect(tokensOf(' https:/h.example/x?auth=one-slash-1')).toEqual(['one-slash-1']);
    expect(tokensOf('See https://h.example/x?auth=in-prose-1 for more')).toEqual([]);
  });

  it('hands on only the tokens the scrub searches for, from every string of a deeply nested answer', () => {
    let nested: unknown = { url: 'https://h.example/x?token=long-enough-1&v=2', user: 'ftp://ab@h' };
    for (let depth = 0; depth < 100_000; depth++) nested = [nested];
    const found: string[] = [];
    registerUrlTokens(nested, (token) => found.push(token));
    expect(found.sort()).toEqual(['long-enough-1']);
    // voxform's own mock and sink hosts reach nothing: what a test file wrote there is no secret.
    const mocked: string[] = [];
    registerUrlTokens({ webhook: 'https://mock.voxform.invalid/?returns=%7B%22slots%22%3A%5B%2211%3A30%22%5D%7D' }, (token) => mocked.push(token));
    expect(mocked).toEqual([]);
  });
});

describe('what a pull request writes cannot hide words', () => {
  it('the query values of a manifest URL and of --local answers are not searched for: the plan\'s JSON keys and words stay', async () => {
    const project = await startProject({});
    const manifest = path.join(project.dir, 'voxform.yaml');
    const chosen = 'summary=1&b=resource_changes&c=update&d=mandatory';
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('webhook: https://api.example.com/calendar/slots', `webhook: https://api.example.com/calendar/slots?a=${chosen}`));
    // Applied, the URL is also in the embedded emulator's answers: the folder's own file, which the pull request may write too.
    const applied = await project.cliInProcess(['apply', '--local', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const result = await project.cliInProcess(['plan', '--format', 'json', '--local']);
    const plan = JSON.parse(result.stdout) as { summary?: unknown; resource_changes?: unknown };
    expect(plan.summary).toBeDefined();
    expect(plan.resource_changes).toBeDefined();
    expect(result.stdout).not.toContain('(sensitive)d');
  });
});
