import { describe, expect, it, vi } from 'vitest';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { interpolateString, interpolateTree } from '../../src/manifest/interpolate.js';
import { SourceRegistry, type Span } from '../../src/manifest/source.js';
import * as urlTokens from '../../src/secrets/url-tokens.js';

// The real splitter, counted: how often a text is split as a URL is the work a reference costs.
vi.mock('../../src/secrets/url-tokens.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/secrets/url-tokens.js')>();
  return { ...real, urlTokenRanges: vi.fn(real.urlTokenRanges) };
});

function run(text: string, env: Record<string, string | undefined>) {
  const diagnostics = new DiagnosticList();
  const secrets: string[] = [];
  const source = new SourceRegistry('/').forText('/m.yaml', `key: ${text}`);
  const span: Span = { source, start: 5, end: 5 + text.length };
  const result = interpolateString(text, span, { env, diagnostics, onSecret: (value) => secrets.push(value) });
  return { ...result, secrets, diagnostics: diagnostics.toList().map((d) => `${d.col} ${d.code} ${d.message}`) };
}

describe('interpolateString', () => {
  it.each([
    { text: 'plain text', env: {}, value: 'plain text', fromEnv: false, secrets: [] },
    { text: '${env:TOKEN}', env: { TOKEN: 's3cret' }, value: 's3cret', fromEnv: true, secrets: ['s3cret'] },
    { text: 'Bearer ${env:TOKEN}', env: { TOKEN: 's3cret' }, value: 'Bearer s3cret', fromEnv: true, secrets: ['s3cret'] },
    { text: '${env:A}-${env:B}', env: { A: 'first1', B: 'second' }, value: 'first1-second', fromEnv: true, secrets: ['first1', 'second'] },
    // A fallback is the manifest's own text: its place is from the environment, its value no secret to search for.
    { text: '${env:TOKEN:-dev-token}', env: {}, value: 'dev-token', fromEnv: true, secrets: [] },
    { text: '${env:TOKEN:-dev-token}', env: { TOKEN: '' }, value: 'dev-token', fromEnv: true, secrets: [] },
    { text: '${env:TOKEN:-dev-token}', env: { TOKEN: 'real-token' }, value: 'real-token', fromEnv: true, secrets: ['real-token'] },
    { text: '${env:TOKEN:-}', env: {}, value: '', fromEnv: true, secrets: [] },
    { text: '${env:URL:-http://localhost:8080/x}', env: {}, value: 'http://localhost:8080/x', fromEnv: true, secrets: [] },
    { text: '${env:EMPTY}', env: { EMPTY: '' }, value: '', fromEnv: true, secrets: [''] },
    { text: '$${env:TOKEN}', env: { TOKEN: 'x' }, value: '${env:TOKEN}', fromEnv: false, secrets: [] },
    { text: '${TOKEN} stays', env: { TOKEN: 'x' }, value: '${TOKEN} stays', fromEnv: false, secrets: [] },
  ])('$text with $env → $value', ({ text, env, value, fromEnv, secrets }) => {
    const result = run(text, env);
    expect(result.value).toBe(value);
    expect(result.fromEnv).toBe(fromEnv);
    expect(result.secrets).toEqual(secrets);
    expect(result.diagnostics).toEqual([]);
  });

  it('reports a missing variable at the reference itself', () => {
    const result = run('Bearer ${env:HOOK_TOKEN}', {});
    expect(result.value).toBe('Bearer ${env:HOOK_TOKEN}');
    expect(result.diagnostics).toEqual([
      '13 env_missing environment variable HOOK_TOKEN is not set; set it, or give a default with ${env:HOOK_TOKEN:-default}',
    ]);
  });

  it('reads a value of many references unset about once, not once per reference', () => {
    // A value read again for each reference made a manifest of 10,000 references load for a minute.
    const references = 1_000;
    const text = `https://h/hook?${Array.from({ length: references }, (_, i) => `t${i}=\${env:A}`).join('&')}#\${env:B${'x'.repeat(20)}}`.repeat(2);
    const diagnostics = new DiagnosticList();
    const written = `key: ${text}`;
    const source = new SourceRegistry('/').forText('/m.yaml', written);
    let reads = 0;
    Object.defineProperty(source, 'text', { get: () => (reads++, written) });
    const splits = vi.mocked(urlTokens.urlTokenRanges);
    splits.mockClear();
    const result = interpolateString(text, { source, start: 5, end: 5 + text.length }, { env: {}, diagnostics, onSecret: () => undefined });
    expect(result.value).toBe(text);
    expect(splits).toHaveBeenCalledTimes(1);
    expect(reads).toBe(1);
    // Each variable reported once, where it is first written: A in a query value (a secret's place), B not.
    expect(diagnostics.toList().map((d) => `${d.col} ${d.message}`)).toEqual([
      '24 environment variable A is not set; set it where plan and apply run (the place holds a secret: a default would write the secret into the manifest)',
      `${6 + text.indexOf('${env:B')} environment variable B${'x'.repeat(20)} is not set; set it, or give a default with \${env:B${'x'.repeat(20)}:-default}`,
    ]);
  });

  it('reports a malformed reference, its fallback never shown', () => {
    expect(run('${env:1BAD}', {}).diagnostics).toEqual([
      '6 env_syntax "${env:1BAD}" is not a valid reference; write ${env:NAME} or ${env:NAME:-default}',
    ]);
    expect(run('Bearer ${env:HOOK TOKEN:-fallback-secret}', {}).diagnostics).toEqual([
      '13 env_syntax "${env:HOOK TOKEN:-…}" is not a valid reference; write ${env:NAME} or ${env:NAME:-default}',
    ]);
  });
});

describe('a reference in the wrong case', () => {
  it('is sent as its text, with a warning at it naming the reference it was meant to be (a fallback never shown)', () => {
    const result = run('Bearer ${ENV:TOKEN}, ${Env:OTHER:-s3cret-default} and ${env:TOKEN}', { TOKEN: 'real-token', OTHER: 'other-value' });
    expect(result.value).toBe('Bearer ${ENV:TOKEN}, ${Env:OTHER:-s3cret-default} and real-token');
    expect(result.diagnostics).toEqual([
      '13 env_case "${ENV:TOKEN}" is not a reference, so it is sent as this text: references are written in lower case; write ${env:TOKEN} to read the variable',
      '27 env_case "${Env:OTHER:-…}" is not a reference, so it is sent as this text: references are written in lower case; write ${env:OTHER:-…} to read the variable',
    ]);
  });

  it('is found by the tree walk too, in a string with no reference in the right case', () => {
    const diagnostics = new DiagnosticList();
    const source = new SourceRegistry('/').forText('/m.yaml', 'prompt: "Key: ${ENV:FOO}"\n');
    interpolateTree({ prompt: 'Key: ${ENV:FOO}' }, { env: {}, diagnostics, onSecret: () => undefined }, { span: { source, start: 0, end: 25 } });
    expect(diagnostics.toList().map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['1:15 env_case']);
  });
});

describe('interpolateTree', () => {
  it('interpolates strings at any depth, reports their paths and leaves other values alone', () => {
    const paths: string[] = [];
    const value = interpolateTree(
      { a: { b: ['x', '${env:V}'], n: 3, t: true, z: null }, c: '${env:V}' },
      { env: { V: 'val' }, diagnostics: new DiagnosticList(), onSecret: () => undefined },
      { onEnvPath: (path) => paths.push(path.join('.')) },
    );
    expect(value).toEqual({ a: { b: ['x', 'val'], n: 3, t: true, z: null }, c: 'val' });
    expect(paths).toEqual(['a.b.1', 'c']);
  });

  it('tells each place filled from the environment the text as written, never the value', () => {
    const heard: Array<[string, string]> = [];
    interpolateTree(
      { url: 'https://x/${env:P}', token: 'Bearer ${env:T:-dev}', kept: '$${env:T}' },
      { env: { P: 'path', T: 'secret-token' }, diagnostics: new DiagnosticList(), onSecret: () => undefined },
      { onEnvPath: (path, written) => heard.push([path.join('.'), written]) },
    );
    expect(heard).toEqual([
      ['url', 'https://x/${env:P}'],
      ['token', 'Bearer ${env:T:-dev}'],
    ]);
  });
});

describe('the operator policy and forbidden places', () => {
  function check(text: string, env: Record<string, string | undefined>, forbiddenPlace?: string) {
    const diagnostics = new DiagnosticList();
    const names: string[] = [];
    const source = new SourceRegistry('/').forText('/m.yaml', `key: ${text}`);
    const span: Span = { source, start: 5, end: 5 + text.length };
    const result = interpolateString(text, span, { env, diagnostics, onSecret: () => undefined, onEnvName: (name) => names.push(name) }, forbiddenPlace);
    return { value: result.value, names, codes: diagnostics.toList().map((d) => `${d.col} ${d.code}`) };
  }

  it.each([
    { text: '${env:A}-${env:B:-nothing}', env: { A: '123456' }, place: undefined, value: '123456-nothing', names: ['A', 'B'], codes: [] },
    { text: '${env:VOXFORM_API_KEY}', env: { VOXFORM_API_KEY: 'k' }, place: undefined, value: '${env:VOXFORM_API_KEY}', names: [], codes: ['6 env_not_allowed'] },
    { text: 'x ${env:B}', env: { B: 'b', VOXFORM_ENV_ALLOW: 'A' }, place: undefined, value: 'x ${env:B}', names: [], codes: ['8 env_not_allowed'] },
    { text: '${env:A}', env: { A: 'allowed', VOXFORM_ENV_ALLOW: 'A' }, place: undefined, value: 'allowed', names: ['A'], codes: [] },
    { text: 'ag_${env:A}', env: { A: 'a' }, place: "an agent's id", value: 'ag_${env:A}', names: [], codes: ['9 env_forbidden'] },
    { text: '$${env:A}', env: { A: 'a' }, place: "an agent's id", value: '${env:A}', names: [], codes: [] },
  ])('$text in $place with $env', ({ text, env, place, value, names, codes }) => {
    expect(check(text, env, place)).toEqual({ value, names, codes });
  });
});
