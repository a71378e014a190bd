/**
 * The order of a plan (docs/security.md, §1): every manifest is loaded and checked
 * before the service is connected, so the first request goes to the service the loaded manifests
 * settle on, for the ids they name after the environment overlay, and a manifest naming a service
 * the operator does not trust gets no request at all.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

/** An agent of the emulator's default account. */
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

/** The base id is not the service's; the staging overlay gives the agent its real one. */
const MANIFEST = `agents:
  front-desk:
    id: "ag_as_written"
    name: Front desk
environments:
  staging:
    agents:
      front-desk: { id: "${FRONT_DESK}" }
`;

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

function agentReads(p: ExampleProject): string[] {
  return p.requests.filter((request) => request.method === 'GET' && request.path.startsWith('/agents/')).map((request) => request.path);
}

describe('nothing is read before the manifests have loaded', () => {
  it('where the operator named the service: only the id the overlay gives is read, never the one written under it', async () => {
    const p = (project = await startExampleProject());
    await writeFile(path.join(p.dir, 'voxform.yaml'), MANIFEST);
    const result = await p.cli(['plan', '--env', 'staging']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(agentReads(p)).toEqual([`/agents/${FRONT_DESK}`]);
    expect(result.stdout).toContain('Plan: 0 to create, 0 to update, 1 unchanged');
    expect(result.stdout).not.toContain('ag_as_written');
  });

  it('where the manifest names the service: every request goes to it', async () => {
    const p = (project = await startExampleProject());
    await writeFile(path.join(p.dir, 'voxform.yaml'), `base_url: ${p.url}\n${MANIFEST}`);
    const result = await p.cli(['plan', '--env', 'staging'], { VOXFORM_BASE_URL: undefined, VOXFORM_TRUSTED_ORIGINS: new URL(p.url).origin, VOXFORM_DEBUG: '1' });
    expect(result.code).toBe(0);
    // Every request voxform made (its debug lines), not only those that reached the manifest's
    // service: a read sent before the service was settled would go to the default gateway.
    const sent = [...result.stderr.matchAll(/^\[voxform api\] → (\S+ \S+)/gm)].map((match) => match[1]);
    expect(sent).toEqual([`GET ${p.url}/agents/${FRONT_DESK}`]);
    expect(agentReads(p)).toEqual([`/agents/${FRONT_DESK}`]);
  });

  it.each([
    ['as written', 'base_url: https://elsewhere.example', []],
    ['spelled with an escape', '"base\\x5furl": https://elsewhere.example', []],
    ['in the environment chosen', 'environments:\n  staging:\n    base_url: https://elsewhere.example', ['--env', 'staging']],
  ])('where the operator named the service and the manifest names an untrusted one (%s): nothing is sent at all', async (_how, setting, flags) => {
    const p = (project = await startExampleProject());
    const agents = MANIFEST.split('environments:')[0] as string;
    await writeFile(path.join(p.dir, 'voxform.yaml'), `${agents}${setting}\n`);
    const result = await p.cli(['plan', ...flags], { VOXFORM_DEBUG: '1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/base_url names https:\/\/elsewhere\.example/);
    expect(result.stderr).not.toMatch(/^\[voxform api\] → /m);
    expect(p.requests).toEqual([]);
  });
});

