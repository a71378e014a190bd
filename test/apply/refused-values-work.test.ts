/**
 * Whose are the values an agent's update was refused for, found with work that grows with the
 * service's answer, not with its square: a 422 whose `loc` runs long past what the manifest writes,
 * and a refused body with many issues beside many managed fields.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, requestInvalid } from '../../src/api/errors.js';
import { DesiredIndex } from '../../src/apply/resources.js';
import { withRefusedValuePlace } from '../../src/apply/refused-values.js';
import { VoxformError } from '../../src/errors.js';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { parseYaml } from '../../src/manifest/parse-yaml.js';
import { SourceRegistry } from '../../src/manifest/source.js';
import type { PlannedRequest, ResourceChange } from '../../src/plan/types.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';

const update: PlannedRequest = { id: 'agent.front/1', operation: 'update_agent', method: 'PUT', path: '/agents/a1', body: {}, fills: [], dependsOn: [] };

function frontChange(after: Record<string, unknown>): ResourceChange {
  return { address: 'agent.front', kind: 'agent', action: 'update', id: 'a1', before: {}, after, fieldChanges: [], sensitivePaths: [], reason: undefined, dependsOn: [], requests: [update], liveFingerprint: '' };
}

/** `target` behind a proxy that counts every read of a property of it. */
function countingReads<T extends object>(target: T): { proxy: T; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(target, {
    get: (object, key, receiver) => (reads++, Reflect.get(object, key, receiver)),
    has: (object, key) => (reads++, Reflect.has(object, key)),
    getOwnPropertyDescriptor: (object, key) => (reads++, Reflect.getOwnPropertyDescriptor(object, key)),
  });
  return { proxy, reads: () => reads };
}

/** Runs `run`, counting the copies arrays make of a part of themselves (`Array.prototype.slice`). */
function countingSlices<T>(run: () => T): { result: T; slices: number } {
  const slice = Array.prototype.slice;
  let slices = 0;
  Array.prototype.slice = function (this: unknown[], ...args: Parameters<typeof slice>) {
    slices++;
    return slice.apply(this, args);
  };
  try {
    return { result: run(), slices };
  } finally {
    Array.prototype.slice = slice;
  }
}

/** The client's refusal of an update body at `paths`. */
function refusedAt(paths: Array<Array<string | number>>): VoxformError {
  return requestInvalid('update_agent', paths.map((path) => ({ path, message: 'Expected string' })));
}

describe("a 422 whose `loc` runs past what the agent's entry writes", () => {
  it('locates the config path once, not once for every length of it, when the entry has no places', () => {
    const length = 3000;
    const config = countingReads<Record<string, unknown>>({});
    const agent = desiredAgent('front', { id: 'a1', config: config.proxy });
    const resources = new DesiredIndex(desiredState({ agents: [agent] }));
    const loc = ['body', 'config', ...Array.from({ length }, (_, i) => `member_${i}`)];
    const error = new ApiError({ code: 'api_validation', message: 'The service refused the update.', hint: undefined, status: 422, method: 'PUT', path: '/agents/a1', issues: [{ loc, msg: 'bad', type: 'value_error' }], attempts: 1 });
    // Written nowhere in the entry: the error comes back as it was.
    expect(withRefusedValuePlace(update, frontChange({}), error, resources)).toBe(error);
    // Each length tried reads the config's places and copies that much of the path: tried one by one,
    // a few reads per segment and about length * length / 2 segments copied; the whole path and the part written, a few reads.
    expect(config.reads()).toBeLessThan(10);
  });
});

describe("a 422 at a config path the agent's entry writes", () => {
  it('names the line of the deepest place written, and the path as the service gave it', async () => {
    const text = ['config:', '  flow:', '    interruption:', '      mode: strict', '  first_message: Hi', ''].join('\n');
    const { documents } = await parseYaml(new SourceRegistry('/p').forYaml('/p/voxform.yaml', text), new DiagnosticList());
    const config = (documents[0]?.value as { config: Record<string, unknown> }).config;
    const agent = desiredAgent('front', { id: 'a1', config });
    const resources = new DesiredIndex(desiredState({ agents: [agent] }));
    const refusedAt = (...loc: Array<string | number>) => {
      const error = new ApiError({ code: 'api_validation', message: 'The service refused the update.', hint: undefined, status: 422, method: 'PUT', path: '/agents/a1', issues: [{ loc, msg: 'bad', type: 'value_error' }], attempts: 1 });
      return (withRefusedValuePlace(update, frontChange({}), error, resources) as VoxformError).hint;
    };
    expect(refusedAt('body', 'config', 'flow', 'interruption', 'mode')).toBe('The service rejected the values named above; voxform.yaml:4:13 writes config.flow.interruption.mode.');
    expect(refusedAt('body', 'config', 'flow', 'interruption', 'mode', 'member', 0)).toBe('The service rejected the values named above; voxform.yaml:4:13 writes config.flow.interruption.mode.member[0].');
    expect(refusedAt('body', 'config', 'flow', 'voice')).toBe('The service rejected the values named above; voxform.yaml:3:5 writes config.flow.voice.');
  });
});

describe('a body the client refused at fields the manifest does not set', () => {
  it('compares each issue with the managed fields in one walk, not with each of them', () => {
    const n = 2000;
    const after = Object.fromEntries(Array.from({ length: n }, (_, i) => [`config.managed_${i}.value`, i]));
    const error = refusedAt(Array.from({ length: n }, (_, i) => ['config', `service_${i}`, 'inner']));
    const resources = new DesiredIndex(desiredState({ agents: [desiredAgent('front', { id: 'a1' })] }));
    const { result, slices } = countingSlices(() => withRefusedValuePlace(update, frontChange(after), error, resources));
    expect(result).toMatchObject({ code: 'api_request_invalid', message: expect.stringMatching(/^The service holds config\.service_0\.inner in a shape its own schema refuses \(Expected string\); /) });
    expect(result).not.toBe(error);
    // Each issue beside each managed field copied the issue's path: n * n slices; one walk: a few per issue.
    expect(slices).toBeLessThan(10 * n);
  });

  it('tells a refused field the manifest sets, at, above or below it, from one it does not', () => {
    const error = (path: Array<string | number>) => refusedAt([path]);
    const refusedAsServices = (after: Record<string, unknown>, path: Array<string | number>) => {
      const given = error(path);
      return withRefusedValuePlace(update, frontChange(after), given, new DesiredIndex(desiredState({}))) !== given;
    };
    const managed = { 'config.flow.interruption': true, name: 'Front' };
    expect(refusedAsServices(managed, ['config', 'flow', 'interruption'])).toBe(false);
    expect(refusedAsServices(managed, ['config', 'flow'])).toBe(false);
    expect(refusedAsServices(managed, ['config', 'flow', 'interruption', 'mode'])).toBe(false);
    expect(refusedAsServices(managed, ['config'])).toBe(false);
    expect(refusedAsServices(managed, [])).toBe(false);
    expect(refusedAsServices(managed, ['name', 0])).toBe(false);
    expect(refusedAsServices(managed, ['config', 'voice'])).toBe(true);
    expect(refusedAsServices(managed, ['config', 'flow', 'other'])).toBe(true);
    expect(refusedAsServices(managed, ['config', 1])).toBe(true);
    // Nothing managed: every issue is the service's, the body's own root among them.
    expect(refusedAsServices({}, [])).toBe(true);
    expect(refusedAsServices({}, ['config', 'voice'])).toBe(true);
  });
});
