import { describe, expect, it } from 'vitest';
import { renderDriftMarkdown } from '../../src/drift/render-markdown.js';
import { renderDriftText } from '../../src/drift/render-text.js';
import type { DriftedResource, DriftReport } from '../../src/drift/types.js';
import type { FieldChange, ResourceChange } from '../../src/plan/types.js';

/** A knowledge file gone from the service: every field unset there, set in the manifests. */
function goneFile(): DriftedResource {
  const fields: FieldChange[] = [
    { path: 'content_hash', before: undefined, after: 'sha256:cc68', sensitive: false, drift: false },
    { path: 'description', before: undefined, after: 'Opening hours and prices\nand parking', sensitive: false, drift: false },
    { path: 'api_key', before: undefined, after: 'k-123', sensitive: true, drift: false },
    { path: 'name', before: 'old.md', after: 'faq.md', sensitive: false, drift: false },
  ];
  const change: ResourceChange = { address: 'knowledge.faq', kind: 'knowledge', action: 'create', id: undefined, before: null, after: null, fieldChanges: fields, sensitivePaths: [], reason: 'gone', dependsOn: [], requests: [], liveFingerprint: 'hmac-sha256:0' };
  return { change, address: change.address, kind: 'knowledge', class: 'outside', fields: fields.map((field) => ({ field, class: 'outside' })), gone: true, healable: false };
}

function report(): DriftReport {
  return { checkedAt: '2026-03-01T00:00:00.000Z', workspace: 'default@local', environment: undefined, baseUrl: 'http://127.0.0.1:4010', files: ['voxform.yaml'], resources: [goneFile()], summary: { checked: 7, outside: 1, pending: 0, both: 0, unlabelled: 0, environment: 0, unrecorded: 0 } };
}

describe('drift shows both sides of a field unset on the service', () => {
  it('in text', () => {
    const text = renderDriftText(report(), { color: false });
    expect(text).toContain('      ~ content_hash: (unset) → "sha256:cc68"\n');
    expect(text).toContain('      ~ description (unset) on the service:\n          @@ -1,0 +1,2 @@\n          +Opening hours and prices\n');
    expect(text).toContain('      ~ api_key: (unset) → (sensitive value)\n');
    expect(text).not.toContain('k-123');
    // A field set on both sides, as before.
    expect(text).toContain('      ~ name: "old.md" → "faq.md"\n');
  });

  it('in Markdown', () => {
    const markdown = renderDriftMarkdown(report());
    expect(markdown).toContain('\n! content_hash: (unset) → "sha256:cc68"\n');
    expect(markdown).toContain('\n! description (unset) on the service\n@@ -1,0 +1,2 @@\n');
    expect(markdown).toContain('\n! api_key: (unset) → (sensitive value)\n');
    expect(markdown).toContain('\n! name: "old.md" → "faq.md"\n');
  });
});

describe('drift of a field whose diff has more lines than one call takes as arguments', () => {
  function longDescription(): DriftReport {
    const lines = Array.from({ length: 300_000 }, (_, index) => `line ${index}`).join('\n');
    const field: FieldChange = { path: 'description', before: undefined, after: lines, sensitive: false, drift: false };
    const base = report();
    const resource = base.resources[0] as DriftedResource;
    return { ...base, resources: [{ ...resource, change: { ...resource.change, fieldChanges: [field] }, fields: [{ field, class: 'outside' }] }] };
  }

  it('is shown whole in text, and listed in Markdown where a comment has no room for it, not a stack overflow', () => {
    expect(renderDriftText(longDescription(), { color: false })).toContain('          +line 299999\n');
    expect(renderDriftMarkdown(longDescription())).toContain('| `knowledge.faq` | changed outside voxform');
  });
});
