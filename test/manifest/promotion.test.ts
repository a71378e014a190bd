import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/manifest/promotion-settings.js';
import { formatAge } from '../../src/util/duration.js';
import { loadTree, summarize } from './helpers.js';

const manifest = (environments: string) =>
  ['version: 1', 'agents:', '  desk: { id: ag_base }', 'environments:', environments, ''].join('\n');

describe('environments.NAME.promote_from and gates', () => {
  it('reads the source and every gate in the form the docs give', async () => {
    const result = await loadTree({
      'voxform.yaml': manifest(
        [
          '  staging: { agents: { desk: { id: ag_staging } } }',
          '  production:',
          '    promote_from: staging',
          '    gates: { tests: pass, min_calls: 50, no_regression: [error_rate, transfer_rate], soak: 2h }',
        ].join('\n'),
      ),
    });
    expect(summarize(result)).toEqual([]);
    const production = result.state?.promotions?.get('production');
    expect(production).toMatchObject({
      from: 'staging',
      gates: { tests: true, minCalls: 50, noRegression: ['error_rate', 'transfer_rate'], soak: { text: '2h', seconds: 7200 } },
    });
    expect(production?.locations.min_calls).toEqual({ file: 'voxform.yaml', line: 8, col: 27 });
    expect(result.state?.promotions?.has('staging')).toBe(false);
  });

  it('takes every gate as optional', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest('  staging: {}\n  production: { promote_from: staging }') });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.promotions?.get('production')).toMatchObject({ from: 'staging', gates: {} });
  });

  it('points at an unknown source, a cycle, a bad duration and an unknown metric', async () => {
    const result = await loadTree({
      'voxform.yaml': manifest(
        [
          '  staging: { promote_from: production }',
          '  production:',
          '    promote_from: staging',
          '    gates: { soak: 2 hours, no_regression: [eror_rate] }',
          '  canary: { promote_from: stagin }',
        ].join('\n'),
      ),
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:28 promotion_cycle environments are promoted from each other in a circle: "staging" from "production", "production" from "staging"; a promotion needs a source that is not promoted from its target',
      'voxform.yaml:8:20 invalid_value gates.soak: "2 hours" is not a duration: a whole number from 1 to 999999 and m (minutes), h (hours) or d (days), such as "30m" or "2h"',
      'voxform.yaml:8:45 invalid_value gates.no_regression[0]: expected one of "error_rate", "transfer_rate", "tool_failure_rate", "mean_duration_seconds", "mean_credits_per_call", found a string ("eror_rate"); did you mean "error_rate"?',
      'voxform.yaml:9:27 promotion_source_unknown environment "canary" is promoted from "stagin", which is not an environment; did you mean "staging"?',
    ]);
    expect(result.state).toBeUndefined();
  });

  it('suggests the environment an unknown source begins, as --env does, else lists the others', async () => {
    const prefix = await loadTree({ 'voxform.yaml': manifest('  production: {}\n  canary: { promote_from: prod }') });
    expect(summarize(prefix)).toEqual(['voxform.yaml:6:27 promotion_source_unknown environment "canary" is promoted from "prod", which is not an environment; did you mean "production"?']);
    const listed = await loadTree({ 'voxform.yaml': manifest('  staging: {}\n  production: { promote_from: qa }') });
    expect(summarize(listed)).toEqual(['voxform.yaml:6:31 promotion_source_unknown environment "production" is promoted from "qa", which is not an environment; the manifests define "staging"']);
    const alone = await loadTree({ 'voxform.yaml': manifest('  production: { promote_from: qa }') });
    expect(summarize(alone)).toEqual(['voxform.yaml:5:31 promotion_source_unknown environment "production" is promoted from "qa", which is not an environment; the manifests define no other environment']);
  });

  it('refuses a min_calls past the whole numbers it can count, which would otherwise leave the gate out', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest('  staging: {}\n  production: { promote_from: staging, gates: { tests: pass, min_calls: 1e300 } }') });
    expect(summarize(result)).toEqual(['voxform.yaml:6:73 yaml_unsupported 1e300 is past the largest whole number kept exactly (9,007,199,254,740,991) and would be rounded; write a smaller number']);
    expect(result.state).toBeUndefined();
  });

  it('says a soak of 0 or of more than six digits is out of range, not of another form', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest('  staging: {}\n  production: { promote_from: staging, gates: { soak: 1000000m } }\n  canary: { promote_from: staging, gates: { soak: 0h } }') });
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:55 invalid_value gates.soak: "1000000m" is not a duration: a whole number from 1 to 999999 and m (minutes), h (hours) or d (days), such as "30m" or "2h"',
      'voxform.yaml:7:51 invalid_value gates.soak: "0h" is not a duration: a whole number from 1 to 999999 and m (minutes), h (hours) or d (days), such as "30m" or "2h"',
    ]);
  });

  it('refuses an environment promoted from itself', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest('  production: { promote_from: production }') });
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:31 promotion_cycle environment "production" is promoted from itself; a promotion needs a source that is not promoted from its target',
    ]);
  });
});

describe('durations', () => {
  it.each([
    ['30m', 1800],
    ['2h', 7200],
    ['1d', 86400],
    ['2 h', undefined],
    ['0h', undefined],
    ['90s', undefined],
  ])('%s is %s seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each([
    [35 * 60, '35 min'],
    [7200, '2h'],
    [7200 + 300, '2h 5 min'],
    [86400 * 2 + 3600, '2d 1h'],
  ])('%s seconds read as %s', (seconds, text) => {
    expect(formatAge(seconds)).toBe(text);
  });
});
