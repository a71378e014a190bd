/** renderSarif as the library calls it: every artifact URI stays inside its base, with or without a source root. */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/manifest/types.js';
import { renderSarif } from '../../src/policy/sarif.js';
import { useTempDirs } from '../helpers/cli.js';
import { oneAgent, policyOf } from './helpers.js';

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

  it('escapes what would end or redirect a relative URI: `#` (a fragment), `?` (a query), `:` (a scheme), `%` and spaces', () => {
    const files = ['my agents/agents 100%#x.yaml', 'prompts/what?.md', 'a:b/voxform.yaml'];
    const sarif = renderSarif({ report: undefined, diagnostics: files.map(problem), version: '1.0.0' });
    const uris = artifactUris(sarif).map((location) => (location as { uri: string }).uri);
    expect(uris).toEqual(['my%20agents/agents%20100%25%23x.yaml', 'prompts/what%3F.md', 'a%3Ab/voxform.yaml']);
    // Resolved against %SRCROOT% as a reader does, each names its file.
    const root = pathToFileURL(`${process.cwd()}/`);
    expect(uris.map((uri) => decodeURIComponent(new URL(uri, root).pathname))).toEqual(files.map((file) => path.resolve(file)));
  });
});

describe('renderSarif fingerprints', () => {
  const fingerprintsOf = (diagnostics: Diagnostic[]) => {
    const [run] = (renderSarif({ report: undefined, diagnostics, version: '1.0.0' }) as { runs: Array<{ results: Array<{ partialFingerprints: Record<string, string> }> }> }).runs;
    return run?.results.map((result) => result.partialFingerprints['voxformFinding/v1']) ?? [];
  };
  const duplicate = (line: number, firstLine: number): Diagnostic => ({ severity: 'error', code: 'duplicate_setting', message: `config.prompt is set twice: here and at voxform.yaml:${firstLine}:7; keep one`, file: 'voxform.yaml', line, col: 7 });

  it('leave out the positions a manifest problem\'s message names, and tell alike problems apart by their order', () => {
    const before = fingerprintsOf([duplicate(9, 4), duplicate(20, 15)]);
    expect(new Set(before).size).toBe(2);
    // Three lines added above both: every position in them moves, and no fingerprint changes.
    expect(fingerprintsOf([duplicate(12, 7), duplicate(23, 18)])).toEqual(before);
    expect(fingerprintsOf([{ ...duplicate(9, 4), code: 'duplicate_key' }])[0]).not.toBe(before[0]);
  });
});

describe('renderSarif of policy findings', () => {
  const tempDir = useTempDirs();

  it('ends a message with one mark before its hint: a question keeps its "?"', async () => {
    const report = await policyOf(await tempDir({ 'voxform.yaml': oneAgent('first_message: Hi.', 'policy:\n  rules: { pii-phone-numbr: mandatory }\n') }));
    const sarif = renderSarif({ report, diagnostics: [], version: '0.0.0' }) as { runs: Array<{ results: Array<{ ruleId: string; message: { text: string } }> }> };
    const text = sarif.runs[0]?.results.find((result) => result.ruleId === 'policy-invalid')?.message.text;
    expect(text).toMatch(/did you mean "pii-phone-number"\? An operator's pack/);
  });
});
