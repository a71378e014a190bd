/** A saved plan read back: a hand-edited policy block is refused with the plan, naming the field. */
import { describe, expect, it } from 'vitest';
import { planFromJson } from '../../src/plan/saved-plan.js';

const finding = { rule: 'pii-phone-number', level: 'mandatory', resource: 'agent.desk', message: 'holds a phone number', hint: 'Remove it.', file: 'voxform.yaml', line: 3, col: 5 };
const policy = { tokenizer: 'cl100k', summary: { mandatory: 1, advisory: 0, waived: 0 }, findings: [finding], waived: [], waivers: [], prompt_tokens: [], base: null, relaxations: [] };
const saved = { resource_changes: [], created_at: '2026-11-23T12:00:00Z', manifest_hash: 'sha256:00', files: ['voxform.yaml'], base_url: 'https://api.example.com', targets: [], policy };

describe('planFromJson', () => {
  it('reads the policy block back', () => {
    const { file, line, col, ...rest } = finding;
    expect(planFromJson(saved, 'plan.json').policy?.report.findings).toEqual([{ ...rest, location: { file, line, col } }]);
  });

  it('refuses a policy block out of shape with plan_unreadable, naming the field', () => {
    const edited = { ...saved, policy: { ...policy, findings: [{ ...finding, rule: 'pii\u001b[2J' }] } };
    expect(() => planFromJson(edited, 'plan.json')).toThrow(expect.objectContaining({ code: 'plan_unreadable', message: 'plan.json is not a valid voxform plan: policy.findings[0].rule is not a name.' }));
    const counted = { ...saved, policy: { ...policy, summary: { ...policy.summary, advisory: 1.5 } } };
    expect(() => planFromJson(counted, 'plan.json')).toThrow('plan.json is not a valid voxform plan: policy.summary.advisory is not a whole number.');
  });
});
