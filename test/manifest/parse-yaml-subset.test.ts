/**
 * The fast subset reader must give exactly what the general parser gives (values, key order and
 * the positions diagnostics use), or give up. Each case is read both ways and compared.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { parseYaml } from '../../src/manifest/parse-yaml.js';
import { parseYamlSubset } from '../../src/manifest/parse-yaml-subset.js';
import { spansOf } from '../../src/manifest/positions.js';
import { SourceRegistry, type SourceText } from '../../src/manifest/source.js';
import { repoRoot } from '../helpers/cli.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { yamlTokenCount } from '../../src/yaml/documents.js';

function source(text: string): SourceText {
  return new SourceRegistry('/').forYaml('/m.yaml', text);
}

/** Every position a diagnostic may use: each key's start and end, each value's start (and end for scalars). */
function positions(value: unknown, at = '$'): string[] {
  const spans = spansOf(value);
  if (!spans) return [];
  const out: string[] = [];
  for (const [part, entry] of spans.entries) {
    const child = (value as Record<string | number, unknown>)[part];
    const scalar = child === null || typeof child !== 'object';
    out.push(`${at}.${part}: key ${entry.key ? `${entry.key.start}-${entry.key.end}` : '-'} value ${entry.value.start}${scalar ? `-${entry.value.end}` : ''}`);
    out.push(...positions(child, `${at}.${part}`));
  }
  return out;
}

/** Both readers count a text's tokens alike: the subset reader reads it within exactly the count the general reader makes. */
function expectSameTokenCount(text: string, context?: string): void {
  const tokens = yamlTokenCount(text);
  expect(parseYamlSubset(source(text), undefined, tokens), context).toBeDefined();
  expect(parseYamlSubset(source(text), undefined, tokens - 1), context).toBeUndefined();
}

async function readBothWays(text: string) {
  const fast = parseYamlSubset(source(text));
  const general = await parseYaml(source(text), new DiagnosticList(), { subset: false });
  const documents = (docs: Array<{ value: unknown }>) => docs.filter((d) => d.value !== null);
  return { fast: fast && documents(fast), general: documents(general.documents), errors: general.syntaxErrors };
}

const agreeing: Record<string, string> = {
  'flat mapping with scalars of every core type': [
    'string: hello world',
    'int: 42',
    'negative: -7',
    'plus: +15551230001',
    'octal: 0o17',
    'hex: 0x1F',
    'float: 0.4',
    'exp: 1e3',
    'dot: .5',
    'trailing-dot: 1.',
    'yes: true',
    'no: False',
    'nothing: ~',
    'null-word: null',
    'empty:',
    'id: -OKdqbqetEcM4ak369ym',
    'url: https://hooks.example.com/a?b=c#frag',
    'colon-in-text: a:b',
    'hash-in-text: a#b',
    'version: 1',
  ].join('\n'),
  'comments everywhere': '# top\nkey: value # trailing\n  # indented comment\nother: 2\n\n# end\n',
  'nested mappings': 'agents:\n  front-desk:\n    id: ag_1\n    config:\n      flow:\n        response_delay: 300\n  booking:\n    id: ag_2\n',
  'sequences, also at the key indentation': 'a:\n  - one\n  - two\nb:\n- three\n- 4\nc: 1\n',
  'mappings in sequence items': 'tools:\n  - name: find\n    timeout: 5000\n    params:\n      - { name: date, type: string }\n  - name: other\n',
  'a sequence at the key indentation inside a sequence item': 'tools:\n- name: x\n  messages:\n  - a\n  - b\n',
  'block values under sequence items': 'list:\n  -\n    a: 1\n  - b\n',
  'flow collections': 'a: { b: 1, c: [x, y z, "q"], d: { e: null } }\nf: []\ng: {}\nh: [One moment, I\'m connecting you.]\n',
  'flow with quoted keys and JSON style': 'a: {"k":1, \'j\': two}\n',
  'flow keys that would read as numbers or booleans are text': 'a: {1: x, .inf: y, true: z, ~: w, 0x1F: v}\n',
  'quoted scalars': "a: 'it''s'\nb: \"tab\\there \\\"q\\\" \\u00e9 \\\\\"\nc: \"\"\nd: ''\n\"quoted key\": 1\n'single key': 2\n",
  'unquoted phone keys and values': 'phones:\n  +15551230001: { agent: a }\n  "+15551230002":\n    agent: b\ncaller: +15551230002\n',
  'literal block scalars': 'prompt: |\n  Line one\n\n  Line three\n    indented\nafter: 1\nstrip: |-\n  text\n\nlast: x\n',
  'block scalar at the end without a newline': 'p: |\n  one\n  two',
  'block scalar in a sequence item': 'l:\n  - |\n    a\n    b\n  - c\n',
  'block scalar with a comment line inside': 'p: |\n  # not a comment\n  text\nq: 1\n',
  'multiple documents': 'a: 1\n---\nb: 2\n--- # comment\nc: 3\n---\n',
  'leading document marker': '---\na: 1\n',
  'keys with spaces before the colon and odd characters': 'key   : v\n"a b": 1\nx.y-z_1: 2\n__proto__: 3\n',
  'the yaml-language-server modeline': '# yaml-language-server: $schema=./schemas/manifest.schema.json\nversion: 1\n',
  'unicode': 'name: Café 日本 🎉\nmsg: "Grüße"\n',
};

describe('parseYamlSubset agrees with the general parser', () => {
  it.each(Object.entries(agreeing))('%s', async (_name, text) => {
    const { fast, general, errors } = await readBothWays(text);
    expect(errors).toBe(false);
    expect(fast, 'the subset reader gave up').toBeDefined();
    expect(fast?.map((d) => d.value)).toEqual(general.map((d) => d.value));
    expect(fast?.map((d) => JSON.stringify(d.value))).toEqual(general.map((d) => JSON.stringify(d.value)));
    expect(fast?.map((d) => positions(d.value))).toEqual(general.map((d) => positions(d.value)));
    expectSameTokenCount(text);
  });

  it('on agents.example.yaml', async () => {
    const text = readFileSync(path.join(repoRoot, 'agents.example.yaml'), 'utf8');
    const { fast, general } = await readBothWays(text);
    expect(fast).toBeDefined();
    expect(fast?.map((d) => JSON.stringify(d.value))).toEqual(general.map((d) => JSON.stringify(d.value)));
    expect(fast?.map((d) => positions(d.value))).toEqual(general.map((d) => positions(d.value)));
    expectSameTokenCount(text);
  });
});

const outside: Record<string, string> = {
  tabs: 'a:\n\tb: 1\n',
  'CRLF line ends': 'a: 1\r\nb: 2\r\n',
  anchors: 'a: &x 1\nb: *x\n',
  'merge keys': 'a: &x {k: 1}\nb:\n  <<: *x\n',
  'an alias with no anchor': 'a: *x\n',
  tags: 'a: !!str 1\n',
  'numbers JSON has no kind for': 'a: 1\nb: -.inf\n',
  'not a number': 'a: [.NaN]\n',
  'duplicate keys': 'a: 1\na: 2\n',
  'multi-line plain scalars': 'a: one\n  two\n',
  'multi-line quoted scalars': 'a: "one\n  two"\n',
  'folded block scalars': 'a: >\n  one\n  two\n',
  'keep chomping': 'a: |+\n  one\n\n',
  'indentation indicators': 'a: |2\n   one\n',
  'multi-line flow collections': 'a: [1,\n  2]\n',
  'a trailing comma in flow': 'a: [1, 2, ]\n',
  'an empty flow value': 'a: {b: , c: 1}\n',
  'a mapping where a scalar must be': 'a: b: c\n',
  'over-indented keys': 'a: 1\n  b: 2\n',
  'a top-level sequence': '- a\n- b\n',
  'a top-level scalar': 'hello\n',
  'complex keys': '? a\n: b\n',
  directives: '%YAML 1.2\n---\na: 1\n',
  'document end markers': 'a: 1\n...\n',
  'nested compact sequences': 'a:\n  - - x\n',
  'empty sequence items': 'a:\n  -\n  - b\n',
  'a syntax error': 'a: {b: 1\nc: 2\n',
  'unknown escapes': 'a: "\\x41"\n',
  // YAML reads a mark before a document's content as a mark, and one within it as text; the loader drops one at the text's start, other readers (git show) may not.
  'a byte order mark before the first document': '\ufeffpolicy: { rules: { cost-prompt-tokens: mandatory } }\n',
  'a byte order mark after the leading comments': '# from a template\n\ufeffpolicy: { rules: { cost-prompt-tokens: mandatory } }\n',
  'a byte order mark within a value': 'a: x\ufeffy\n',
};

describe('parseYamlSubset gives up outside the subset', () => {
  it.each(Object.entries(outside))('%s', (_name, text) => {
    expect(parseYamlSubset(source(text))).toBeUndefined();
  });
});

const PIECES = [' ', '  ', '\n', '\n  ', ':', ': ', '- ', '-', '#', ' #', '"', "'", '[', ']', '{', '}', ',', '|', '|-', 'a', 'key', '1', '0.5', '~', 'true', '+1', '---', '\\', '\\n', '\n\n', '\ufeff'];

describe('parseYaml with a byte order mark before the content', () => {
  it('reads it as the mark it is, never as part of the first key, whichever reader reads the text', async () => {
    for (const text of ['\ufeffpolicy: { rules: { cost-prompt-tokens: mandatory } }\nversion: 1\n', '# two files joined\n\ufeffpolicy: { rules: { cost-prompt-tokens: mandatory } }\nversion: 1\n']) {
      const parsed = await parseYaml(source(text), new DiagnosticList());
      expect(parsed.syntaxErrors).toBe(false);
      expect(parsed.documents.map((d) => d.value)).toEqual([{ policy: { rules: { 'cost-prompt-tokens': 'mandatory' } }, version: 1 }]);
    }
  });
});

describe('parseYamlSubset under mutation', () => {
  it('either gives up or agrees with the general parser (and the general parser finds no error)', async () => {
    const next = seededRandom(20251122);
    const bases = [...Object.values(agreeing), readFileSync(path.join(repoRoot, 'agents.example.yaml'), 'utf8')];
    let accepted = 0;
    for (let round = 0; round < 4000; round++) {
      let text = bases[Math.floor(next() * bases.length)] as string;
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * (text.length + 1));
        const kind = next();
        if (kind < 0.4) text = text.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)] + text.slice(at);
        else if (kind < 0.8) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 3));
        else text = text.slice(0, at) + text.slice(at).replace(/^ */, (spaces) => ' '.repeat(Math.max(0, spaces.length + (next() < 0.5 ? -1 : 1))));
      }
      const fast = parseYamlSubset(source(text));
      if (!fast) continue;
      accepted++;
      const general = await parseYaml(source(text), new DiagnosticList(), { subset: false });
      const context = `mutant #${round}:\n${text}`;
      expect(general.syntaxErrors, context).toBe(false);
      const kept = (docs: Array<{ value: unknown }>) => docs.filter((d) => d.value !== null);
      expect(kept(fast).map((d) => JSON.stringify(d.value)), context).toEqual(kept(general.documents).map((d) => JSON.stringify(d.value)));
      expect(kept(fast).map((d) => positions(d.value)), context).toEqual(kept(general.documents).map((d) => positions(d.value)));
      expectSameTokenCount(text, context);
    }
    // The mutants must exercise the subset reader, not only its giving up.
    expect(accepted).toBeGreaterThan(500);
  });
});
