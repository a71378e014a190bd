import { describe, expect, it } from 'vitest';
import { renderDriftMarkdown } from '../../src/drift/render-markdown.js';
import type { DriftedResource, DriftReport } from '../../src/drift/types.js';
import type { FieldChange, ResourceChange } from '../../src/plan/types.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { COMMENT_SIZE_LIMIT } from '../../src/util/comment-blocks.js';

/** An agent whose prompt was edited on the service: a line diff of `lines` lines each side. */
function drifted(index: number, lines: number, words: (n: number) => string = () => ''): DriftedResource {
  const prompt = (who: string) => Array.from({ length: lines }, (_, n) => `- Rule ${n}: confirm the caller's name for booking ${index}-${n} (${who}).${words(n)}\n`).join('');
  const field: FieldChange = { path: 'config.prompt', before: prompt('dashboard'), after: prompt('manifests'), sensitive: false, drift: true };
  const address = `agent.agent-${String(index).padStart(5, '0')}`;
  const change: ResourceChange = { address, kind: 'agent', action: 'update', id: `ag-${index}`, before: null, after: null, fieldChanges: [field], sensitivePaths: [], reason: 'drift', dependsOn: [], requests: [], liveFingerprint: 'hmac-sha256:0' };
  return { change, address, kind: 'agent', class: 'outside', fields: [{ field, class: 'outside' }], gone: false, healable: true };
}

function driftOf(resources: DriftedResource[]): DriftReport {
  const summary = { checked: resources.length + 50, outside: resources.length, pending: 0, both: 0, unlabelled: 0, environment: 0, unrecorded: 0 };
  return { checkedAt: '2026-03-01T00:00:00.000Z', workspace: 'default@local', environment: undefined, baseUrl: 'http://127.0.0.1:4010', files: ['voxform.yaml'], resources, summary };
}

describe('drift --format markdown: within a comment\'s size limit', () => {
  it('two thousand changed agents: the heading and counts stay, the table and the diffs keep what fits, each counting the rest', () => {
    const markdown = renderDriftMarkdown(driftOf(Array.from({ length: 2000 }, (_, i) => drifted(i, 40))));
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(markdown.startsWith('### voxform drift on `http://127.0.0.1:4010`\n\n2,000 changed outside voxform, 0 in git not applied yet, 0 both (2,050 resources checked).\n')).toBe(true);
    const rows = markdown.split('\n').filter((line) => line.startsWith('| `agent.'));
    expect(rows.length).toBeGreaterThan(50);
    expect(markdown).toContain(`| …and ${(2000 - rows.length).toLocaleString('en-US')} more resources (\`--format json\` lists every one) | | | |\n`);
    const diffs = markdown.match(/^<details>/gm) ?? [];
    expect(diffs.length).toBeGreaterThan(0);
    expect(markdown.match(/^<\/details>$/gm)).toHaveLength(diffs.length);
    expect(markdown).toMatch(new RegExp(`\\n_…and ${(2000 - diffs.length).toLocaleString('en-US')} more resources: their differences are not shown here \\(\`--format json\` has them all\\)\\._\\n$`));
  });

  it('is cut in UTF-8 bytes: differences of many bytes a character stay within the limit as bytes', () => {
    const markdown = renderDriftMarkdown(driftOf(Array.from({ length: 2000 }, (_, i) => drifted(i, 40, () => ' Confirmé la réservation ✓✓✓✓✓✓✓✓ ñandú'))));
    expect(Buffer.byteLength(markdown, 'utf8')).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(markdown).toMatch(/more resources: their differences are not shown here/);
  });

  it('is whole when it fits', () => {
    const markdown = renderDriftMarkdown(driftOf([drifted(1, 3), drifted(2, 3)]));
    expect(markdown).not.toContain('…and');
    expect(markdown.match(/^<\/details>$/gm)).toHaveLength(2);
    expect(markdown.endsWith('</details>\n')).toBe(true);
  });

  it('is measured as posted: many short secrets, each longer once hidden, leave it within the limit and none of them in it', () => {
    const secrets = new SecretRegistry();
    const planted = Array.from({ length: 100 }, (_, n) => `k${String(n).padStart(2, '0')}Zq7`);
    for (const secret of planted) secrets.add(secret);
    const words = (n: number) => ` Codes ${planted[n % 100]} ${planted[(n + 1) % 100]} ${planted[(n + 2) % 100]} ${planted[(n + 3) % 100]}.`;
    const report = driftOf(Array.from({ length: 1000 }, (_, i) => drifted(i, 8, words)));
    const markdown = renderDriftMarkdown(report, { redact: (text) => secrets.redact(text) });
    // What stdout (or a CI step) writes is scrubbed once more: already scrubbed, it does not grow.
    const posted = secrets.redact(markdown);
    expect(posted.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(posted).toBe(markdown);
    expect(markdown).toContain('Codes (sensitive) (sensitive)');
    expect(markdown.length).toBeGreaterThan(COMMENT_SIZE_LIMIT - 2_000);
    for (const secret of planted) expect(markdown).not.toContain(secret);
  });
});
