/**
 * A set_agent_files refused for file ids the state recorded: the files are found in the service's
 * answer once, and that one finding both names them in the hint and makes the state forget them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

let found = 0;
vi.mock('../../src/apply/refused-files.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/apply/refused-files.js')>();
  return {
    ...actual,
    refusedRecordedFiles: (...args: Parameters<typeof actual.refusedRecordedFiles>) => {
      found++;
      return actual.refusedRecordedFiles(...args);
    },
  };
});

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('recorded knowledge files the service refuses', () => {
  it('are found in its answer once, for the hint and the state alike', async () => {
    project = await startExampleProject();
    const p = project;
    // Uploaded but never attached, then lost by the service.
    expect((await p.cliInProcess(['apply', '--auto-approve', '--target', 'knowledge.faq'])).code).toBe(0);
    await p.emulator.control.reset();
    found = 0;
    const refused = await p.cliInProcess(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/hint: The service no longer has the knowledge file the state recorded for knowledge\.faq \(kf_\w+\): .*The manifest is fine/);
    expect(found).toBe(1);
    // Forgotten by the state: the next apply uploads the file again.
    expect((await p.cliInProcess(['plan'])).stdout).toContain('+ knowledge.faq will be uploaded');
  });
});
