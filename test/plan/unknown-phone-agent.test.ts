/**
 * A phone may bind to an agent outside the manifests, by `{ id: … }`. The plan asks the service for
 * each such id, once, and stops at the place the id is written when the service does not know it,
 * as it does for an agent of the manifests: otherwise a reviewed plan (or a typo in an
 * environment's overlay) would fail only at apply, after the writes before the binding.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleProjectWith, useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();

const agentReads = (project: ExampleProject, id: string) => project.requests.filter((r) => r.method === 'GET' && r.path === `/agents/${id}`).length;

describe('a phone bound by id to an agent the service does not have', () => {
  it('stops plan and apply at the id, naming the phone, with nothing sent', async () => {
    const { project, line } = await exampleProjectWith(startProject, '    agent: booking\n', '    agent: { id: -OKnoSuchAgent999 }\n');
    const message = `voxform.yaml:${line}:18: phone.+15551230002: the service has no agent with id "-OKnoSuchAgent999" to bind the number to. Put the id of a live agent there, or the name of an agent of the manifest.`;
    const plan = await project.cliInProcess(['plan']);
    expect({ code: plan.code, stdout: plan.stdout }).toEqual({ code: 1, stdout: '' });
    expect(plan.stderr).toBe(`error[plan_failed]: ${message}\n  hint: Fix what each problem says, then plan again.\n`);
    const json = JSON.parse((await project.cliInProcess(['plan', '--format', 'json'])).stdout) as { error: { location: unknown; details: Array<{ code: string }> } };
    expect(json.error.location).toEqual({ file: 'voxform.yaml', line, col: 18 });
    expect(json.error.details.map((problem) => problem.code)).toEqual(['agent_not_on_service']);

    const apply = await project.cliInProcess(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`error[plan_failed]: ${message}\n`);
    expect(project.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it("stops at the environment overlay's id, where the typo is", async () => {
    const { project, line } = await exampleProjectWith(startProject, '"+15551230002": { agent: { id: -OKdqbqetEcM4ak369yn } }', '"+15551230002": { agent: { id: -OKdqbqetEcM4ak369yX } }');
    const plan = await project.cliInProcess(['plan', '--env', 'staging']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`error[plan_failed]: voxform.yaml:${line}:38: phone.+15551230002: the service has no agent with id "-OKdqbqetEcM4ak369yX" to bind the number to.`);
  });

  it('reads each id once, however many phones name it, and plans the binding when the service knows it', async () => {
    // Both numbers bound by id to staging's booking agent, which these manifests do not manage.
    const { project } = await exampleProjectWith(startProject, '    agent: front-desk\n', '    agent: { id: -OKstagingBooking0001 }\n');
    const file = path.join(project.dir, 'voxform.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('    agent: booking\n', '    agent: { id: -OKstagingBooking0001 }\n'));
    const plan = await project.cliInProcess(['plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('~ phone.+15551230001 will be bound to another agent\n      ~ agent_id: "-OKstagingFrontDesk01" → "-OKstagingBooking0001"');
    expect(agentReads(project, '-OKstagingBooking0001')).toBe(1);
  });
});
