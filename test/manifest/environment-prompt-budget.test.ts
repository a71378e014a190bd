/**
 * Each environment resolved from one read of the project has the prompt budget of a load of it
 * alone: every prompt file it uses counts against its own budget, whether another environment read
 * it first or not. So `validate` without `--env` checks an overlay whose prompts fit its budget,
 * however much the manifests' own prompts took; and the files kept for the environments to share
 * stay within one budget, however many environments there are. The limits are lowered here so that
 * the files stay small.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadManifests, readProject, resolveEnvironment } from '../../src/manifest/index.js';
import type { LoadResult } from '../../src/manifest/types.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const PROMPT_BYTES_TOTAL = 1000;

vi.mock('../../src/project-files/limits.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/project-files/limits.js')>()),
  MAX_PROMPT_FILE_BYTES: 200,
  MAX_PROMPT_BYTES_TOTAL: 1000,
}));

const tempDir = useTempDirs();

/** A prompt of `size` bytes starting with `text`. */
function prompt(text: string, size = 190): string {
  return `${text}\n`.padEnd(size, 'You help callers book appointments. ');
}

/**
 * Five agents whose prompt files take 950 of the 1,000 bytes, and one whose prompt is written in
 * the manifest; `prod` points the first at its own prompt,
 * which holds a phone number, and each of `e0`…`e{N-1}` at another one of its own.
 */
function project(environments: number): Record<string, string> {
  const agents = Array.from({ length: 5 }, (_, i) => `  a${i}:\n    id: ag_${i}\n    config: { prompt: { file: prompts/base${i}.md } }\n`).join('');
  const overlay = (name: string, file: string) => `  ${name}:\n    agents: { a0: { config: { prompt: { file: prompts/${file} } } } }\n`;
  const others = Array.from({ length: environments }, (_, i) => overlay(`e${i}`, `e${i}.md`)).join('');
  const files: Record<string, string> = {
    'voxform.yaml': `version: 1\nagents:\n${agents}  a5:\n    id: ag_5\n    config: { prompt: You take messages. }\nenvironments:\n${overlay('prod', 'prod.md')}${others}`,
    'prompts/prod.md': prompt('Call us back at 555-201-3344 any time.'),
  };
  for (let i = 0; i < 5; i++) files[`prompts/base${i}.md`] = prompt(`You are agent ${i}.`);
  for (let i = 0; i < environments; i++) files[`prompts/e${i}.md`] = prompt(`You are agent 0, in environment ${i}.`);
  return files;
}

/** What a load answers, the state's maps as plain entries (comparable). */
function comparable(result: LoadResult) {
  const { state, ...rest } = result;
  return { ...rest, state: state && { ...state, agents: [...state.agents], phones: [...state.phones], knowledge: [...state.knowledge] } };
}

describe('the prompt budget of an environment resolved from one read of the project', () => {
  it('validate without --env reports what an overlay brings, though the manifests took most of the budget', async () => {
    const dir = await tempDir(project(0));
    const alone = await runCliInProcess(['validate', '-f', 'voxform.yaml', '--env', 'prod'], { cwd: dir });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('prompts/prod.md:1:17  mandatory[pii-phone-number]: agent.a0: prompt holds a phone number');
    const every = await runCliInProcess(['validate', '-f', 'voxform.yaml'], { cwd: dir });
    expect(every.stderr).toContain('prompts/prod.md:1:17  mandatory[pii-phone-number]: agent.a0: prompt holds a phone number (environment prod)');
    expect(every.code).toBe(1);
  });

  it('counts every prompt file an environment uses, kept from another environment or not', async () => {
    const files = project(0);
    // `over` gives a5 a prompt file: its six pass the budget, though five were read for the manifests.
    files['voxform.yaml'] += '  over:\n    agents: { a5: { config: { prompt: { file: prompts/extra.md } } } }\n';
    files['prompts/extra.md'] = prompt('You are the sixth agent.', 100);
    const dir = await tempDir(files);
    const read = await readProject({ paths: [], cwd: dir, env: {} });
    for (const environment of [undefined, 'prod', 'over', undefined, 'over', 'prod']) {
      const alone = await loadManifests({ paths: [], cwd: dir, env: {}, environment });
      expect(comparable(await resolveEnvironment(read, { env: {}, environment }))).toEqual(comparable(alone));
    }
    const over = await resolveEnvironment(read, { env: {}, environment: 'over' });
    expect(over.diagnostics.map((d) => d.code)).toEqual(['file_too_large']);
  });

  it('keeps files for the environments to share up to one budget, however many environments', async () => {
    const files = project(12);
    const dir = await tempDir(files);
    const read = await readProject({ paths: [], cwd: dir, env: {} });
    // Each environment, the manifests first (as validate resolves them), with the prompt of its agent a0.
    const firstPrompts: Array<[string | undefined, string]> = [[undefined, 'prompts/base0.md'], ['prod', 'prompts/prod.md'], ...Array.from({ length: 12 }, (_, i): [string, string] => [`e${i}`, `prompts/e${i}.md`])];
    for (const [environment, file] of firstPrompts) {
      const resolved = await resolveEnvironment(read, { env: {}, environment });
      // Past what is kept, a file is read again: the environment answers the same.
      expect(resolved.state?.agents.get('a0')?.config.prompt).toBe(files[file]);
      expect(read.cache.keptBytes()).toBeLessThanOrEqual(PROMPT_BYTES_TOTAL);
    }
    // The manifests' five prompts are kept; the environments' own did not fit.
    expect(read.cache.keptBytes()).toBe(5 * 190);
  });
});
