/**
 * An id the manifest (or a committed state file) writes is sent as one segment of a request's path,
 * and `encodeURIComponent` leaves "." and ".." as they are: `/agents/..` is `/` to a server or a
 * proxy that resolves dot segments, as URLs are resolved, so an agent id of ".." would send `plan`'s
 * read, with the key, to another endpoint of the service than the agent's. No such request leaves.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useExampleProjects } from '../helpers/project.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';

const startProject = useExampleProjects();

/** Whether a request path (its query aside) holds a "." or ".." segment. */
function hasDotSegment(requestPath: string): boolean {
  return (requestPath.split('?')[0] ?? '').split('/').some((segment) => segment === '.' || segment === '..');
}

describe('ids as path segments', () => {
  it('an agent id of ".." or "." is refused at its place: validate, plan, test and drift send no request', async () => {
    const p = await startProject();
    const manifest = path.join(p.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace(FRONT_DESK, '".."').replace(BOOKING, '"."'));
    for (const args of [['validate'], ['plan'], ['test', 'example/tests', '--skip-judge'], ['drift']]) {
      const result = await p.cliInProcess(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(/^voxform\.yaml:\d+:\d+  error\[invalid_value\]: id of agent "front-desk": "\.\." is not an id as the service gives it/m);
      expect(result.stderr, args.join(' ')).toMatch(/^voxform\.yaml:\d+:\d+  error\[invalid_value\]: id of agent "booking": "\." is not an id/m);
    }
    expect(p.requests.filter((request) => hasDotSegment(request.path))).toEqual([]);
  });

  it('ids made of dots and more are ids: they validate', async () => {
    const project = await startProject();
    const manifest = path.join(project.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace(FRONT_DESK, '"..."').replace(BOOKING, '".x"'));
    const result = await project.cliInProcess(['validate']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('an id from elsewhere than a manifest (the command line) is refused before it is sent', async () => {
    const project = await startProject();
    const result = await project.cliInProcess(['logs', '--agent', '..']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[api_request_invalid]: The agent id ".." cannot be sent');
    expect(project.requests.filter((request) => hasDotSegment(request.path))).toEqual([]);
  });
});
