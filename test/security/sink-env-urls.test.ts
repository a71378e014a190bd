/**
 * `voxform test` sends every URL the live agent does not call to the sink (docs/testing.md, Secrets
 * before review). A URL written with `${env:…}` is withheld too, and withholding rebuilds such a
 * value from the manifest's text: the sink must still be what the service receives, in every kind
 * of webhook, whether the variable is set, unset or unset with a fallback.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { FRONT_DESK_ID, BOOKING_ID } from '../../src/emulator/default-seed.js';
import { SINK_URL } from '../../src/secrets/sink.js';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

/** Loopback, so a delivery that escaped the sink would be made (the emulator calls loopback only). */
const HOOK = 'http://127.0.0.1:9';

const MANIFEST = [
  'version: 1',
  'agents:',
  '  front-desk:',
  `    id: "${FRONT_DESK_ID}"`,
  '    config:',
  '      session_data_webhook:',
  `        url: "${HOOK}/end?x=\${env:NOT_SET_ANYWHERE}"`,
  '        headers: { authorization: "Bearer ${env:HOOK_TOKEN}" }',
  `      extra_prompt_webhook: "${HOOK}/prefetch\${env:NOT_SET_EITHER:-}"`,
  '      tools:',
  '        - name: lookup',
  '          description: Looks a booking up.',
  `          webhook: "${HOOK}/tool/\${env:PATH_PART}"`,
  '  booking:',
  `    id: "${BOOKING_ID}"`,
  '    config:',
  `      session_data_webhook: "${HOOK}/end/\${env:PATH_PART}"`,
  `      extra_prompt_webhook: { url: "${HOOK}/prefetch?t=\${env:NOT_SET_ANYWHERE}" }`,
  '',
].join('\n');

const TEST_OF = (agent: string) => `agent: ${agent}\ntests:\n  - name: greets\n    turns:\n      - user: hi\n        expect: [{ not_contains: never-said }]\n`;

it('test --against desired: a webhook URL written with ${env:…} reaches the service as the sink, in every kind of webhook', async () => {
  const project = await startProject();
  await writeFile(path.join(project.dir, 'voxform.yaml'), MANIFEST);
  await writeFile(path.join(project.dir, 'example', 'tests', 'front-desk.test.yaml'), TEST_OF('front-desk'));
  await writeFile(path.join(project.dir, 'example', 'tests', 'booking.test.yaml'), TEST_OF('booking'));
  const result = await project.cliInProcess(['test', 'example/tests/front-desk.test.yaml', 'example/tests/booking.test.yaml'], {
    VOXFORM_ENV_ALLOW: 'HOOK_TOKEN,PATH_PART,NOT_SET_ANYWHERE,NOT_SET_EITHER',
    HOOK_TOKEN: 'hook-token-planted-1',
    PATH_PART: 'path-part-planted-2',
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain('front-desk: tools.0.webhook, session_data_webhook.url, extra_prompt_webhook named URLs');
  expect(result.stdout).toContain('booking: session_data_webhook, extra_prompt_webhook.url named URLs');

  const sent = project.requests.filter((r) => r.path.startsWith('/chat/completions')).map((r) => JSON.parse(r.body).agent);
  const configOf = (id: string) => sent.find((agent) => agent.agent_id === id)?.agent_config;
  const frontDesk = configOf(FRONT_DESK_ID);
  expect([frontDesk.session_data_webhook.url, frontDesk.extra_prompt_webhook, frontDesk.tools[0].webhook]).toEqual([SINK_URL, SINK_URL, SINK_URL]);
  const booking = configOf(BOOKING_ID);
  expect([booking.session_data_webhook, booking.extra_prompt_webhook.url]).toEqual([SINK_URL, SINK_URL]);
  expect(JSON.stringify(sent)).not.toContain('127.0.0.1:9');
  // What the emulator delivered went to the sink only (refused there: it is not loopback).
  expect(project.emulator.control.webhookDeliveries().map((d) => d.url)).not.toContainEqual(expect.stringContaining('127.0.0.1:9'));
});
