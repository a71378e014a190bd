/**
 * The commands that take an agent of the manifests by its name only to read (`get`, `logs`, `report`,
 * `chat`) load the manifests with their unset `${env:…}` read as withheld, as `voxform test` does:
 * such a value is neither needed nor sent, so reading one agent's calls never needs every agent's
 * secrets. `chat` talks to the service, but sends the agent's id only, never its manifest config.
 */
import { describe, expect, it } from 'vitest';
import { WITHHELD } from '../../src/secrets/withhold.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { exampleProjectWith, useExampleProjects } from '../helpers/project.js';

const start = useExampleProjects();
const tempDir = useTempDirs();
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

describe('read commands with a variable of the manifests unset', () => {
  it.each([
    ['logs', ['logs', '--agent', 'front-desk', '--limit', '3', '--format', 'json'], undefined, `"agent_id": "${FRONT_DESK}"`],
    ['get', ['get', 'agents', 'front-desk', '--format', 'json'], undefined, `"id": "${FRONT_DESK}"`],
    ['report', ['report', '--agent', 'front-desk', '--format', 'json'], undefined, `"agent_id": "${FRONT_DESK}"`],
    ['chat', ['chat', '--agent', 'front-desk'], 'Hello\n', '[Front desk] You said: Hello'],
  ])('%s takes the agent by its manifest name, and neither prints nor sends anything withheld', async (_command, args, input, shown) => {
    // The example's webhook header without its fallback: HOOK_TOKEN, unset, is this job's missing secret.
    const { project } = await exampleProjectWith(start, '${env:HOOK_TOKEN:-local-dev-token}', '${env:HOOK_TOKEN}');
    const result = await runCliInProcess(args, { cwd: project.dir, env: { ...project.env, HOOK_TOKEN: undefined }, input });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(shown);
    expect(result.stdout).not.toContain(WITHHELD);
    expect(project.requests.length).toBeGreaterThan(0);
    for (const request of project.requests) expect(`${request.path} ${request.body}`).not.toContain(WITHHELD);
  });

  it('manifests with an error besides: the warning counts the errors that stop the command, an unset variable not among them', async () => {
    // Production gives "b" no id: the one error. Each environment reads the unset variable.
    const dir = await tempDir({
      'voxform.yaml':
        'version: 1\nagents:\n  a: { name: A, config: { first_message: "Code ${env:READ_TEST_UNSET_CODE}" } }\n  b: { name: B }\nenvironments:\n  staging:\n    agents: { a: { id: -OKspareAgent0000004 }, b: { id: -OKspareAgent0000005 } }\n  production:\n    agents: { a: { id: -OKspareAgent0000001 } }\n',
    });
    const result = await runCliInProcess(['logs', '--local', '--agent', 'a'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'warning: the manifests have 1 error (`voxform validate` lists them): their agent names and service are not used.\n' +
        'error[missing_id]: agent "a" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME\n  hint: Run again with --env staging or --env production.\n',
    );
  });

  it('plan, which sends the value, still stops at the unset variable', async () => {
    const { project, line, col } = await exampleProjectWith(start, '${env:HOOK_TOKEN:-local-dev-token}', '${env:HOOK_TOKEN}');
    const result = await runCliInProcess(['plan'], { cwd: project.dir, env: { ...project.env, HOOK_TOKEN: undefined } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`voxform.yaml:${line}:${col}  error[env_missing]: environment variable HOOK_TOKEN is not set`);
  });
});
