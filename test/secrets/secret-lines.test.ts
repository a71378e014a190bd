import { describe, expect, it } from 'vitest';
import { maskSecretLines, shownOffset, type MaskedLine } from '../../src/secrets/secret-lines.js';

/** The text with the masked lines put in: what a frame of every line would show. */
function shown(lines: string[]): string[] {
  const masked = maskSecretLines(lines.join('\n'));
  return lines.map((line, index) => masked.get(index + 1)?.shown ?? line);
}

describe('maskSecretLines', () => {
  it.each([
    {
      name: 'header lines keep their names; the lines after the block are shown',
      text: ['      headers:', '        x-token: abc', '        x-other: "d e"', '      url: https://h.example.com'],
      expected: ['      headers:', '        x-token: (sensitive)', '        x-other: (sensitive)', '      url: https://h.example.com'],
    },
    {
      name: 'a value on the key line, flow style, and a key in another case',
      text: ['  headers: { x-token: abc }', '  Api_Key: k1', '  other: { url: u, header: { a: b } }, more: 1'],
      expected: ['  headers: { x-token: (sensitive) }', '  Api_Key: (sensitive)', '  other: { url: u, header: { a: (sensitive) } (sensitive)'],
    },
    {
      name: 'a flow mapping shows its keys, its closing brackets and a lone reference, as a block one does; anything else in it hides it whole',
      text: ['h: { headers: { x-a: "${env:A}", "x-b": 1, c: "d, e" } }', 'headers: { a: [1] }', 'headers: { a: 1 } # note', 'headers: { a b: 1 }', 'headers: { a: "x'],
      expected: ['h: { headers: { x-a: "${env:A}", "x-b": (sensitive), c: (sensitive) } }', 'headers: (sensitive)', 'headers: { a: (sensitive) } (sensitive)', 'headers: (sensitive)', 'headers: (sensitive)'],
    },
    {
      name: 'a block scalar and a comment are hidden whole',
      text: ['credentials:', '  pin: |', '    line one', '    pin: two', '  # old: xyz', 'next: 1'],
      expected: ['credentials:', '  pin: (sensitive)', '    (sensitive)', '    (sensitive)', '  (sensitive)', 'next: 1'],
    },
    {
      name: 'a tab or any odd blank in the indentation stays inside the value',
      text: ['  headers:', '    a: 1', '\t b: 2', '\u00a0c: 3', '  d: 4'],
      expected: ['  headers:', '    a: (sensitive)', '\t (sensitive)', '\u00a0(sensitive)', '  d: 4'],
    },
    {
      name: 'an open quote or bracket goes on hiding until it closes, wherever it is indented',
      text: ['  headers: { a: "x', 'y" ,', 'b: [1,', '2] }', 'after: 1'],
      expected: ['  headers: (sensitive)', '(sensitive)', '(sensitive)', '(sensitive)', 'after: 1'],
    },
    {
      name: 'a value that is one ${env:…} reference is shown (its name is no secret); a fallback is hidden',
      text: ['headers:', '  a: ${env:HOOK_TOKEN}', '  b: "${env:HOOK_TOKEN}"', '  c: ${env:HOOK_TOKEN:-fallback}', '  d: x${env:HOOK_TOKEN}'],
      expected: ['headers:', '  a: ${env:HOOK_TOKEN}', '  b: "${env:HOOK_TOKEN}"', '  c: (sensitive)', '  d: (sensitive)'],
    },
    {
      name: 'a list under the key at its own column',
      text: ['credentials:', '- one', '- two', 'next: 1'],
      expected: ['credentials:', '(sensitive)', '(sensitive)', 'next: 1'],
    },
    {
      name: 'each list item shows its keys, and a value that is one reference, as a mapping does',
      text: ['credentials:', '  - provider: openai', '    api_key: ${env:VOXFORM_OPENAI_KEY}', '  - provider: x', '    api_key: sk-literal', '    note: |', '      sk-in-a-block', '      - provider: y', 'next: 1'],
      expected: ['credentials:', '  - provider: openai', '    api_key: ${env:VOXFORM_OPENAI_KEY}', '  - provider: x', '    api_key: (sensitive)', '    note: (sensitive)', '      (sensitive)', '      (sensitive)', 'next: 1'],
    },
    {
      name: 'an anchor a secret value refers to',
      text: ['base: &tok abc', 'list:', '  - &h', '    x: y', 'headers: { a: *tok, <<: *h }'],
      expected: ['base: &tok (sensitive)', 'list:', '  - &h', '    x: (sensitive)', 'headers: (sensitive)'],
    },
    {
      name: 'keys that only contain a secret name, and apostrophes in plain text, are left alone',
      text: ['x-headers: 1', 'note: it\'s the header', 'credentialsx: 2', 'next: 3'],
      expected: ['x-headers: 1', 'note: it\'s the header', 'credentialsx: 2', 'next: 3'],
    },
  ])('$name', ({ text, expected }) => {
    expect(shown(text)).toEqual(expected);
  });

  it("shows the top-level credentials' providers (one word, which tells which credential a frame is about), and nothing else", () => {
    const masked = maskSecretLines(['credentials:', '  - provider: openai', '    api_key: sk-literal-1', 'agents:', '  a:', '    config:', '      app_functions:', '        - credentials:', '            provider: app-secret-2'].join('\n'));
    expect(masked.get(2)).toMatchObject({ shown: '  - provider: openai', hidden: [] });
    expect(masked.get(3)?.hidden).toEqual(['sk-literal-1']);
    expect(masked.get(9)).toMatchObject({ shown: '            provider: (sensitive)', hidden: ['app-secret-2'] });
  });

  it('hides a top-level provider that is not one word, or that goes on past its line, but lets messages name it', () => {
    const text = ['credentials:', '  - provider: openai # sk-in-a-comment', '  - provider: "two words"', "  - Provider: 'anthropic'", '  - provider: "open', '      ai"', 'environments:', '  staging:', '    credentials:', '      - provider: openai'];
    expect(shown(text)).toEqual(['credentials:', '  - provider: (sensitive)', '  - provider: (sensitive)', "  - Provider: 'anthropic'", '  - provider: (sensitive)', '      (sensitive)', 'environments:', '  staging:', '    credentials:', '      - provider: (sensitive)']);
    const masked = maskSecretLines(text.join('\n'));
    expect(masked.get(2)?.hidden).toEqual([]);
    expect(masked.get(10)?.hidden).toEqual(['openai']);
  });

  it("puts a unit of a flow mapping's line where the frame shows it: a key or reference as written, a hidden value at its mark", () => {
    const line = 'headers: { x-a: "${env:A}", b: secret-1, c: x } # x';
    const masked = maskSecretLines(line).get(1);
    expect(masked?.shown).toBe('headers: { x-a: "${env:A}", b: (sensitive), c: (sensitive) } (sensitive)');
    const at = (written: string, shown: string) => expect(shownOffset(masked as MaskedLine, line.indexOf(written))).toBe(masked?.shown.indexOf(shown));
    at('x-a', 'x-a');
    at('"${env:A}"', '"${env:A}"');
    at('b:', 'b:');
    at('secret-1', '(sensitive), c');
    at('cret-1', '(sensitive), c');
    at('c: x', 'c: (sensitive)');
    at('x }', '(sensitive) }');
    expect(shownOffset(masked as MaskedLine, line.indexOf('# x'))).toBe(masked?.shown.lastIndexOf('(sensitive)'));
  });

  it('reads a hostile megabyte line in linear time', () => {
    const line = `x: ${'-'.repeat(1_000_000)} ${' headers'.repeat(100_000)}`;
    expect(maskSecretLines(`${line}\nheaders: ${'{'.repeat(100_000)}`).size).toBe(1);
  });
});
