/**
 * An agent id the service does not know stops the plan at the id, where the typo is: in the
 * agent's entry, or in the overlay of the environment planned. The agent's key, which holds no id
 * when an overlay gives it, would send the reader to the wrong line. Every other command that asks
 * the service for the agent stops at the same place.
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { exampleProjectWith, useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

describe('an agent id the service does not have', () => {
  it("stops the plan at the agent's id", async () => {
    const { project, line, col } = await exampleProjectWith(startProject, 'id: -OKdqbqetEcM4ak369yn\n', 'id: -OKdqbqetEcM4akNoSuch\n');
    const plan = await project.cliInProcess(['plan']);
    expect({ code: plan.code, stdout: plan.stdout }).toEqual({ code: 1, stdout: '' });
    expect(plan.stderr).toContain(`error[plan_failed]: voxform.yaml:${line}:${col + 4}: agent.booking: the service has no agent with id "-OKdqbqetEcM4akNoSuch".`);
    const json = JSON.parse((await project.cliInProcess(['plan', '--format', 'json'])).stdout) as { error: { location: unknown } };
    expect(json.error.location).toEqual({ file: 'voxform.yaml', line, col: col + 4 });
  });

  it("stops at the environment overlay's id, where the typo is", async () => {
    const { project, line, col } = await exampleProjectWith(startProject, 'booking: { id: -OKstagingBooking0001 }', 'booking: { id: -OKstagingBookingNoSuch }');
    const plan = await project.cliInProcess(['plan', '--env', 'staging']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`error[plan_failed]: voxform.yaml:${line}:${col + 15}: agent.booking: the service has no agent with id "-OKstagingBookingNoSuch".`);
  });

  it('stops test, chat and diff --env at the place plan names: the overlay\'s id', async () => {
    const { project, line, col } = await exampleProjectWith(startProject, 'booking: { id: -OKstagingBooking0001 }', 'booking: { id: -OKstagingBookingNoSuch }');
    await appendFile(path.join(project.dir, 'voxform.yaml'), '  canary: {}\n');
    const place = `voxform.yaml:${line}:${col + 15}: agent.booking`;
    const tested = await project.cliInProcess(['test', 'example/tests/booking.test.yaml', '--env', 'staging', '--skip-judge']);
    const chat = await runCliInProcess(['chat', '--env', 'staging', '--agent', 'booking'], { cwd: project.dir, env: project.env, input: 'hi\n' });
    const diff = await project.cliInProcess(['diff', '--env', 'staging', '--env', 'canary']);
    expect([tested, chat, diff].map((result) => result.code)).toEqual([1, 1, 1]);
    expect(tested.stderr).toContain(`error[api_not_found]: ${place}: the service has no agent with id "-OKstagingBookingNoSuch"`);
    expect(chat.stderr).toContain(`error[api_not_found]: ${place}: the service has no agent with id "-OKstagingBookingNoSuch"`);
    expect(diff.stderr).toContain(`error[agent_not_on_service]: ${place} of "staging": the service has no agent with id "-OKstagingBookingNoSuch"`);
  });
});
