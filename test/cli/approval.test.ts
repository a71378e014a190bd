import { describe, expect, it } from 'vitest';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

describe('apply without a terminal', () => {
  it("refuses, and the commands its hint gives work when pasted: the run's own manifests and service", { timeout: 120_000 }, async () => {
    const project = await startProject();
    const refused = await project.cliInProcess(['apply', '-f', 'voxform.yaml']);
    expect(refused.code).toBe(1);
    const commands = [...refused.stderr.matchAll(/`voxform ([^`]+)`/g)].map((match) => (match[1] as string).split(' '));
    expect(commands).toEqual([
      ['plan', '--out', 'plan.json', '-f', 'voxform.yaml'],
      ['apply', 'plan.json'],
    ]);
    for (const args of commands) expect((await project.cliInProcess(args)).code, args.join(' ')).toBe(0);
    expect((await project.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});
