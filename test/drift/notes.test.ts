import { describe, expect, it } from 'vitest';
import { leftAfterHealNote } from '../../src/drift/labels.js';
import { renderDriftMarkdown } from '../../src/drift/render-markdown.js';
import { renderDriftText } from '../../src/drift/render-text.js';
import type { DriftClass, DriftedResource, DriftReport } from '../../src/drift/types.js';
import type { FieldChange, ResourceChange } from '../../src/plan/types.js';
import { COMMENT_SIZE_LIMIT } from '../../src/util/comment-blocks.js';

/** A campaign whose name differs, of class `kind`. */
function drifted(index: number, kind: DriftClass): DriftedResource {
  const field: FieldChange = { path: 'name', before: `Recall ${index} (staging)`, after: `Recall ${index}`, sensitive: false, drift: true };
  const address = `campaign.recall-${String(index).padStart(5, '0')}`;
  const change: ResourceChange = { address, kind: 'campaign', action: 'update', id: `cmp-${index}`, before: null, after: null, fieldChanges: [field], sensitivePaths: [], reason: 'drift', dependsOn: [], requests: [], liveFingerprint: 'hmac-sha256:0' };
  const environment = kind === 'environment' ? { environment: 'staging' } : {};
  return { change, address, kind: 'campaign', class: kind, ...environment, fields: [{ field, class: kind, ...environment }], gone: false, healable: false };
}

function driftOf(count: number, kind: DriftClass): DriftReport {
  const resources = Array.from({ length: count }, (_, i) => drifted(i, kind));
  const summary = { checked: count, outside: 0, pending: 0, both: 0, unlabelled: kind === 'unlabelled' ? count : 0, environment: kind === 'environment' ? count : 0, unrecorded: 0 };
  return { checkedAt: '2026-03-01T00:00:00.000Z', workspace: 'production@local', environment: 'production', baseUrl: 'http://127.0.0.1:4010', files: ['voxform.yaml'], resources, summary };
}

const takeOver = (addresses: readonly string[]) => ({ plan: `voxform plan ${addresses.map((a) => `--take-over ${a}`).join(' ')} --env production`, apply: `voxform apply ${addresses.map((a) => `--take-over ${a}`).join(' ')} --env production` });

describe("drift's notes on differences not labelled and on another environment's apply", () => {
  it('name a few addresses and count the rest, in text and in a Markdown comment that keeps them', () => {
    for (const kind of ['unlabelled', 'environment'] as const) {
      const report = driftOf(3000, kind);
      const head = kind === 'unlabelled' ? 'Not labelled' : "Changed by another environment's apply";
      const text = renderDriftText(report, { color: false, takeOver });
      const note = text.split('\n').find((line) => line.startsWith(`${head}:`)) ?? '';
      expect(note).toContain(`${head}: campaign.recall-00000, campaign.recall-00001, campaign.recall-00002, campaign.recall-00003, campaign.recall-00004 and 2,995 more.`);
      expect(note).not.toContain('campaign.recall-00005');
      const markdown = renderDriftMarkdown(report, { takeOver });
      expect(markdown.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
      expect(markdown).toContain(`${head}: \`campaign.recall-00000\`, \`campaign.recall-00001\`, \`campaign.recall-00002\`, \`campaign.recall-00003\`, \`campaign.recall-00004\` and 2,995 more.`);
    }
  });

  it('give the take-over commands for every address when all are named, a form to repeat when some are counted', () => {
    const few = renderDriftText(driftOf(2, 'environment'), { color: false, takeOver });
    expect(few).toContain('review `voxform plan --take-over campaign.recall-00000 --take-over campaign.recall-00001 --env production`, then run `voxform apply --take-over campaign.recall-00000 --take-over campaign.recall-00001 --env production`.');
    const many = renderDriftText(driftOf(3000, 'environment'), { color: false, takeOver });
    expect(many).not.toContain('--take-over campaign.recall');
    expect(many).toContain('review `voxform plan --take-over ADDRESS --env production`, then run `voxform apply --take-over ADDRESS --env production`, with one --take-over for each address (`--format json` lists every one).');
  });
});

describe('what a heal leaves', () => {
  /** A healable agent whose fields are of the classes given, by path. */
  function agentReport(fields: Array<[string, DriftClass]>): DriftReport {
    const fieldChanges: FieldChange[] = fields.map(([path]) => ({ path, before: 'live', after: 'manifests', sensitive: false, drift: true }));
    const change: ResourceChange = { address: 'agent.front-desk', kind: 'agent', action: 'update', id: 'ag-1', before: null, after: null, fieldChanges, sensitivePaths: [], reason: 'drift', dependsOn: [], requests: [], liveFingerprint: 'hmac-sha256:0' };
    const resource: DriftedResource = { change, address: 'agent.front-desk', kind: 'agent', class: 'both', fields: fields.map(([, kind], i) => ({ field: fieldChanges[i] as FieldChange, class: kind })), gone: false, healable: true };
    return { checkedAt: '2026-03-01T00:00:00.000Z', workspace: 'default@local', environment: undefined, baseUrl: 'http://127.0.0.1:4010', files: ['voxform.yaml'], resources: [resource], summary: { checked: 1, outside: 0, pending: 0, both: 1, unlabelled: 0, environment: 0, unrecorded: 0 } };
  }

  it('names a field changed in git too: the heal puts back what was applied, which the manifests have since changed', () => {
    expect(leftAfterHealNote(agentReport([['config.first_message', 'outside'], ['config.prompt', 'both']]), 'voxform apply')).toBe(
      'Still differs after the heal: agent.front-desk config.prompt (in git, not applied yet). To settle it, run `voxform apply` to make the service match the manifests.',
    );
    expect(leftAfterHealNote(agentReport([['config.first_message', 'outside']]), 'voxform apply')).toBeUndefined();
  });
});
