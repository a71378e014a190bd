import { describe, expect, it } from 'vitest';
import { markdownCode, markdownFence, markdownHtmlText, markdownText } from '../../src/util/markdown-escape.js';
import { controlsAsQuestionMarks, lineAsShown, printable, printableKeepingLines, replaceInParts, terminalPrinter, terminalText, toJsonText } from '../../src/util/printable.js';

describe('printable', () => {
  it.each([
    ['plain text and Unicode stay', 'Hello, café — 9 to 5 ✓', 'Hello, café — 9 to 5 ✓'],
    ['a tab stays', 'a\tb', 'a\tb'],
    ['ESC and BEL as JSON writes them', 'x\u001b]0;PWNED\u0007', 'x\\u001b]0;PWNED\\u0007'],
    ['line breaks as JSON writes them', 'a\nb\r\n', 'a\\nb\\r\\n'],
    ['NUL and backspace', '\u0000\b', '\\u0000\\b'],
    ['DEL and the C1 controls, which JSON leaves raw', '\u007f\u0085\u009b31m', '\\u007f\\u0085\\u009b31m'],
    ['zero-width characters, the soft hyphen and U+FEFF (format characters)', 'a\u200bb\u2060c\u00add\ufeffe\u200df', 'a\\u200bb\\u2060c\\u00add\\ufeffe\\u200df'],
    ['tag characters, which spell hidden text, as their UTF-16 units', 'Hi\u{e0049}\u{e007f}', 'Hi\\udb40\\udc49\\udb40\\udc7f'],
    ['emoji sequences joined by U+200D stay whole, skin tones and U+FE0F too', '👩‍💻 ❤️‍🔥 👩🏽‍💻', '👩‍💻 ❤️‍🔥 👩🏽‍💻'],
    ['variation selectors that pick an emoji, a keycap or an ideograph\'s look stay', '☺️ 1️⃣ 葛\u{e0100}', '☺️ 1️⃣ 葛\u{e0100}'],
    ['variation selectors after anything else (hidden bytes) are escaped', 'asked.\ufe01\u{e0131}\ufe0f', 'asked.\\ufe01\\udb40\\udd31\\ufe0f'],
    ['characters drawn as nothing: the combining grapheme joiner and the Hangul fillers', 'a\u034fb\u3164c\u115f', 'a\\u034fb\\u3164c\\u115f'],
  ])('%s', (_name, text, expected) => {
    expect(printable(text)).toBe(expected);
  });
});

describe('every rule finds a control character however far into a long text it stands', () => {
  // Each rule first looks for a character a match can start with; one missed there would pass unescaped.
  const plain = 'The agent greets the caller. '.repeat(400);
  const controls = [
    ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).filter((ch) => ch !== '\t' && ch !== '\n'),
    ...Array.from({ length: 0x21 }, (_, offset) => String.fromCharCode(0x7f + offset)),
    '\u200b', '\u202e', '\u00ad', '\ufeff', '\u034f', '\u3164', '\u{e0041}', '.\ufe0f', '.\u{e0101}',
  ];
  it.each([
    ['printable', printable],
    ['printableKeepingLines', printableKeepingLines],
    ['terminalText', (text: string) => terminalText(text, false)],
    ['toJsonText', toJsonText],
    ['controlsAsQuestionMarks', controlsAsQuestionMarks],
    ['lineAsShown', lineAsShown],
  ])('%s', (_name, rule) => {
    for (const control of controls) {
      const shown = String(rule(`${plain}${control}${plain}`));
      expect(shown, JSON.stringify(control)).not.toContain(control.at(-1));
    }
  });
});

describe('printableKeepingLines', () => {
  it('keeps line breaks and tabs, and escapes every other control character as printable does', () => {
    expect(printableKeepingLines('one\n\ttwo\r\nx\u001b[2J\u0007\u009b31m')).toBe('one\n\ttwo\\r\nx\\u001b[2J\\u0007\\u009b31m');
  });
});

describe('replaceInParts', () => {
  // One replace of tens of millions of matches aborts V8; a text that large is too slow for the suite, so parts are made small here.
  it('replaces as one replace does, a part of at most so many matches at a time, each lookaround seeing past its part', () => {
    const pattern = /x|b(?<=xb)/g;
    for (const matchesPerPart of [1, 2, 3, 100]) {
      expect(replaceInParts('xbxbbyx', pattern, ([match]) => match.toUpperCase(), matchesPerPart)).toBe('XBXBbyX');
    }
    expect(replaceInParts('none here', pattern, () => '?', 1)).toBe('none here');
  });

  it('escapes past the matches of one part as in one', () => {
    expect(printable(`${'\u0085'.repeat(250_001)}end`)).toBe(`${'\\u0085'.repeat(250_001)}end`);
    expect(toJsonText('\u200b'.repeat(250_001))).toBe(`"${'\\u200b'.repeat(250_001)}"`);
  });
});

describe('toJsonText', () => {
  it('escapes invisible characters as valid JSON that reads back the same value', () => {
    const value = { text: 'a\u200b\u{e0041}👩‍💻' };
    const json = toJsonText(value);
    expect(json).toBe('{"text":"a\\u200b\\udb40\\udc41👩‍💻"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});

/** The lines a CI runner obeys as workflow commands: `##[` anywhere, `::` after a line's leading blanks. */
function workflowCommands(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => line.includes('##[') || /^\s*::/.test(line));
}

describe('workflow commands (docs/security.md §8)', () => {
  it.each([
    ['`##[` anywhere in a line', 'ok ##[error]fake', 'ok ##\\u005berror]fake'],
    ['`::` at a line start', '::error::fake', ':\\u003aerror::fake'],
    ['`::` after blanks, a tab or a no-break space', '  ::add-mask::x\n\t::stop-commands::t\n\u00a0::error::y', '  :\\u003aadd-mask::x\n\t:\\u003astop-commands::t\n\u00a0:\\u003aerror::y'],
    ['a carriage return, escaped, starts no line', 'a\r::error::x', 'a\\r::error::x'],
    ['`::` inside a line and a single `#[` stay', 'at [::1]:4010 a::b #[x] ## [y]', 'at [::1]:4010 a::b #[x] ## [y]'],
  ])('terminalText: %s', (_name, text, shown) => {
    expect(terminalText(text, false)).toBe(shown);
    expect(terminalText(text, true)).toBe(shown);
    expect(workflowCommands(shown)).toEqual([]);
  });

  it('a stream escapes one split over writes, in the write that completes it', () => {
    const print = terminalPrinter(false);
    const writes = ['reply: ##', '[error]x\n  :', ':add-mask::y\n', ':', ':stop-commands::t\nmid::', ':z\n'];
    const shown = writes.map(print);
    expect(shown).toEqual(['reply: ##', '\\u005berror]x\n  :', '\\u003aadd-mask::y\n', ':', '\\u003astop-commands::t\nmid::', ':z\n']);
    expect(workflowCommands(shown.join(''))).toEqual([]);
  });

  it('toJsonText writes the `[` of `##[` as \\u005b: the value reads back the same', () => {
    const value = { prompt: '##[error]fake\n::error::y' };
    const json = toJsonText(value, 2);
    expect(json).toBe('{\n  "prompt": "##\\u005berror]fake\\n::error::y"\n}');
    expect(terminalText(json, false)).toBe(json);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('Markdown text escapes both with a backslash, which renders as the character', () => {
    expect(markdownText('::error::x ##[warning]y')).toBe('\\::error::x ##\\[warning\\]y');
    expect(terminalText(markdownText('  ::add-mask::x'), false)).toBe(' \\::add-mask::x');
    // Code shows text as it is: there the printed escape shows, as a control's does.
    expect(terminalText(markdownFence(['::error::x', '+##[error]y']).join('\n'), false)).toBe('```\n:\\u003aerror::x\n+##\\u005berror]y\n```');
    expect(terminalText(markdownCode('##[error]'), false)).toBe('`##\\u005berror]`');
  });

  it("Markdown's HTML (a <summary>, where a backslash shows) writes both with an entity, which renders as the character", () => {
    const shown = terminalText(markdownHtmlText('  ::add-mask::x ##[error]y ###[warning]z'), false);
    expect(shown).toBe('  &#58;:add-mask::x ##&#91;error]y ###&#91;warning]z');
    expect(workflowCommands(shown)).toEqual([]);
  });
});
