/**
 * Environments resolved one after another from one read of the project answer what a load of each
 * alone answers: the same diagnostics (the reading's own once each, in the same order, at the same
 * places), the same state, and the files each environment itself read.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests, readProject, resolveEnvironment } from '../../src/manifest/index.js';
import type { LoadResult } from '../../src/manifest/types.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const MANIFEST = [
  'version: 1',
  'agents:',
  '  front-desk:',
  '    id: ag_1',
  '    config: { prompt: { file: prompts/front-desk.md }, first_message: Hello!, llm: { temperature: 0.4 } }',
  '  booking:',
  '    id: ag_2',
  '    config: { prompt: { file: prompts/booking.md }, flow: { response_delay: "slow" } }',
  'environments:',
  '  dev:',
  '    agents:',
  '      front-desk: { config: { prompt: { file: prompts/dev.md } } }',
  '      frontdesk: { id: ag_9 }',
  '  staging:',
  '    agents:',
  '      booking: { config: { flow: { response_delay: 200 }, first_message: "${env:GREETING}" } }',
  '  production:',
  '    agents:',
  '      front-desk: { config: { llm: { temperature: "hot" } } }',
  '',
].join('\n');

const FILES = {
  'voxform.yaml': MANIFEST,
  'prompts/front-desk.md': 'You are the receptionist.\n',
  'prompts/booking.md': 'You book appointments.\n',
  'prompts/dev.md': 'You are the receptionist, in development.\n',
};

/** What a load answers, the state's maps as plain entries (comparable). */
function comparable(result: LoadResult) {
  const { state, ...rest } = result;
  return { ...rest, state: state && { ...state, agents: [...state.agents], phones: [...state.phones], knowledge: [...state.knowledge] } };
}

describe('environments resolved from one read of the project', () => {
  it('answer what loading each one alone answers', async () => {
    const dir = await tempDir(FILES);
    const env = { GREETING: 'Hello from staging' };
    const project = await readProject({ paths: [], cwd: dir, env: {} });
    for (const environment of [undefined, 'dev', 'staging', 'production', 'staging', undefined]) {
      const alone = await loadManifests({ paths: [], cwd: dir, env, environment });
      const resolved = await resolveEnvironment(project, { env, environment });
      expect(comparable(resolved)).toEqual(comparable(alone));
      // The base's type error and dev's unknown agent are there once each, whichever environment.
      expect(resolved.diagnostics.filter((d) => d.code === 'environment_unknown_resource')).toHaveLength(1);
    }
  });

  it('an environment lists the files it read, not those another environment read before it', async () => {
    const dir = await tempDir({ ...FILES, 'voxform.yaml': MANIFEST.replace('"slow"', '300').replace('"hot"', '0.2').replace('      frontdesk: { id: ag_9 }\n', '') });
    const project = await readProject({ paths: [], cwd: dir, env: {} });
    const dev = await resolveEnvironment(project, { env: {}, environment: 'dev' });
    const base = await resolveEnvironment(project, { env: {} });
    expect(dev.state?.sourceFiles).toContain(path.join(dir, 'prompts/dev.md'));
    expect(base.state?.sourceFiles).toEqual(['voxform.yaml', 'prompts/booking.md', 'prompts/front-desk.md'].map((file) => path.join(dir, file)).sort());
  });
});
