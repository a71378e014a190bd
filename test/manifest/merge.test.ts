import { describe, expect, it } from 'vitest';
import { deepMerge } from '../../src/manifest/merge.js';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { parseYaml } from '../../src/manifest/parse-yaml.js';
import { spanAt } from '../../src/manifest/positions.js';
import { locationOf, SourceRegistry } from '../../src/manifest/source.js';

describe('deepMerge', () => {
  it.each([
    { name: 'objects merge key by key', base: { a: 1, b: { c: 2, d: 3 } }, overlay: { b: { d: 4, e: 5 } }, expected: { a: 1, b: { c: 2, d: 4, e: 5 } } },
    { name: 'lists replace, never concatenate', base: { l: [1, 2] }, overlay: { l: [3] }, expected: { l: [3] } },
    { name: 'null in the overlay wins (clear the field)', base: { v: { id: 'x' } }, overlay: { v: null }, expected: { v: null } },
    { name: 'an object replaces a scalar', base: { w: 'https://x' }, overlay: { w: { url: 'https://y' } }, expected: { w: { url: 'https://y' } } },
    { name: 'a scalar replaces an object', base: { w: { url: 'https://y' } }, overlay: { w: 'https://x' }, expected: { w: 'https://x' } },
    { name: 'undefined overlay keeps the base', base: { a: 1 }, overlay: undefined, expected: { a: 1 } },
  ])('$name', ({ base, overlay, expected }) => {
    const before = JSON.stringify(base);
    expect(deepMerge(base, overlay)).toEqual(expected);
    expect(JSON.stringify(base)).toBe(before);
  });

  it('keeps the position of each value where it was written', async () => {
    const sources = new SourceRegistry('/p');
    const diagnostics = new DiagnosticList();
    const base = (await parseYaml(sources.forYaml('/p/base.yaml', 'flow:\n  a: 1\n  b: 2\n'), diagnostics)).documents[0]?.value;
    const overlay = (await parseYaml(sources.forYaml('/p/over.yaml', 'x: 0\nflow:\n  b: 3\n'), diagnostics)).documents[0]?.value;
    const merged = deepMerge(base, overlay);
    expect(locationOf(spanAt(merged, ['flow', 'a'])!)).toEqual({ file: 'base.yaml', line: 2, col: 6 });
    expect(locationOf(spanAt(merged, ['flow', 'b'])!)).toEqual({ file: 'over.yaml', line: 3, col: 6 });
    expect(locationOf(spanAt(merged, ['flow', 'b'], 'key')!)).toEqual({ file: 'over.yaml', line: 3, col: 3 });
  });
});

describe('merge keys', () => {
  const parse = async (text: string) => {
    const diagnostics = new DiagnosticList();
    const value = (await parseYaml(new SourceRegistry('/p').forYaml('/p/m.yaml', text), diagnostics)).documents[0]?.value;
    return { value, codes: diagnostics.toList().map((diagnostic) => diagnostic.code) };
  };

  it('merge an alias of a list of mappings as they merge a list of aliases, the first mapping winning', async () => {
    const { value, codes } = await parse('parts: &parts [{ a: 1 }, { a: 2, b: 2 }]\nx: { <<: *parts, c: 3 }\n');
    expect(codes).toEqual([]);
    expect((value as { x: unknown }).x).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('refuse a list inside the list', async () => {
    const { codes } = await parse('parts: &parts [[{ a: 1 }]]\nx: { <<: *parts }\n');
    expect(codes).toEqual(['yaml_merge']);
  });
});
