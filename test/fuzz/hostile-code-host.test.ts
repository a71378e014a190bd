/**
 * A code host whose answers are of another shape than documented: the fake GitHub and GitLab behind
 * a proxy that changes seeded parts of their JSON answers (the comment list, who the token is, the
 * review that merged a commit, the answers to writes), as test/fuzz/hostile-service.test.ts does to
 * the service. `voxform ci run` must end with its result or a clear error, never an internal one,
 * and print nothing the answers carried as a control character or workflow command. What broke once:
 * a null in the comment list. The seed is in the test name; VOXFORM_FUZZ_SEED repeats a run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { seededRandom } from '../../src/util/seeded-random.js';
import { startFakeCodeHost, type FakeCodeHost } from '../helpers/fake-code-host.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';
import { changedAnswer, expectClearOutcome, mutator } from '../helpers/mutate-json.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewriting-proxy.js';

const SEED = fuzzSeed(20_261_204);
const CASES = 12;
const GITHUB_TOKEN = 'ghs_planted-fuzz-token-2b7e';
const GITLAB_TOKEN = 'glpat-planted-fuzz-token-6c1a';
const MERGE_COMMIT = 'e'.repeat(40);

let project: ExampleProject;
let fake: FakeCodeHost;
let proxy: RewritingProxy;
let work: string;

beforeAll(async () => {
  project = await startExampleProject();
  fake = await startFakeCodeHost();
  fake.tokens.set(GITHUB_TOKEN, undefined);
  fake.tokens.set(GITLAB_TOKEN, 'voxform-bot');
  fake.merged.set(MERGE_COMMIT, 7);
  proxy = await startRewritingProxy(fake.url);
  work = await mkdtemp(path.join(tmpdir(), 'voxform-ci-fuzz-'));
  // Comments already on the reviews, so that the lists read have items to change.
  for (const review of [5, 7]) for (const author of ['carol', 'github-actions[bot]', 'voxform-bot']) fake.addComment(review, author, `<!-- voxform:plan:env=staging -->\nby ${author}`);
});

afterAll(async () => {
  await proxy.close();
  await fake.close();
  await project.close();
  await rm(work, { recursive: true, force: true });
});

/** Each case's job: on GitHub or GitLab, a plan on a review, or an apply on the commit a review merged. */
function job(draw: () => number): { args: string[]; env: Record<string, string> } {
  const command = draw() < 0.7 ? 'plan' : 'apply';
  const onMain = command === 'apply';
  const args = ['ci', 'run', '--command', command, '--env', 'staging', '--out-dir', path.join(work, 'out')];
  if (draw() < 0.5) {
    return {
      args: [...args, '--provider', 'github'],
      env: {
        GITHUB_ACTIONS: 'true',
        GITHUB_API_URL: proxy.url,
        GITHUB_REPOSITORY: 'acme/agents',
        GITHUB_RUN_ID: '4242',
        GITHUB_REF: onMain ? 'refs/heads/main' : 'refs/pull/7/merge',
        GITHUB_SHA: onMain ? MERGE_COMMIT : 'b'.repeat(40),
        GITHUB_TOKEN,
        GITHUB_STEP_SUMMARY: path.join(work, 'summary.md'),
      },
    };
  }
  return {
    args: [...args, '--provider', 'gitlab'],
    env: {
      GITLAB_CI: 'true',
      CI_API_V4_URL: `${proxy.url}/api/v4`,
      CI_PROJECT_ID: '99',
      ...(onMain ? {} : { CI_MERGE_REQUEST_IID: '5' }),
      CI_COMMIT_SHA: onMain ? MERGE_COMMIT : 'c'.repeat(40),
      GITLAB_TOKEN,
    },
  };
}

/**
 * How often an answer is changed: the lists read (comments, the reviews a commit is in) always; who
 * the token is seldom, since a changed one stops the run before the lists are read (a clear error,
 * tested in test/ci); the answers to writes now and then.
 */
function changeRate({ method, path }: { method: string; path: string }): number {
  if (/\/user(\?|$)|\/graphql(\?|$)/.test(path)) return 0.15;
  return method === 'GET' ? 1 : 0.3;
}

describe(`a code host answering in other shapes than documented (seed ${SEED})`, () => {
  it.each(Array.from({ length: CASES }, (_, index) => index))('case %i: a result or a clear error, never an internal one', async (index) => {
    const draw = seededRandom(SEED + index);
    const mutate = mutator(SEED * 31 + index);
    const { args, env } = job(draw);
    proxy.rewrite = (request, text) => (text !== '' && draw() < changeRate(request) ? changedAnswer(text, mutate, draw) : text);
    expectClearOutcome(await project.cliInProcess(args, env), args.join(' '));
  }, 60_000);
});
