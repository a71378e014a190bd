/**
 * The hints of an apply's summary that send the reader to `voxform plan` (a write the service may
 * have applied, an update not read back) carry the run's options, as every command line voxform
 * prints for the user to run next does: pasted bare, that plan would read the default manifests,
 * environment and service, and show nothing of what this run did.
 */
import { describe, expect, it } from 'vitest';
import { useExampleProjects } from '../helpers/project.js';

const STAGING_FRONT_DESK = '-OKstagingFrontDesk01';
const STAGING_BOOKING = '-OKstagingBooking0001';

const startProject = useExampleProjects();

describe("an apply's summary", () => {
  it("names the plan of this run's manifests and environment in the hint of a write that may have landed", async () => {
    const project = await startProject();
    // A 500 is not retried: the service may have applied the update, and the hint says where to look.
    project.emulator.control.setFaults([{ path: `/agents/${STAGING_FRONT_DESK}`, method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const run = await project.cli(['apply', '-f', 'voxform.yaml', '--env', 'staging', '--auto-approve']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/failed: agent\.front-desk: error\[api_unavailable\]: [^\n]*\n {4}hint: The service may have applied it: `voxform plan -f voxform\.yaml --env staging` shows what it holds\. \S/);
    expect(run.stdout).not.toContain('`voxform plan`');
  });

  it('names it in the warning of an update not read back', async () => {
    const project = await startProject();
    // The plan's read passes; every read after it is refused, so the update is not read back.
    project.emulator.control.setFaults([{ path: `/agents/${STAGING_BOOKING}`, method: 'GET', rateLimit: { burst: 1, retryAfterSeconds: 0, limited: 1000 } }]);
    const run = await project.cli(['apply', '-f', 'voxform.yaml', '--env', 'staging', '--auto-approve']);
    expect(run.stderr).toContain('agent.booking: applied, but not read back');
    expect(run.stderr).toContain('`voxform plan -f voxform.yaml --env staging` shows what the service kept.');
    expect(run.stderr).not.toContain('`voxform plan`');
  });
});
