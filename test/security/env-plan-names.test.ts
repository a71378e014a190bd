/**
 * Every plan (text, JSON, Markdown) lists the environment variables the manifests read, by name,
 * and marks those the last apply did not read; apply records the names (never values) in the
 * state file. A pull request that starts reading a new variable shows it to the reviewer.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { environmentVariablesOf } from '../../src/plan/environment-variables.js';
import { planToJson } from '../../src/plan/render-json.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import type { EnvironmentVariables, Plan, ResourceChange } from '../../src/plan/types.js';
import { readStateFile } from '../../src/state/state-file.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';
import { planOf } from '../helpers/plan.js';
import { apply } from '../../src/apply/apply.js';
import type { ApplyClient } from '../../src/apply/client.js';
import { startLibraryService } from '../helpers/library-service.js';

const CHANGE: ResourceChange = {
  address: 'agent.front-desk',
  kind: 'agent',
  action: 'update',
  id: 'a1',
  before: { name: 'Old' },
  after: { name: 'New' },
  fieldChanges: [{ path: 'name', before: 'Old', after: 'New', sensitive: false, drift: false }],
  sensitivePaths: [],
  reason: undefined,
  dependsOn: [],
  requests: [],
  liveFingerprint: 'sha256:f',
};

function plan(environmentVariables: EnvironmentVariables | undefined, changes: ResourceChange[] = [CHANGE]): Plan {
  const update = changes.length;
  return planOf(changes, { summary: { create: 0, update, unchanged: 2 - update, drifted: 0 }, environmentVariables });
}

const AFTER_APPLY: EnvironmentVariables = { names: ['AWS_SECRET_ACCESS_KEY', 'HOOK_TOKEN'], new: ['AWS_SECRET_ACCESS_KEY'], recorded: true };
const NO_RECORD: EnvironmentVariables = { names: ['HOOK_TOKEN'], new: ['HOOK_TOKEN'], recorded: false };

describe('environmentVariablesOf', () => {
  it.each([
    { recorded: undefined, names: ['B', 'A', 'B'], expected: { names: ['A', 'B'], new: ['A', 'B'], recorded: false } },
    { recorded: [], names: ['A'], expected: { names: ['A'], new: ['A'], recorded: true } },
    { recorded: ['A', 'OLD'], names: ['C', 'A'], expected: { names: ['A', 'C'], new: ['C'], recorded: true } },
    { recorded: ['A'], names: [], expected: { names: [], new: [], recorded: true } },
  ])('last apply read $recorded, the manifests read $names', ({ recorded, names, expected }) => {
    const workspace = { ...emptyWorkspace(), ...(recorded === undefined ? {} : { environmentVariables: recorded }) };
    expect(environmentVariablesOf(names, workspace)).toEqual(expected);
  });
});

describe('the renderers list the names and mark the new ones', () => {
  it('text', () => {
    expect(renderPlanText(plan(AFTER_APPLY), { color: false })).toContain(
      [
        'Environment variables the manifests read (names only; + not read at the last apply):',
        '  + AWS_SECRET_ACCESS_KEY',
        '    HOOK_TOKEN',
        '',
        'Plan: 0 to create, 1 to update, 1 unchanged',
      ].join('\n'),
    );
    expect(renderPlanText(plan(NO_RECORD, []), { color: false })).toBe(
      [
        'No changes. The service (local) matches the manifests.',
        '',
        'Environment variables the manifests read (names only; no apply has recorded the variables it read, so each counts as new):',
        '  + HOOK_TOKEN',
        '',
        'Plan: 0 to create, 0 to update, 2 unchanged',
        '',
      ].join('\n'),
    );
  });

  it('JSON', () => {
    expect(planToJson(plan(AFTER_APPLY)).environment_variables).toEqual({ names: ['AWS_SECRET_ACCESS_KEY', 'HOOK_TOKEN'], new: ['AWS_SECRET_ACCESS_KEY'], recorded: true });
    expect(planToJson(plan(undefined)).environment_variables).toBeNull();
  });

  it('Markdown', () => {
    expect(renderPlanMarkdown(plan(AFTER_APPLY))).toContain('**Environment variables read** (names only): **`AWS_SECRET_ACCESS_KEY` (new)**, `HOOK_TOKEN`.\n');
    expect(renderPlanMarkdown(plan(NO_RECORD))).toContain(
      '**Environment variables read** (names only): **`HOOK_TOKEN` (new)**. No apply has recorded the variables it read, so each counts as new.\n',
    );
    // Nothing changes, nothing is sent: the one-line comment stays one line unless a variable is new since a recorded apply.
    expect(renderPlanMarkdown(plan(NO_RECORD, []))).toBe('**voxform plan:** no changes — the service matches the manifests (2 resources checked).\n');
    expect(renderPlanMarkdown(plan(AFTER_APPLY, []))).toBe(
      '**voxform plan:** no changes — the service matches the manifests (2 resources checked). New environment variables read: **`AWS_SECRET_ACCESS_KEY`**.\n',
    );
  });
});

describe('end to end: apply records the names, the next plan marks a new one', () => {
  let project: ExampleProject | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  const EXAMPLE_NAMES = ['CALENDAR_TOKEN', 'HOOK_TOKEN', 'OPENAI_API_KEY', 'TWILIO_API_KEY', 'TWILIO_API_SECRET'];

  it('lists every name, then only the new one as new, in text, JSON and Markdown; the state holds names only', async () => {
    project = await startExampleProject();
    const first = JSON.parse((await project.cliInProcess(['plan', '--format', 'json'])).stdout) as { environment_variables: unknown };
    expect(first.environment_variables).toEqual({ names: EXAMPLE_NAMES, new: EXAMPLE_NAMES, recorded: false });

    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const stateText = await readFile(path.join(project.dir, '.voxform/state.json'), 'utf8');
    const state = await readStateFile(path.join(project.dir, '.voxform/state.json'));
    expect(Object.values(state.workspaces).map((ws) => ws.environmentVariables)).toEqual([EXAMPLE_NAMES]);
    for (const secret of Object.values(SECRETS)) expect(stateText).not.toContain(secret);

    const manifest = path.join(project.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('${env:HOOK_TOKEN:-local-dev-token}', '${env:DEPLOY_TOKEN}'));
    const planted = { DEPLOY_TOKEN: 'deploy-planted-6a5b4c' };
    const text = await project.cliInProcess(['plan'], planted);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('(names only; + not read at the last apply):\n');
    expect(text.stdout).toContain('\n  + DEPLOY_TOKEN\n');
    expect(text.stdout).toContain('\n    CALENDAR_TOKEN\n');
    expect(text.stdout).not.toContain('HOOK_TOKEN');
    const json = JSON.parse((await project.cliInProcess(['plan', '--format', 'json'], planted)).stdout) as { environment_variables: unknown };
    expect(json.environment_variables).toEqual({ names: ['CALENDAR_TOKEN', 'DEPLOY_TOKEN', 'OPENAI_API_KEY', 'TWILIO_API_KEY', 'TWILIO_API_SECRET'], new: ['DEPLOY_TOKEN'], recorded: true });
    const markdown = await project.cliInProcess(['plan', '--format', 'markdown'], planted);
    expect(markdown.stdout).toContain('**`DEPLOY_TOKEN` (new)**');
    for (const output of [text.stdout, text.stderr, markdown.stdout]) expect(output).not.toContain(planted.DEPLOY_TOKEN);
  });
});

describe('an apply stopped while it writes', () => {
  it('records the names it read, as every apply that ran does: the next plan marks none of them new', async () => {
    const { client, desired, dir, key } = await startLibraryService();
    const stateFile = path.join(dir, 'state.json');
    const stop = new AbortController();
    // Ctrl-C once the service took the first agent's update: the apply stops with the rest not sent.
    const stopping = Object.create(client) as ApplyClient;
    stopping.updateAgent = async (id, body) => {
      const answer = await client.updateAgent(id, body);
      stop.abort();
      return answer;
    };
    const outcome = await apply({ desired, stateFile, serviceId: 'local', fingerprintKey: key, autoApprove: true, client: stopping, signal: stop.signal });
    expect(outcome.status).toBe('interrupted');
    expect(desired.environmentVariables.length).toBeGreaterThan(0);
    const workspace = (await readStateFile(stateFile)).workspaces['default@local'];
    expect(workspace?.lastApply?.outcome).toBe('interrupted');
    expect(environmentVariablesOf(desired.environmentVariables, workspace ?? emptyWorkspace())).toEqual({ names: desired.environmentVariables, new: [], recorded: true });
  });
});
