/**
 * Apply reads an agent back after updating it and warns where the agent holds otherwise what the
 * update sent. Someone changes the agent on the service between the update and its read-back: the
 * read-back is held by the project's proxy until the test has made that change, so it always falls
 * in between.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import { expectCode } from '../helpers/cli.js';
import { callService, startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** A spare agent of the emulator's default seed. */
const AGENT_ID = '-OKspareAgent0000001';

function manifest(firstMessage: string): string {
  return `version: 1\nagents:\n  front-desk:\n    id: "${AGENT_ID}"\n    config:\n      first_message: "${firstMessage}"\n      llm: { temperature: 0.4 }\n`;
}

describe("apply's read-back", () => {
  it('names only the fields the update sent, saying such a field was changed since or not kept', async () => {
    const p = (project = await startExampleProject());
    const manifestPath = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifestPath, manifest('v1'));
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await writeFile(manifestPath, manifest('v2'));

    const agentPath = `/agents/${encodeURIComponent(AGENT_ID)}`;
    const update = p.hold('PUT', agentPath);
    const applying = p.cliInProcess(['apply', '--auto-approve']);
    const [updatePath] = await update.arrived();
    const readBack = p.hold('GET', agentPath);
    update.release();
    await readBack.arrived();
    // Someone else, between the update and its read-back: a field the update did not send, and one it did.
    const live = (await callService(p, 'GET', agentPath)) as Agent;
    await callService(p, 'PUT', agentPath, { name: live.name, config: { llm: { temperature: 1.5 }, first_message: 'edited on the dashboard' } });
    readBack.release();
    const applied = expectCode(await applying, 0);

    expect(updatePath).toBe(agentPath);
    const sent = JSON.parse(p.requests.find((request) => request.method === 'PUT' && request.body.includes('v2'))?.body ?? '{}') as { config: Record<string, unknown> };
    expect(Object.keys(sent.config)).toEqual(['first_message']);
    const output = applied.stdout + applied.stderr;
    expect(output).toContain('agent.front-desk: config.first_message is not as applied (sent "v2", the service has "edited on the dashboard"): changed on the service since, or not kept.');
    expect(output).not.toContain('config.llm.temperature');
  });
});
