/**
 * `voxform drift` and `plan` where the service holds a place in another shape than the manifests (the
 * service takes a webhook as a plain URL or as {url, headers}), end to end against the emulator: the
 * place is reported once, with the service's value, never as unset.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { useExampleProjects, type ExampleProject } from '../helpers/project.js';
import { editLive, FRONT_DESK, getAgent } from './live-agent.js';

const startProject = useExampleProjects();
const HOOK_TOKEN = 'planted-hook-token-5e1f0c2d';
const WEBHOOK = 'config.session_data_webhook';
const ELSEWHERE = 'https://collector.example/collect';

const MANIFEST = [
  'version: 1',
  'agents:',
  '  front-desk:',
  `    id: ${FRONT_DESK}`,
  '    name: Front desk',
  '    config:',
  '      prompt: You are the receptionist of Acme Dental. Be brief.',
  '      session_data_webhook:',
  '        url: https://hooks.example.com/voice/end-of-call',
  '        headers: { x-hook-token: "${env:HOOK_TOKEN}" }',
  '      timezone: America/New_York',
  '',
].join('\n');

type Json = Record<string, unknown>;

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  expect(`${result.stdout}${result.stderr}`).not.toContain(HOOK_TOKEN);
  return result;
}

async function projectReshaped(): Promise<ExampleProject> {
  const p = await startProject();
  await writeFile(path.join(p.dir, 'voxform.yaml'), MANIFEST);
  expectCode(await p.cliInProcess(['apply', '--auto-approve'], { HOOK_TOKEN }), 0);
  // Re-pointed on the dashboard as a plain URL: end-of-call data now goes elsewhere.
  await editLive(p, (config) => void (config.session_data_webhook = ELSEWHERE));
  return p;
}

describe('a place the service holds in another shape', () => {
  it('is one difference at that place with the service\'s value, in drift, its JSON and plan; --heal puts it back', async () => {
    const p = await projectReshaped();

    const text = expectCode(await p.cliInProcess(['drift'], { HOOK_TOKEN }), 2).stdout;
    expect(text).toContain(`~ ${WEBHOOK}: "${ELSEWHERE}" → {"headers":"(sensitive)","url":"https://hooks.example.com/voice/end-of-call"}`);
    expect(text).not.toContain('(unset)');

    const report = JSON.parse(expectCode(await p.cliInProcess(['drift', '--format', 'json'], { HOOK_TOKEN }), 2).stdout) as { resources: Array<{ class: string; fields: Json[] }> };
    expect(report.resources.map((r) => r.class)).toEqual(['outside']);
    expect(report.resources[0]?.fields).toEqual([
      { path: WEBHOOK, class: 'outside', live: ELSEWHERE, live_unset: false, manifests: { url: 'https://hooks.example.com/voice/end-of-call', headers: '(sensitive)' }, sensitive: false },
    ]);

    const plan = expectCode(await p.cliInProcess(['plan'], { HOOK_TOKEN }), 0).stdout;
    expect(plan).toContain(`~ ${WEBHOOK}: "${ELSEWHERE}" → {"headers":"(sensitive)","url":"https://hooks.example.com/voice/end-of-call"}  # drift: changed outside voxform`);

    expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve'], { HOOK_TOKEN }), 0);
    expect((await getAgent(p)).config.session_data_webhook).toEqual({ url: 'https://hooks.example.com/voice/end-of-call', headers: { 'x-hook-token': HOOK_TOKEN } });
    expect(expectCode(await p.cliInProcess(['drift'], { HOOK_TOKEN }), 0).stdout).toContain('No drift');
  }, 120_000);

  it('without the secret\'s variable, is reported in every format alike, its heal hint naming the variable the heal needs', async () => {
    const p = await projectReshaped();
    const text = expectCode(await p.cliInProcess(['drift'], { HOOK_TOKEN: undefined } as unknown as Record<string, string>), 2).stdout;
    expect(text).toContain(`~ ${WEBHOOK}: "${ELSEWHERE}" → {"headers":"(sensitive)","url":"https://hooks.example.com/voice/end-of-call"}`);
    expect(text).toContain('changed outside voxform  --heal needs HOOK_TOKEN set to put it back');
    expect(text).not.toContain('--heal puts');
    expect(text).not.toContain('Not compared');

    const report = JSON.parse(expectCode(await p.cliInProcess(['drift', '--format', 'json'], { HOOK_TOKEN: undefined } as unknown as Record<string, string>), 2).stdout) as Json & { resources: Array<{ class: string; healable: boolean; fields: Json[] }> };
    expect(report.resources.map((r) => [r.class, r.fields.map((f) => f.path)])).toEqual([['outside', [WEBHOOK]]]);
    expect(report.not_compared).toBeUndefined();

    const markdown = expectCode(await p.cliInProcess(['drift', '--format', 'markdown'], { HOOK_TOKEN: undefined } as unknown as Record<string, string>), 2).stdout;
    expect(markdown).toContain(`| \`agent.front-desk\` | changed outside voxform | \`${WEBHOOK}\` | needs HOOK_TOKEN set to put it back |`);
    expect(markdown).toContain(`! ${WEBHOOK}: "${ELSEWHERE}" → {`);
    expect(expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve'], { HOOK_TOKEN: undefined } as unknown as Record<string, string>), 2).stdout).toContain(`Still differs: agent.front-desk ${WEBHOOK} (changed outside voxform: --heal needs HOOK_TOKEN set to put it back).`);
    expect((await getAgent(p)).config.session_data_webhook).toBe(ELSEWHERE);
  }, 120_000);

  it('lists the fields that differ, never a place not compared, in every format', async () => {
    const p = await startProject();
    await writeFile(path.join(p.dir, 'voxform.yaml'), MANIFEST);
    expectCode(await p.cliInProcess(['apply', '--auto-approve'], { HOOK_TOKEN }), 0);
    await editLive(p, (config) => void (config.timezone = 'Europe/Paris'));
    const without = { HOOK_TOKEN: undefined } as unknown as Record<string, string>;

    const text = expectCode(await p.cliInProcess(['drift'], without), 2).stdout;
    expect(text).toContain('~ config.timezone: "Europe/Paris" → "America/New_York"');
    expect(text).not.toContain('~ config.session_data_webhook');
    const markdown = expectCode(await p.cliInProcess(['drift', '--format', 'markdown'], without), 2).stdout;
    expect(markdown).toContain('! config.timezone: "Europe/Paris" → "America/New_York"');
    expect(markdown).not.toContain('! config.session_data_webhook');
    const report = JSON.parse(expectCode(await p.cliInProcess(['drift', '--format', 'json'], without), 2).stdout) as { resources: Array<{ fields: Json[] }> };
    expect(report.resources.flatMap((r) => r.fields.map((f) => f.path))).toEqual(['config.timezone']);
  }, 120_000);
});
