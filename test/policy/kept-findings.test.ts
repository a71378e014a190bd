import { describe, expect, it } from 'vitest';
import { KeptFindings } from '../../src/policy/kept-findings.js';
import type { Finding } from '../../src/policy/types.js';

const finding = (rule: string): Finding => ({ rule, level: 'mandatory', hint: '', resource: 'agent.a', message: rule, location: { file: 'voxform.yaml', line: 1, col: 1 } });

describe('the findings a run keeps', () => {
  it('builds an offered finding only when it is kept, and counts every one', () => {
    const kept = new KeptFindings(1);
    let built = 0;
    for (const rule of ['r0', 'r1', 'r2']) kept.offer('mandatory', () => (built++, finding(rule)));
    expect(built).toBe(1);
    expect(kept.total).toEqual({ mandatory: 3, advisory: 0 });
    expect(kept.kept().map((f) => f.rule)).toEqual(['r0']);
  });

  it('keeps a finding added ahead at the cap, the last kept one only counted', () => {
    const kept = new KeptFindings(2);
    for (const rule of ['r0', 'r1', 'r2']) kept.add(finding(rule));
    kept.addAhead(finding('policy-check-budget'));
    expect(kept.kept().map((f) => f.rule)).toEqual(['policy-check-budget', 'r0']);
    expect(kept.total).toEqual({ mandatory: 4, advisory: 0 });
  });
});
