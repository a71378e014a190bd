/**
 * Secrets a plan can meet outside what the manifests read now. The live agent still holds what an
 * earlier `${env:NAME}` put there: a pull request that removes the reference would otherwise show
 * the value as the one being replaced. And an agent's `name` filled from `${env:…}` (it lies outside
 * the config, where the schema's secrets are) must stay out of a saved plan's file: it is shown as written.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const GREETING = 'LIVESECRET_greet_123';
const URL_TOKEN = 'LIVESECRET_urltok_456';
const NAME = 'zqNAMESECRETzqNAME';
const env = { VOXFORM_ENV_ALLOW: 'GREETING_SECRET,URL_TOKEN,S_NAME', GREETING_SECRET: GREETING, URL_TOKEN, S_NAME: NAME };

function manifest(withReferences: boolean): string {
  return [
    'version: 1',
    'agents:',
    '  front-desk:',
    '    id: -OKdqbqetEcM4ak369ym',
    '    config:',
    withReferences ? '      first_message: "Hello ${env:GREETING_SECRET}"' : '      first_message: Hello',
    withReferences ? '      session_data_webhook: { url: "https://hooks.example.com/end?token=${env:URL_TOKEN}" }' : '      session_data_webhook: { url: https://hooks.example.com/end }',
    // Policy would stop the plan on these webhooks; this test is about what the plan shows.
    'policy: { rules: { security-url-credential: off, security-webhook-auth: off } }',
    '',
  ].join('\n');
}

it('a plan that removes an ${env:…} reference never shows the value the last apply put there', async () => {
  const project = await tempDir();
  await writeFile(path.join(project, 'voxform.yaml'), manifest(true));
  expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env })).code).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), manifest(false));
  for (const format of ['text', 'markdown', 'json']) {
    const plan = await runCliInProcess(['plan', '--local', '--format', format, '--out', 'plan.json'], { cwd: project, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('first_message');
    for (const secret of [GREETING, URL_TOKEN]) expect(plan.stdout + plan.stderr).not.toContain(secret);
  }
  // The saved plan's before values are the live ones as well.
  expect(await readFile(path.join(project, 'plan.json'), 'utf8')).not.toContain(GREETING);
  // apply prints the plan it runs, with the same before values.
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  expect(applied.stdout).toContain('first_message');
  for (const secret of [GREETING, URL_TOKEN]) expect(applied.stdout + applied.stderr).not.toContain(secret);
});

it('an agent name filled from ${env:…} is a secret: shown as written in the plan and its file, filled in at apply', async () => {
  const project = await tempDir();
  await writeFile(path.join(project, 'voxform.yaml'), ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    name: "Desk ${env:S_NAME}"', ''].join('\n'));
  const plan = await runCliInProcess(['plan', '--local', '--out', 'plan.json'], { cwd: project, env });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('~ name: "Front desk" → "Desk ${env:S_NAME}"');
  expect(await readFile(path.join(project, 'plan.json'), 'utf8')).not.toContain(NAME);
  const show = await runCliInProcess(['plan', 'show', 'plan.json'], { cwd: project });
  expect(show.stdout).toContain('~ name: "Front desk" → "Desk ${env:S_NAME}"');
  expect(show.stdout).not.toContain(NAME);
  expect((await runCliInProcess(['apply', '--local', 'plan.json'], { cwd: project, env })).code).toBe(0);
  for (const file of await readdir(path.join(project, '.voxform', 'history'))) {
    expect(await readFile(path.join(project, '.voxform', 'history', file), 'utf8')).not.toContain(NAME);
  }
  expect((await runCliInProcess(['plan', '--local', '--detailed-exitcode'], { cwd: project, env })).code).toBe(0);
});
