/**
 * A command reads and parses its manifests once, however many environments it resolves from them:
 * validate checks each overlay's policy from one read, and a command whose --env is checked before
 * it runs resolves from the read made for the check. A later load of the same command (drift's
 * watch) reads the files as they are then. The work is counted as the manifest files parsed.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SourceText } from '../../src/manifest/source.js';
import { loadCommandManifests, refuseUnknownEnvironment } from '../../src/cli/load-manifests.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const parsed: string[] = [];
vi.mock('../../src/manifest/parse-yaml.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/manifest/parse-yaml.js')>();
  return {
    ...actual,
    parseYaml: (source: SourceText, ...rest: unknown[]) => {
      parsed.push(source.display);
      return (actual.parseYaml as (...args: unknown[]) => unknown)(source, ...rest);
    },
  };
});

const tempDir = useTempDirs();
afterEach(() => void parsed.splice(0));

/** Three overlays that change what an agent says: validate checks each one's policy. */
const OVERLAID = [
  'version: 1',
  'agents:',
  '  front-desk:',
  '    id: -OKdqbqetEcM4ak369ym',
  '    config: { prompt: "You are the receptionist of Acme Dental.", first_message: Hello! }',
  'environments:',
  '  dev:',
  '    agents: { front-desk: { config: { first_message: "Call me on 415 555 0123 4567 8901." } } }',
  '  staging:',
  '    agents: { front-desk: { config: { first_message: Hi from staging! } } }',
  '  production:',
  '    agents: { front-desk: { config: { first_message: Hi! } } }',
  '',
].join('\n');

describe('manifests are read once per command', () => {
  it('validate checks every environment from one read of each file', async () => {
    const dir = await tempDir({ 'voxform.yaml': OVERLAID, 'more/phones.yaml': 'phones:\n  "+15551230001": { agent: front-desk }\n' });
    const result = await runCliInProcess(['validate', '-f', 'voxform.yaml', '-f', 'more'], { cwd: dir });
    // The overlay was checked: its finding is reported, under its environment.
    expect(result.stderr).toContain('first_message holds a phone number (environment dev)');
    expect(parsed.sort()).toEqual(['more/phones.yaml', 'voxform.yaml']);
  });

  it('a command whose --env is checked before it runs parses the YAML once', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['policy', 'list', '--env', 'staging'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(parsed).toEqual(['voxform.yaml']);
  });

  it('only the first load takes the read made for the check: a later one reads the files as they are then', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const { ctx } = makeContext({ cwd: dir });
    const checked = await refuseUnknownEnvironment({ env: 'staging' }, ctx);
    const first = await loadCommandManifests({ env: 'staging' }, checked);
    expect(first.state?.agents.get('front-desk')?.id).toBe('-OKstagingFrontDesk01');
    expect(parsed).toHaveLength(1);
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('-OKstagingFrontDesk01', '-OKstagingFrontDesk02'));
    const later = await loadCommandManifests({ env: 'staging' }, checked);
    expect(later.state?.agents.get('front-desk')?.id).toBe('-OKstagingFrontDesk02');
    expect(parsed).toHaveLength(2);
  });
});
