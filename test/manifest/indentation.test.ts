/**
 * A wrongly indented line is reported at that line, at its first character, and once: not at the
 * line before it where the general parser notices the broken structure, and not again for the
 * lines after it.
 */
import { describe, expect, it } from 'vitest';
import { loadTree, summarize } from './helpers.js';

describe('wrong indentation', () => {
  it('points at a key indented deeper than its block', async () => {
    const result = await loadTree({
      'voxform.yaml': ['agents:', '  front-desk:', '    id: ag_1', '    name: Front desk', '     config:', '      language: en-US', ''].join('\n'),
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:6 yaml_indentation wrong indentation: this line is indented 5 spaces, but the block it continues is indented 4 (as on line 4); line it up with it',
    ]);
  });

  it('points at a key between two levels, at the key rather than column 1', async () => {
    const result = await loadTree({
      'voxform.yaml': ['agents:', '  front-desk:', '    id: ag_1', '   name: Front desk', 'phones: {}', ''].join('\n'),
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:4:4 yaml_indentation wrong indentation: this line is indented 3 spaces, which lines up with no block above it: line 3 is indented 4 and the block around it 2; line it up with one of them',
    ]);
  });

  it('reports a second wrong line of its own', async () => {
    const result = await loadTree({
      'voxform.yaml': ['agents:', '  a:', '    id: ag_1', '     name: A', '  b:', '    id: ag_2', '   name: B', ''].join('\n'),
    });
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['4:6 yaml_indentation', '7:4 yaml_indentation']);
  });

  it('leaves a valid multi-line value alone', async () => {
    const result = await loadTree({ 'voxform.yaml': ['agents:', '  a:', '    id: ag_1', '    name: A long', '      name', ''].join('\n') });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.agents.get('a')?.name).toBe('A long name');
  });

  it('names the comment that ended a | text when the text goes on below it', async () => {
    const result = await loadTree({
      'voxform.yaml': ['agents:', '  a:', '    id: ag_1', '    config:', '      prompt: |', '        You are kind.', '      # Rules', '        Be brief.', ''].join('\n'),
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:8:9 yaml_indentation wrong indentation: this line is indented 8 spaces, but the comment on line 7, indented less than the | text above it, ended that text; indent the comment as the text is (8 spaces), or remove it',
    ]);
  });

  it('points at the line in a file of CRLF line ends, or with a tab outside the indentation, as in one without', async () => {
    const lines = ['agents:', '  a:', '    id: ag_1', '    name: A # a\tcomment', '    config:', '      first_message: "Hi\tthere"', '       prompt: x', ''];
    for (const text of [lines.join('\n'), lines.join('\r\n')]) {
      expect(summarize(await loadTree({ 'voxform.yaml': text })), JSON.stringify(text)).toEqual([
        'voxform.yaml:7:8 yaml_indentation wrong indentation: this line is indented 7 spaces, but the block it continues is indented 6 (as on line 6); line it up with it',
      ]);
    }
    const endedText = ['agents:', '  a:', '    id: ag_1', '    config:', '      prompt: |', '        You are kind.', '      # Rules', '        Be brief.', ''].join('\r\n');
    expect(summarize(await loadTree({ 'voxform.yaml': endedText }))).toEqual([
      'voxform.yaml:8:9 yaml_indentation wrong indentation: this line is indented 8 spaces, but the comment on line 7, indented less than the | text above it, ended that text; indent the comment as the text is (8 spaces), or remove it',
    ]);
  });

  it('keeps the error of a tab in indentation before a wrongly indented line', async () => {
    const result = await loadTree({
      'voxform.yaml': ['agents:', '  a:', '    id: ag_1', '    config:', '      tools:', '        -\tname: t', '      first_message: hi', '       prompt: x', ''].join('\n'),
    });
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)[0]).toBe('6:10 yaml_tab_indent');
  });

  it('does not blame a comment after a key that is not a | text', async () => {
    const result = await loadTree({ 'voxform.yaml': ['agents:', '  a:', '    id: ag_1', '# note', '     name: A', ''].join('\n') });
    expect(summarize(result)[0]).toContain('but the block it continues is indented 4');
  });
});
