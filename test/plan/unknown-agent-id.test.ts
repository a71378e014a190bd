/**
 * An agent id the service does not know stops the plan at the id, where the typo is: in the
 * agent's entry, or in the overlay of the environment planned. The agent's key, which holds no id
 * when an overlay gives it, would send the reader to the wrong line.
 */
import { describe, expect, it } from 'vitest';
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
});
