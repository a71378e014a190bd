/** The relaxation detectors: pure functions of the base and head manifests (table-driven). */
import { describe, expect, it } from 'vitest';
import { findRelaxations, RELAXATION_DETECTORS, type ManifestDocuments } from '../../src/review/relaxations.js';
import { baseRefOf } from '../../src/project-files/base-revision.js';
import type { PolicyLevel } from '../../src/policy/types.js';

const DEFAULTS = new Map<string, PolicyLevel>([
  ['pii-phone-number', 'mandatory'],
  ['speech-url', 'advisory'],
]);

const manifest = (policy: unknown): ManifestDocuments[] => [{ file: 'voxform.yaml', documents: [{ version: 1, ...(policy === undefined ? {} : { policy }) }] }];
const waiver = (expires: string) => ({ rule: 'pii-phone-number', resource: 'agent.a', reason: 'Approved', expires });

describe('relaxations', () => {

  it('a promotion gate the pull request weakens is a relaxation too (the promotion detector is in the list)', () => {
    const withGates = (gates: unknown): ManifestDocuments[] => [{ file: 'voxform.yaml', documents: [{ version: 1, environments: { staging: {}, production: { promote_from: 'staging', gates } } }] }];
    const found = findRelaxations({ base: withGates({ tests: 'pass', min_calls: 50, soak: '2h' }), head: withGates({ min_calls: 10, soak: '2h' }), defaultLevels: DEFAULTS });
    expect(found.map((r) => `${r.kind}: ${r.message}`)).toEqual(['gate: production: tests: pass is no longer required', 'gate: production: min_calls lowered from 50 to 10']);
    expect(findRelaxations({ base: withGates({ min_calls: 10 }), head: withGates({ min_calls: 50 }), defaultLevels: DEFAULTS })).toEqual([]);
  });
  it.each([
    ['nothing changes', undefined, undefined, []],
    ['a level is raised', undefined, { rules: { 'speech-url': 'mandatory' } }, []],
    ['mandatory lowered to advisory', undefined, { rules: { 'pii-phone-number': 'advisory' } }, ['level-lowered: rule pii-phone-number is lowered from mandatory to advisory']],
    ['advisory turned off', { rules: { 'speech-url': 'advisory' } }, { rules: { 'speech-url': 'off' } }, ['level-lowered: rule speech-url is lowered from advisory to off']],
    ['a waiver added', undefined, { waivers: [waiver('2030-01-01')] }, ['waiver-added: a waiver of pii-phone-number for agent.a is added, until 2030-01-01: "Approved"']],
    ['a waiver kept as it was', { waivers: [waiver('2030-01-01')] }, { waivers: [waiver('2030-01-01')] }, []],
    ['a waiver extended', { waivers: [waiver('2030-01-01')] }, { waivers: [waiver('2031-01-01')] }, ['waiver-extended: the waiver of pii-phone-number for agent.a is extended from 2030-01-01 to 2031-01-01']],
    ['a waiver removed', { waivers: [waiver('2030-01-01')] }, undefined, []],
    [
      'a team rule removed, another lowered',
      { custom: [{ id: 'team-a', path: 'config.language', required: true }, { id: 'team-b', path: 'config.prompt', max_length: 10 }] },
      { custom: [{ id: 'team-b', path: 'config.prompt', max_length: 10, level: 'advisory' }] },
      ['team-rule-removed: team rule team-a (mandatory) is removed', 'level-lowered: rule team-b is lowered from mandatory to advisory'],
    ],
    [
      'a team rule kept but made to check less',
      { custom: [{ id: 'greet', path: 'config.first_message', pattern: 'Hello', max_length: 200, required: true }, { id: 'short', path: 'config.prompt', max_tokens: 100 }] },
      { custom: [{ id: 'greet', path: 'config.first_msg', pattern: '.*', max_length: 400 }, { id: 'short', path: 'config.prompt' }] },
      [
        'team-rule-loosened: team rule greet: path changed from "config.first_message" to "config.first_msg"',
        'team-rule-loosened: team rule greet: pattern changed from "Hello" to ".*"',
        'team-rule-loosened: team rule greet: max_length raised from 200 to 400',
        'team-rule-loosened: team rule greet: required is no longer checked (was true)',
        'team-rule-loosened: team rule short: max_tokens is no longer checked (was 100)',
      ],
    ],
    [
      'a team rule whose schema is written with its keys in another order',
      { custom: [{ id: 'code', path: 'config.language', schema: { type: 'string', enum: ['en', 'de'], maxLength: 2 } }] },
      { custom: [{ id: 'code', path: 'config.language', schema: { maxLength: 2, enum: ['en', 'de'], type: 'string' } }] },
      [],
    ],
    [
      'a team rule made to check more',
      { custom: [{ id: 'greet', path: 'config.first_message', max_length: 400 }] },
      { custom: [{ id: 'greet', path: 'config.first_message', max_length: 200, pattern: 'Hello', required: true, description: 'Greets by name' }] },
      [],
    ],
  ])('%s', (_name, base, head, expected) => {
    const found = findRelaxations({ base: manifest(base), head: manifest(head), defaultLevels: DEFAULTS });
    expect(found.map((r) => `${r.kind}: ${r.message}`)).toEqual(expected);
  });

  it('a manifest file the base did not have relaxes as much as its policy says', () => {
    const found = findRelaxations({ base: [], head: manifest({ rules: { 'pii-phone-number': 'off' } }), defaultLevels: DEFAULTS });
    expect(found.map((r) => r.kind)).toEqual(['level-lowered']);
  });

  it('is an array of detectors another review can extend', () => {
    const extra = () => [{ kind: 'gate-weakened', message: 'the soak gate of production is shortened' }];
    const found = findRelaxations({ base: manifest(undefined), head: manifest(undefined), defaultLevels: DEFAULTS }, [...RELAXATION_DETECTORS, extra]);
    expect(found).toEqual([{ kind: 'gate-weakened', message: 'the soak gate of production is shortened' }]);
  });

  it.each([
    ['origin/main', {}, 'origin/main'],
    [undefined, { VOXFORM_BASE_REF: 'main' }, 'main'],
    ['feature', { VOXFORM_BASE_REF: 'main' }, 'feature'],
    [undefined, { VOXFORM_BASE_REF: '  ' }, undefined],
  ])('base: flag %j, environment %j → %j', (flag, env, ref) => {
    expect(baseRefOf(flag, env)).toBe(ref);
  });
});
