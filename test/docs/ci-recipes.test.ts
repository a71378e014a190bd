import { spawn } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/cli.js';
import { callService, startExampleProject, type ExampleProject } from '../helpers/project.js';

/** Every `npx voxform …` line of a CI recipe, in document order. */
function voxformCommands(node: unknown, out: string[] = []): string[] {
  if (typeof node === 'string') {
    for (const line of node.split('\n')) if (line.includes('npx voxform')) out.push(line.trim());
  } else if (Array.isArray(node)) node.forEach((item) => voxformCommands(item, out));
  else if (node && typeof node === 'object') Object.values(node).forEach((value) => voxformCommands(value, out));
  return out;
}

function sh(command: string, project: ExampleProject, recipeEnv: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const real = command.replaceAll('npx voxform', `"${process.execPath}" "${path.join(repoRoot, 'bin/voxform.js')}"`);
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', real], { cwd: project.dir, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...project.env, ...recipeEnv } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe.each(['github-actions.yml', 'gitlab-ci.yml'])('docs/ci/%s', (file) => {
  it('runs its voxform commands in order: validate, plan for review, conversation tests, apply the saved plan, drift check', async () => {
    const recipe = parse(await readFile(path.join(repoRoot, 'docs/ci', file), 'utf8'));
    const commands = voxformCommands(recipe);
    expect(commands).toEqual([
      'npx voxform validate',
      'npx voxform plan --format markdown --out plan.json > plan.md',
      file === 'github-actions.yml'
        ? 'npx voxform test --against both --format markdown --out tests.md'
        : 'npx voxform test --against both --format junit --out voxform-tests.xml',
      'npx voxform apply plan.json',
      'npx voxform plan --detailed-exitcode',
    ]);
    // The recipe restricts what manifests may read from the job's environment; its commands run under that list.
    const allow: unknown = recipe.env?.VOXFORM_ENV_ALLOW ?? recipe.variables?.VOXFORM_ENV_ALLOW;
    expect(allow, 'the recipe sets VOXFORM_ENV_ALLOW').toEqual(expect.stringMatching(/\S/));
    const recipeEnv = { VOXFORM_ENV_ALLOW: allow as string };
    project = await startExampleProject();
    // The example's conversation tests where the recipes expect them: tests/ beside the manifest.
    await cp(path.join(project.dir, 'example/tests'), path.join(project.dir, 'tests'), { recursive: true });
    for (const command of commands) {
      const result = await sh(command, project, recipeEnv);
      expect({ command, code: result.code, output: result.code === 0 ? '' : result.output }).toEqual({ command, code: 0, output: '' });
    }
    expect(await readFile(path.join(project.dir, 'plan.md'), 'utf8')).toMatch(/^### voxform plan: 3 to create, 4 to update/);

    // The nightly check notices a change made in the dashboard.
    await callService(project, 'PUT', `/agents/${encodeURIComponent('-OKdqbqetEcM4ak369yn')}`, { name: 'Booking', config: { first_message: 'Changed by hand' } });
    const drift = await sh(commands[commands.length - 1]!, project, recipeEnv);
    expect({ code: drift.code, output: drift.code === 2 ? '' : drift.output }).toEqual({ code: 2, output: '' });
  });
});
