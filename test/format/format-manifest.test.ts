import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { formatManifest, sameManifestMeaning } from '../../src/format/format-manifest.js';
import { isVoxformError, type VoxformError } from '../../src/errors.js';
import type { Diagnostic } from '../../src/manifest/types.js';
import { repoRoot } from '../helpers/cli.js';
import { loadedValues } from '../helpers/loaded-yaml.js';

const fmt = (source: string) => formatManifest(source, 'voxform.yaml').text;

/** Table of source → exact canonical text. */
const cases: Array<{ name: string; source: string; expected: string }> = [
  {
    name: 'top-level keys follow the schema, sections set apart by a blank line',
    source: 'agents:\n  a:\n    id: x\nversion: 1\nregion: eu\n',
    expected: 'version: 1\nregion: eu\n\nagents:\n  a:\n    id: x\n',
  },
  {
    name: 'agent keys: id, name, template, vars, config, knowledge, ignore',
    source: [
      'version: 1',
      'agents:',
      '  a:',
      '    ignore: [config.voice]',
      '    config: { first_message: hi }',
      '    knowledge: [faq]',
      '    vars: { business: Acme }',
      '    template: receptionist',
      '    name: Front desk',
      '    id: ag_1',
      '',
    ].join('\n'),
    expected: [
      'version: 1',
      '',
      'agents:',
      '  a:',
      '    id: ag_1',
      '    name: Front desk',
      '    template: receptionist',
      '    vars: { business: Acme }',
      '    config: { first_message: hi }',
      '    knowledge: [faq]',
      '    ignore: [config.voice]',
      '',
    ].join('\n'),
  },
  {
    name: 'config keys follow the AgentConfig order of the schema, recursively (tools, params)',
    source: [
      'agents:',
      '  a:',
      '    config:',
      '      language: en-US',
      '      tools:',
      '        - method: GET',
      '          webhook: https://x.test/slots',
      '          name: find_slots',
      '          params:',
      '            - { description: Day, type: string, name: date, required: true }',
      '      llm: { temperature: 0.3 }',
      '      prompt: Hello',
      '',
    ].join('\n'),
    expected: [
      'agents:',
      '  a:',
      '    config:',
      '      prompt: Hello',
      '      llm: { temperature: 0.3 }',
      '      tools:',
      '        - name: find_slots',
      '          params:',
      '            - { name: date, required: true, type: string, description: Day }',
      '          webhook: https://x.test/slots',
      '          method: GET',
      '      language: en-US',
      '',
    ].join('\n'),
  },
  {
    name: 'names of agents and phones keep the author order; unknown keys go last, in their order',
    source: 'agents:\n  zed: { id: z }\n  alpha: { id: a }\nphones:\n  "+15551230002": { agent: zed }\n  "+15551230001": { agent: alpha }\n',
    expected: 'agents:\n  zed: { id: z }\n  alpha: { id: a }\n\nphones:\n  "+15551230002": { agent: zed }\n  "+15551230001": { agent: alpha }\n',
  },
  {
    name: 'multi-line strings become literal block scalars; folded ones stay folded',
    source: 'agents:\n  a:\n    config:\n      prompt: "You are Ava.\\nBe brief.\\n"\n      first_message: >\n        Hello there\n',
    expected: 'agents:\n  a:\n    config:\n      prompt: |\n        You are Ava.\n        Be brief.\n      first_message: >\n        Hello there\n',
  },
  {
    name: 'comments travel with their keys',
    source: [
      'agents:',
      '  a:',
      '    name: A   # display name',
      '    # the live agent',
      '    id: x',
      '',
    ].join('\n'),
    expected: ['agents:', '  a:', '    # the live agent', '    id: x', '    name: A # display name', ''].join('\n'),
  },
  {
    name: 'a comment above the first key of a nested map travels with that key, not with the top',
    source: [
      'agents:',
      '  a:',
      '    # display name',
      '    name: A',
      '    # the live agent',
      '    id: x',
      '    config:   # what the service holds',
      '      # keep it short',
      '      first_message: Hi',
      '      # in a file',
      '      prompt: { file: p.md }',
      '',
    ].join('\n'),
    expected: [
      'agents:',
      '  a:',
      '    # the live agent',
      '    id: x',
      '    # display name',
      '    name: A',
      '    config: # what the service holds',
      '      # in a file',
      '      prompt: { file: p.md }',
      '      # keep it short',
      '      first_message: Hi',
      '',
    ].join('\n'),
  },
  {
    name: 'a comment beside a list item stays with the item',
    source: 'agents:\n  a:\n    config:\n      tools:\n        - # the lookup tool\n          description: d\n          name: lookup\n',
    expected: 'agents:\n  a:\n    config:\n      tools:\n        # the lookup tool\n        - name: lookup\n          description: d\n',
  },
  {
    name: 'the file header (modeline) stays on top when the first key moves',
    source: '# yaml-language-server: $schema=./schemas/manifest.schema.json\nagents: {}\nversion: 1\n',
    expected: '# yaml-language-server: $schema=./schemas/manifest.schema.json\n\nversion: 1\nagents: {}\n',
  },
  {
    name: 'a header separated by a blank line stays; the comment on the key moves with it',
    source: '# header\n\n# about agents\nagents: {}\nversion: 1\n',
    expected: '# header\n\nversion: 1\n# about agents\nagents: {}\n',
  },
  {
    name: 'a comment on the line of a key above a nested block stays on that line',
    source: 'phones:\n  "+15551230002":\n    import:   # imported on first apply\n      country: US\n      provider: twilio\n',
    expected: 'phones:\n  "+15551230002":\n    import: # imported on first apply\n      provider: twilio\n      country: US\n',
  },
  {
    name: 'indentation becomes 2 spaces, sequences indented under their key',
    source: 'credentials:\n- provider: openai\n  api_key: x\nagents:\n    a:\n        id: x\n',
    expected: 'agents:\n  a:\n    id: x\n\ncredentials:\n  - provider: openai\n    api_key: x\n',
  },
  {
    name: 'a flow list is written [a, b] and a flow map { a: 1 } wherever they sit, nested in each other too',
    source: [
      'agents:',
      '  a:',
      '    id: x',
      '    config: { first_message: hi, flow: { call_transfer: { phones: [ {phone: "+15551239999"} ] } } }',
      '    knowledge: [ faq, prices ]',
      'environments:',
      '  production:',
      '    gates: {soak: 2h, no_regression: [ error_rate, transfer_rate ]}',
      '    agents: { a: { config: { app_functions: [[x], []], vars: {} } } }',
      '',
    ].join('\n'),
    expected: [
      'agents:',
      '  a:',
      '    id: x',
      '    config: { flow: { call_transfer: { phones: [{ phone: "+15551239999" }] } }, first_message: hi }',
      '    knowledge: [faq, prices]',
      '',
      'environments:',
      '  production:',
      '    agents: { a: { config: { app_functions: [[x], []], vars: {} } } }',
      '    gates: { no_regression: [error_rate, transfer_rate], soak: 2h }',
      '',
    ].join('\n'),
  },
  {
    name: 'no blank line at the start of a block or of a document',
    source: '---\n\nversion: 1\n\nagents:\n\n  a:\n\n    id: x\n    config:\n\n      tools:\n\n        - name: t\n',
    expected: '---\nversion: 1\n\nagents:\n  a:\n    id: x\n    config:\n      tools:\n        - name: t\n',
  },
  {
    name: 'a comment closing a block keeps one blank line before the next section',
    source: 'version: 1\n\nagents:\n  a:\n    id: x\n  # b:\n  #   id: y\n\nphones:\n  "+15551230001": { agent: a }\n',
    expected: 'version: 1\n\nagents:\n  a:\n    id: x\n  # b:\n  #   id: y\n\nphones:\n  "+15551230001": { agent: a }\n',
  },
  {
    name: 'a document that is only `---` (last, or between two) stays `---`',
    source: 'version: 1\n---\n---\n# later\n---\n',
    expected: 'version: 1\n---\n---\n# later\n---\n',
  },
  {
    name: 'a comment above a key that sorting puts after a closing comment joins it, as yaml reads it back',
    source: 'knowledge:\n  faq: { file: faq.md }\n# the numbers\nphones:\n  "+15551230001": { agent: a }\nagents:\n  a:\n    id: x\n  # b:\n  #   id: y\nversion: 1\n',
    expected: 'version: 1\n\nagents:\n  a:\n    id: x\n  # b:\n  #   id: y\n\n  # the numbers\n\nphones:\n  "+15551230001": { agent: a }\n\nknowledge:\n  faq: { file: faq.md }\n',
  },
  {
    name: 'closing comments of nested blocks that sorting puts together are joined',
    source: 'agents:\n  a:\n    config:\n      first_message: hi\n      # about the greeting\n    id: x\n    # about a\n',
    expected: 'agents:\n  a:\n    id: x\n    config:\n      first_message: hi\n      # about the greeting\n\n      # about a\n',
  },
  {
    name: 'an empty value with a comment and a blank line after it',
    source: 'agents:\n  a:\n    id: x\n    config: # later\n\nphones: {}\n',
    expected: 'agents:\n  a:\n    id: x\n    config: # later\n\nphones: {}\n',
  },
  {
    name: 'a comment above the key sorting makes first in a list item goes above the dash',
    source: 'agents:\n  a:\n    config:\n      tools:\n        - webhook: https://x.test/slots\n          # the name the model sees\n          name: find_slots\n',
    expected: 'agents:\n  a:\n    config:\n      tools:\n        # the name the model sees\n        - name: find_slots\n          webhook: https://x.test/slots\n',
  },
  {
    name: 'several blank lines in a comment become one',
    source: 'agents: {}\n\n# one\n\n\n# two\nversion: 1\n',
    expected: '# one\n\n# two\nversion: 1\nagents: {}\n',
  },
  {
    name: 'long lines are never folded',
    source: `agents:\n  a:\n    config:\n      first_message: ${'word '.repeat(40).trim()}\n`,
    expected: `agents:\n  a:\n    config:\n      first_message: ${'word '.repeat(40).trim()}\n`,
  },
  {
    name: 'a merge key stays a plain `<<` and goes first in its mapping, where the keys after it read as what they are: overrides',
    source: [
      'defaults:',
      '  config: &base',
      '    language: en-US',
      '    first_message: Hello',
      'agents:',
      '  a:',
      '    config:',
      '      first_message: Hi',
      '      <<: *base',
      '    id: x',
      '  b:',
      '    config: { first_message: Hey, <<: *base }',
      '    id: y',
      '',
    ].join('\n'),
    expected: [
      'defaults:',
      '  config: &base',
      '    first_message: Hello',
      '    language: en-US',
      '',
      'agents:',
      '  a:',
      '    id: x',
      '    config:',
      '      <<: *base',
      '      first_message: Hi',
      '  b:',
      '    id: y',
      '    config: { <<: *base, first_message: Hey }',
      '',
    ].join('\n'),
  },
  {
    name: 'several merge keys keep their order (the first one written wins a key both hold); a quoted "<<" stays a quoted key',
    source: [
      'defaults:',
      '  vars: &one { tone: warm }',
      '  config: &two { language: en-US }',
      'agents:',
      '  a:',
      '    config:',
      '      custom_vocabulary: { keywords: { other: 2, "<<": 3 } }',
      '      <<: [*two, *one]',
      '    id: x',
      '',
    ].join('\n'),
    expected: [
      'defaults:',
      '  config: &two { language: en-US }',
      '  vars: &one { tone: warm }',
      '',
      'agents:',
      '  a:',
      '    id: x',
      '    config:',
      '      <<: [*two, *one]',
      '      custom_vocabulary: { keywords: { other: 2, "<<": 3 } }',
      '',
    ].join('\n'),
  },
  {
    name: 'environments are formatted like the top level',
    source: 'environments:\n  staging:\n    agents:\n      a: { name: A, id: x }\n    region: eu\n',
    expected: 'environments:\n  staging:\n    region: eu\n    agents:\n      a: { id: x, name: A }\n',
  },
];

describe('formatManifest', () => {
  test.each(cases)('$name', ({ source, expected }) => {
    expect(fmt(source)).toBe(expected);
  });

  test.each(cases)('is idempotent: $name', ({ source }) => {
    const once = fmt(source);
    expect(formatManifest(once, 'x.yaml')).toEqual({ text: once, changed: false });
  });

  test.each(cases)('keeps the meaning, as the loader reads it: $name', async ({ source }) => {
    expect(await loadedValues(fmt(source))).toEqual(await loadedValues(source));
  });

  test('reports whether the text changed', () => {
    expect(formatManifest('version: 1\n', 'x.yaml')).toEqual({ text: 'version: 1\n', changed: false });
    expect(formatManifest('agents: {}\nversion: 1\n', 'x.yaml').changed).toBe(true);
  });

  test('keeps every comment of agents.example.yaml and its meaning, and is idempotent on it', () => {
    const source = readFileSync(path.join(repoRoot, 'agents.example.yaml'), 'utf8');
    const once = fmt(source);
    expect(parse(once)).toEqual(parse(source));
    expect(fmt(once)).toBe(once);
    const comments = (text: string) => text.split('\n').flatMap((line) => /#\s(.*)$/.exec(line)?.[1]?.trim() ?? []);
    expect(comments(once).sort()).toEqual(comments(source).sort());
    expect(once.startsWith('# yaml-language-server: $schema=')).toBe(true);
  });

  test('keeps plain scalars as written, keys included: a phone number keeps its +, numbers their spelling', () => {
    const source = [
      'agents:',
      '  a:',
      '    config: { prompt: hi, vad_threshold: .5e1, session_timeout: 012 }',
      '    id: -OKspareAgent0000001',
      'phones:',
      '  +15551230001:',
      '    agent: a',
      '  +15551230002: { agent: a, note: +15551239999 }',
      'version: 0x1',
      '',
    ].join('\n');
    expect(fmt(source)).toBe(
      [
        'version: 0x1',
        '',
        'agents:',
        '  a:',
        '    id: -OKspareAgent0000001',
        '    config: { prompt: hi, vad_threshold: .5e1, session_timeout: 012 }',
        '',
        'phones:',
        '  +15551230001:',
        '    agent: a',
        '  +15551230002: { agent: a, note: +15551239999 }',
        '',
      ].join('\n'),
    );
  });

  test('the meaning check reads keys as the loader does: +15551230001 and 15551230001 are different phones', () => {
    expect(sameManifestMeaning('phones:\n  +15551230001: { agent: a }\n', 'phones:\n  15551230001: { agent: a }\n')).toBe(false);
    expect(sameManifestMeaning('phones:\n  +15551230001: { agent: a }\n', 'phones: { +15551230001: { agent: a } }\n')).toBe(true);
    // Values are compared as read: the loader reads both as the same number.
    expect(sameManifestMeaning('version: 012\n', 'version: 12\n')).toBe(true);
  });

  /** The problems fmt lists for a text it refuses, as `file:line:col code`. */
  function listed(source: string): string[] {
    let caught: unknown;
    try {
      formatManifest(source, 'manifests/voxform.yaml');
    } catch (error) {
      caught = error;
    }
    expect(isVoxformError(caught) && caught.code).toBe('yaml_syntax');
    const problems = ((caught as VoxformError).details as { diagnostics: Diagnostic[] }).diagnostics;
    return problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.code}`);
  }

  test('a YAML error is listed as the loader reports it: file, line, column and code', () => {
    expect(listed('version: 1\nagents:\n  a: [unclosed\n')).toEqual([expect.stringMatching(/^manifests\/voxform\.yaml:[34]:\d+ yaml_syntax$/)]);
    expect(listed('version: 1\nagents:\n\ta: {}\n')).toEqual(['manifests/voxform.yaml:3:1 yaml_tab_indent']);
    expect(listed('version: 1\nagents:\n  a:\n    config:\n\tllm: {}\n    id: x\n  b:\n    id: y\n')).toEqual(['manifests/voxform.yaml:5:1 yaml_tab_indent']);
  });

  test('a duplicate key is refused too, never a silent merge', () => {
    expect(listed('version: 1\nversion: 1\n')).toEqual(['manifests/voxform.yaml:2:1 duplicate_key']);
  });

  test('refuses rather than reordering an alias before its anchor', () => {
    const source = 'knowledge: &k\n  faq: { file: faq.md }\nagents:\n  a:\n    id: x\n    config: { knowledge_base: { files: [faq] } }\nenvironments:\n  e:\n    knowledge: *k\n';
    // Sorting keeps knowledge before environments here, so this one formats; the check below flips it.
    expect(parse(fmt(source))).toEqual(parse(source));
    const flipped = 'environments:\n  e:\n    knowledge: &k\n      faq: { file: faq.md }\nknowledge: *k\n';
    let caught: unknown;
    try {
      fmt(flipped);
    } catch (error) {
      caught = error;
    }
    expect((caught as VoxformError).code).toBe('fmt_unsafe');
  });

  test('a merge key given no mapping is refused, as the loader refuses it', () => {
    expect(listed('agents:\n  a:\n    id: x\n    config:\n      <<: 1\n')).toEqual(['manifests/voxform.yaml:5:11 yaml_merge']);
  });

  test('an empty file or a file of comments only is left alone', () => {
    expect(formatManifest('', 'x.yaml')).toEqual({ text: '', changed: false });
    expect(formatManifest('# nothing yet\n', 'x.yaml')).toEqual({ text: '# nothing yet\n', changed: false });
  });
});

describe('formatManifest: characters a reader cannot see stay escaped', () => {
  const manifest = (value: string) => `version: 1\n\nagents:\n  a:\n    id: x\n    config:\n      prompt: ${value}\n`;
  const promptOf = (text: string) => (parse(text) as { agents: { a: { config: { prompt: string } } } }).agents.a.config.prompt;

  test.each([
    ['a right-to-left override', String.raw`"a\u202eb"`, String.raw`"a\u202eb"`],
    ['the other bidirectional controls', String.raw`"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c"`, String.raw`"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c"`],
    ['zero-width characters, word joiner, byte-order mark, soft hyphen', String.raw`"\u200b\u200c\u200d\u2060\ufeff\u00ad"`, String.raw`"\u200b\u200c\u200d\u2060\ufeff\u00ad"`],
    ['a tag character, beyond the BMP', String.raw`"a\U000E0041"`, String.raw`"a\U000e0041"`],
    ['DEL and C1, NEL among them', String.raw`"a\x7f\u0085\x9b"`, String.raw`"a\u007f\u0085\u009b"`],
    ['a line separator', String.raw`"a\u2028b"`, String.raw`"a\u2028b"`],
    ['written raw in a plain scalar', 'a\u202eb\u200b', String.raw`"a\u202eb\u200b"`],
    ['written raw in single quotes', "'a\u202eb'", String.raw`"a\u202eb"`],
    ['with a line break: quoted, never a block scalar', String.raw`"x\u202e\ny"`, String.raw`"x\u202e\ny"`],
    ['ordinary escapes and letters are written as they read', String.raw`"\u00e9 日本 😀 \x41 \t\u202e"`, String.raw`"é 日本 😀 A \t\u202e"`],
  ])('%s', (_name, written, formatted) => {
    const once = fmt(manifest(written));
    expect(once).toBe(manifest(formatted));
    expect(promptOf(once)).toBe(promptOf(manifest(written)));
    expect(formatManifest(once, 'x.yaml').changed).toBe(false);
  });

  test('a long prompt with line breaks and a hidden character: quoted, every hidden character escaped, same meaning', () => {
    const prompt = `You are Ava.\u202e\n\nBe brief and kind to every caller.\n\u200bBye.\n`;
    const once = fmt(manifest(JSON.stringify(prompt)));
    expect(once).not.toMatch(/[\u202e\u200b]/u);
    expect(once).not.toContain('prompt: |');
    expect(promptOf(once)).toBe(prompt);
    expect(fmt(once)).toBe(once);
  });

  test('a key holding one is escaped too', () => {
    expect(fmt('version: 1\nagents:\n  "a\\u202eb":\n    id: x\n')).toBe('version: 1\n\nagents:\n  "a\\u202eb":\n    id: x\n');
  });
});

describe('formatManifest: a multi-line string of nothing but whitespace', () => {
  const manifest = (value: string) => `version: 1\n\nagents:\n  a:\n    id: x\n    config:\n      prompt: ${value}\n`;
  const promptOf = (text: string) => (parse(text) as { agents: { a: { config: { prompt: string } } } }).agents.a.config.prompt;

  test.each([' \n', '   \n\n', '\n\n \n\n', '\t\n ', '\n\n'])('%j stays double-quoted: a block scalar cannot hold it exactly', (prompt) => {
    const once = fmt(manifest(JSON.stringify(prompt)));
    expect(once).toMatch(/^      prompt: ".*"$/m);
    expect(promptOf(once)).toBe(prompt);
    expect(fmt(once)).toBe(once);
  });

  test('written as a block scalar, it is double-quoted too', () => {
    const source = manifest('|2+\n        \t ');
    expect(promptOf(source)).toBe('\t \n');
    const once = fmt(source);
    expect(once).toMatch(/^      prompt: ".*"$/m);
    expect(promptOf(once)).toBe('\t \n');
  });
});

describe('formatManifest: line endings', () => {
  const crlf = (text: string) => text.replaceAll('\n', '\r\n');

  test('a formatted file with CRLF line endings is unchanged', () => {
    const source = crlf('# head\nversion: 1\n\nagents:\n  a:\n    id: x # c\n    config:\n      first_message: |\n        Hi\n\n        there\n');
    expect(formatManifest(source, 'x.yaml')).toEqual({ text: source, changed: false });
  });

  test('a file whose first line ends in CRLF is formatted with CRLF throughout, block scalars and escapes meaning the same', () => {
    const source = 'agents:\r\n  a:\r\n    config:\r\n      prompt: "one\\r\\ntwo"\r\n      first_message: |\r\n        Hi\r\n\r\n        there  \r\n    id: x\nversion: 1\r\n';
    const { text, changed } = formatManifest(source, 'x.yaml');
    expect(changed).toBe(true);
    expect(text).toBe(crlf('version: 1\n\nagents:\n  a:\n    id: x\n    config:\n      prompt: "one\\r\\ntwo"\n      first_message: |\n        Hi\n\n        there  \n'));
    expect(sameManifestMeaning(text, source)).toBe(true);
    expect(parse(text)).toEqual({ version: 1, agents: { a: { id: 'x', config: { prompt: 'one\r\ntwo', first_message: 'Hi\n\nthere  \n' } } } });
    expect(formatManifest(text, 'x.yaml').changed).toBe(false);
  });

  test('a file whose first line ends in LF is written with LF', () => {
    expect(fmt('agents:\n  a:\r\n    id: x\r\nversion: 1\r\n')).toBe('version: 1\n\nagents:\n  a:\n    id: x\n');
  });
});
