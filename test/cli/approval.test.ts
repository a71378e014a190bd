import { readFile } from 'node:fs/promises';
import path from 'node:path';
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

  it("keeps the run's --target and --take-over in the plan it says to save: the saved plan covers what the run did, no more", { timeout: 120_000 }, async () => {
    const project = await startProject();
    const refused = await project.cliInProcess(['apply', '-f', 'voxform.yaml', '--target', 'agent.front-desk', '--take-over', 'agent.front-desk']);
    expect(refused.stderr).toContain('error[approval_required]');
    const commands = [...refused.stderr.matchAll(/`voxform ([^`]+)`/g)].map((match) => (match[1] as string).split(' '));
    expect(commands).toEqual([
      ['plan', '--out', 'plan.json', '-f', 'voxform.yaml', '--target', 'agent.front-desk', '--take-over', 'agent.front-desk'],
      ['apply', 'plan.json'],
    ]);
    expect((await project.cliInProcess(commands[0] as string[])).code).toBe(0);
    const saved = JSON.parse(await readFile(path.join(project.dir, 'plan.json'), 'utf8')) as { targets: string[] };
    expect(saved.targets).toEqual(['agent.front-desk']);
  });
});
