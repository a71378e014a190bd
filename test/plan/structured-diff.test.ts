import { describe, expect, it } from 'vitest';
import { diffStates, summarize } from '../../src/plan/diff.js';
import { renderPlanJson } from '../../src/plan/render-json.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import type { Plan } from '../../src/plan/types.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';
import { planOf } from '../helpers/plan.js';

/** A tool as the service reads it back: its own key order. */
function liveTool(webhook: string, token: string) {
  return {
    name: 'find_slots',
    description: 'Find free slots.',
    webhook,
    method: 'GET',
    timeout: 3000,
    header: { authorization: token },
    params: [{ name: 'date', type: 'string', required: true, description: 'Day' }],
    messages: ['One moment.'],
  };
}

/** The same tool as a manifest writes it: another key order, at every level. */
function manifestTool(webhook: string, token: string) {
  return {
    name: 'find_slots',
    description: 'Find free slots.',
    params: [{ name: 'date', description: 'Day', required: true, type: 'string' }],
    webhook,
    header: { authorization: token },
    timeout: 3000,
    method: 'GET',
    messages: ['One moment.'],
  };
}

function toolsPlan(live: ReturnType<typeof liveTool>, desired: ReturnType<typeof manifestTool>, envReferences?: Record<string, string>): Plan {
  const agent = desiredAgent('booking', {
    id: 'a1',
    config: { tools: [desired] },
    ...(envReferences ? { envReferences, sensitivePaths: Object.keys(envReferences) } : {}),
  });
  const { changes } = diffStates({
    desired: desiredState({ agents: [agent] }),
    live: { agents: new Map([['a1', { id: 'a1', name: 'Booking', config: { tools: [live] } }]]), phones: [] },
    state: emptyWorkspace(),
    salt: 'salt',
    baseUrl: 'local',
    files: [],
  });
  return planOf(changes, { summary: summarize(changes) });
}

/** The lines of the text plan a line diff marks removed or added, without their indentation. */
function changedLines(plan: Plan): string[] {
  return renderPlanText(plan, { color: false })
    .split('\n')
    .filter((line) => /^ {10}[-+]/.test(line))
    .map((line) => line.replace(/^ {10}([-+])\s*/, '$1'));
}

const V0 = 'https://api.example.com/calendar/v0/slots';
const V1 = 'https://api.example.com/calendar/v1/slots';
const TOKEN = 'tok-4f9a8b7c6d5e';

describe('line diff of a structured value', () => {
  it('writes both sides in one key order: only the field that changed reads as removed and added', () => {
    expect(changedLines(toolsPlan(liveTool(V0, TOKEN), manifestTool(V1, TOKEN)))).toEqual([`-"webhook": "${V0}"`, `+"webhook": "${V1}"`]);
  });

  it('marks a header that changed inside a tool as changed, beside the other changes', () => {
    const lines = changedLines(toolsPlan(liveTool(V0, 'old-token-value'), manifestTool(V1, TOKEN)));
    expect(lines).toEqual(['-"header": "(sensitive)",', '+"header": "(sensitive value changed)",', `-"webhook": "${V0}"`, `+"webhook": "${V1}"`]);
    expect(renderPlanText(toolsPlan(liveTool(V0, 'old-token-value'), manifestTool(V1, TOKEN)), { color: false })).not.toContain(TOKEN);
  });

  it('marks a header the manifest fills from ${env:…} as changed when its value changed, and leaves it a context line when not', () => {
    const references = { 'config.tools.0.header.authorization': '${env:CAL_TOKEN}' };
    const changed = toolsPlan(liveTool(V0, 'old-token-value'), manifestTool(V1, TOKEN), references);
    expect(changedLines(changed)).toContain('+"header": "(sensitive value changed)",');
    const text = renderPlanText(changed, { color: false });
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('old-token-value');
    expect(changedLines(toolsPlan(liveTool(V0, TOKEN), manifestTool(V1, TOKEN), references))).toEqual([`-"webhook": "${V0}"`, `+"webhook": "${V1}"`]);
  });

  it('marks a changed header in a tool whose webhook is shown as written', () => {
    const references = { 'config.tools.0.webhook': '${env:SLOTS_URL}', 'config.tools.0.header.authorization': '${env:CAL_TOKEN}' };
    expect(changedLines(toolsPlan(liveTool(V0, 'old-token-value'), manifestTool(V1, TOKEN), references))).toEqual([
      '-"header": "(sensitive)",',
      '+"header": "(sensitive value changed)",',
      // Without trusted evidence, the live value of a place the manifests fill from ${env:…} is hidden.
      '-"webhook": "(sensitive)"',
      '+"webhook": "${env:SLOTS_URL}"',
    ]);
    expect(changedLines(toolsPlan(liveTool(V0, TOKEN), manifestTool(V1, TOKEN), references))).toEqual(['-"webhook": "(sensitive)"', '+"webhook": "${env:SLOTS_URL}"']);
  });

  it('leaves a webhook shown as written that did not change a line both sides share, beside a change elsewhere in the tool', () => {
    const resolved = 'https://api.example.com/k/cal2222bbbb/slots';
    const references = { 'config.tools.0.webhook': 'https://api.example.com/k/${env:CALENDAR_TOKEN}/slots' };
    const plan = toolsPlan({ ...liveTool(resolved, TOKEN), description: 'Find open slots.' }, manifestTool(resolved, TOKEN), references);
    expect(changedLines(plan)).toEqual(['-"description": "Find open slots.",', '+"description": "Find free slots.",']);
    expect(renderPlanText(plan, { color: false })).not.toContain('cal2222bbbb');
    // The saved plan keeps it so, for `plan show`.
    const json = JSON.parse(renderPlanJson(plan)) as { resource_changes: Array<{ field_changes: Array<{ before: Array<Record<string, unknown>>; after_written: Array<Record<string, unknown>> }> }> };
    const [field] = json.resource_changes[0]!.field_changes;
    expect([field?.before[0]?.webhook, field?.after_written[0]?.webhook]).toEqual(['(sensitive)', '(sensitive)']);
  });

  it('says only "(sensitive value changed)" when nothing but a header inside a tool changed', () => {
    const text = renderPlanText(toolsPlan(liveTool(V0, 'old-token-value'), manifestTool(V0, TOKEN)), { color: false });
    expect(text).toContain('~ config.tools: (sensitive value changed)\n');
  });

  it('leaves the JSON plan\'s values as they are: the redaction marker on both sides, no text of the line diff', () => {
    const json = JSON.parse(renderPlanJson(toolsPlan(liveTool(V0, 'old-token-value'), manifestTool(V1, TOKEN)))) as {
      resource_changes: Array<{ before: Record<string, Array<Record<string, unknown>>>; after: Record<string, Array<Record<string, unknown>>> }>;
    };
    const [change] = json.resource_changes;
    expect(change?.before['config.tools']?.[0]).toEqual({ ...liveTool(V0, ''), header: '(sensitive)' });
    expect(change?.after['config.tools']?.[0]).toEqual({ ...manifestTool(V1, ''), header: '(sensitive)' });
  });
});
