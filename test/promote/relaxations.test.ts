import { describe, expect, it } from 'vitest';
import { loadTree } from '../manifest/helpers.js';
import { gateRelaxations } from '../../src/promote/relaxations.js';
import type { EnvironmentPromotion } from '../../src/manifest/promotion-settings.js';

async function promotions(production: string): Promise<Map<string, EnvironmentPromotion>> {
  const text = ['version: 1', 'agents:', '  desk: { id: ag_1 }', 'environments:', '  staging: {}', '  canary: {}', '  production:', production, ''].join('\n');
  const result = await loadTree({ 'voxform.yaml': text });
  if (!result.state?.promotions) throw new Error(JSON.stringify(result.diagnostics));
  return result.state.promotions;
}

const BASE = '    promote_from: staging\n    gates: { tests: pass, min_calls: 50, no_regression: [error_rate, transfer_rate], soak: 2h }';

describe('gateRelaxations', () => {
  it('finds nothing when the gates stay or get stricter', async () => {
    expect(gateRelaxations(await promotions(BASE), await promotions(BASE))).toEqual([]);
    const stricter = '    promote_from: staging\n    gates: { tests: pass, min_calls: 100, no_regression: [error_rate, transfer_rate, tool_failure_rate], soak: 1d }';
    expect(gateRelaxations(await promotions(BASE), await promotions(stricter))).toEqual([]);
  });

  it('flags a lower min_calls, a shorter soak and a dropped metric where the head writes them', async () => {
    const head = '    promote_from: staging\n    gates: { tests: pass, min_calls: 10, no_regression: [error_rate], soak: 30m }';
    expect(gateRelaxations(await promotions(BASE), await promotions(head))).toEqual([
      { kind: 'gate', message: 'production: min_calls lowered from 50 to 10', file: 'voxform.yaml', line: 9, column: 27 },
      { kind: 'gate', message: 'production: no_regression no longer checks transfer_rate', file: 'voxform.yaml', line: 9, column: 42 },
      { kind: 'gate', message: 'production: soak shortened from 2h to 30m', file: 'voxform.yaml', line: 9, column: 71 },
    ]);
  });

  it('flags removed gates and tests no longer required, at the gates that remain', async () => {
    const head = '    promote_from: staging\n    gates: { no_regression: [error_rate, transfer_rate] }';
    expect(gateRelaxations(await promotions(BASE), await promotions(head)).map((r) => `${r.line}:${r.column} ${r.message}`)).toEqual([
      '9:5 production: tests: pass is no longer required',
      '9:5 production: min_calls removed (was 50)',
      '9:5 production: soak removed (was 2h)',
    ]);
  });

  it('flags a promotion removed whole, and a source changed, with no place when nothing is written', async () => {
    const removed = await promotions('    agents: {}');
    expect(gateRelaxations(await promotions(BASE), removed).map((r) => r.message)).toEqual([
      'production: promote_from staging removed',
      'production: tests: pass is no longer required',
      'production: min_calls removed (was 50)',
      'production: no_regression no longer checks error_rate',
      'production: no_regression no longer checks transfer_rate',
      'production: soak removed (was 2h)',
    ]);
    expect(gateRelaxations(await promotions(BASE), removed).every((r) => r.file === undefined)).toBe(true);
    const moved = gateRelaxations(await promotions(BASE), await promotions(BASE.replace('promote_from: staging', 'promote_from: canary')));
    expect(moved).toEqual([{ kind: 'gate', message: 'production: promote_from changed from staging to canary', file: 'voxform.yaml', line: 8, column: 5 }]);
  });
});
