/** renderSarif as the library calls it: every artifact URI stays inside its base, with or without a source root. */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/manifest/types.js';
import { renderSarif } from '../../src/policy/sarif.js';

const problem = (file: string): Diagnostic => ({ severity: 'error', code: 'missing_id', message: 'agent "a" has no id', file, line: 3, col: 3 });

function artifactUris(sarif: Record<string, unknown>): unknown[] {
  const [run] = (sarif as { runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { artifactLocation: unknown } }> }> }> }).runs;
  return run?.results.map((result) => result.locations[0]?.physicalLocation.artifactLocation) ?? [];
}

describe('renderSarif without a sourceRoot', () => {
  it('names a file from the working directory, and one outside it by an absolute file: URI, never with ../', () => {
    const sarif = renderSarif({ report: undefined, diagnostics: [problem('agents/voxform.yaml'), problem('../elsewhere/voxform.yaml')], version: '1.0.0' });
    expect(artifactUris(sarif)).toEqual([
      { uri: 'agents/voxform.yaml', uriBaseId: '%SRCROOT%' },
      { uri: pathToFileURL(path.resolve(process.cwd(), '../elsewhere/voxform.yaml')).href },
    ]);
  });

  it('names a file in a folder whose name starts with two dots from the working directory: it is inside', () => {
    const sarif = renderSarif({ report: undefined, diagnostics: [problem('..agents/voxform.yaml')], version: '1.0.0' });
    expect(artifactUris(sarif)).toEqual([{ uri: '..agents/voxform.yaml', uriBaseId: '%SRCROOT%' }]);
  });
});
