/**
 * Hostile YAML ends in one clear diagnostic at file:line:col, never a stack overflow, a hang or a
 * memory blow-up: nesting depth, alias count, expanded size, token count and the number of
 * diagnostics are capped, each with a code of its own (src/manifest/limits.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { Alias, Lexer, YAMLParseError } from 'yaml';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { parseYaml, reportYamlErrors } from '../../src/manifest/parse-yaml.js';
import { parseYamlDocument } from '../../src/project-files/document-text.js';
import { SourceRegistry } from '../../src/manifest/source.js';
import { countLines } from '../../src/util/text-position.js';
import { MAX_DIAGNOSTICS_KEPT, MAX_DIAGNOSTICS_SHOWN, MAX_ENVIRONMENT_RESOURCE_LOADS, MAX_ENVIRONMENTS } from '../../src/project-files/limits.js';
import { MAX_ALIAS_EXPANDED_VALUES, MAX_NESTING_DEPTH, MAX_YAML_TOKENS } from '../../src/yaml/limits.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { loadTree } from '../manifest/helpers.js';
import { yamlTokenCount } from '../../src/yaml/documents.js';

const tempDir = useTempDirs();

function codes(result: { diagnostics: Array<{ code: string; line: number; col: number }> }): string[] {
  return result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`);
}

const AGENT_WITH = (value: string): string => `agents:\n  front-desk:\n    id: ag_1\n    config:\n      llm: ${value}\n`;

describe('parser limits', () => {
  it('refuses flow collections nested past the depth limit (10,000 deep would overflow the stack)', async () => {
    const result = await loadTree({ 'voxform.yaml': AGENT_WITH(`${'['.repeat(10_000)}${']'.repeat(10_000)}`) });
    expect(codes(result)).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ code: 'yaml_too_deep', line: 5 });
    expect(result.diagnostics[0]?.message).toContain(`more than ${MAX_NESTING_DEPTH} levels`);
  });

  it('refuses block mappings nested past the depth limit', async () => {
    const deep = Array.from({ length: MAX_NESTING_DEPTH + 10 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n');
    const result = await loadTree({ 'voxform.yaml': `${deep} 1\n` });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['yaml_too_deep']);
    // And nesting that blows the general parser's own stack is the same diagnostic, not a syntax error.
    const deeper = Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    // At the line where nesting passes the limit, as for the shallower file, not where the parser's stack ran out.
    expect(codes(await loadTree({ 'voxform.yaml': `${deeper} 1\n` }))).toEqual([`${MAX_NESTING_DEPTH + 1}:${MAX_NESTING_DEPTH + 1} yaml_too_deep`]);
    expect(await parseYamlDocument(`${deeper} 1\n`)).toMatchObject({ ok: false, at: { line: MAX_NESTING_DEPTH + 1, col: MAX_NESTING_DEPTH + 1 }, problem: 'it nests too deeply to read' });
  });

  it('reports running out of stack once per document, however many places the parser met it', () => {
    // Where the general parser runs out of stack depends on the stack and the code's state when it
    // runs: a CI run saw it on two lines of the same document, and reported two problems.
    const text = 'a:\n b:\n  c: 1\n';
    const source = new SourceRegistry('/').forYaml('/m.yaml', text);
    countLines(source.lines, text);
    const outOfStack = (at: number) => new YAMLParseError([at, at + 1], 'IMPOSSIBLE', 'Maximum call stack size exceeded');
    const diagnostics = new DiagnosticList();
    reportYamlErrors({ errors: [outOfStack(3), outOfStack(8)], range: [0, text.length, text.length] }, source, diagnostics, undefined);
    expect(diagnostics.toList().map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['2:1 yaml_too_deep']);
  });

  it('refuses nesting that only aliases make deep', async () => {
    const levels = [`l0: &l0 [1]`];
    for (let i = 1; i <= MAX_NESTING_DEPTH + 2; i++) levels.push(`l${i}: &l${i} [*l${i - 1}]`);
    const result = await loadTree({ 'voxform.yaml': `${levels.join('\n')}\n` });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['yaml_too_deep']);
  });

  it('reports a self-referencing alias instead of recursing forever', async () => {
    const result = await loadTree({ 'voxform.yaml': 'defaults: &loop\n  config: { extra: *loop }\n' });
    expect(codes(result)).toEqual(['2:20 yaml_alias_cycle']);
    expect(result.diagnostics[0]?.message).toBe('the alias *loop is inside the anchor &loop it refers to, so it would repeat forever');
  });

  it('resolves every alias of a document in one walk: the library walks the whole document per alias (9,000 aliases took minutes)', async () => {
    // Counts the work that made it quadratic: each call of Alias.resolve walks every node.
    const resolve = vi.spyOn(Alias.prototype, 'resolve');
    try {
      const lines = ['version: 1', 'agents:', '  a0: {id: x0, config: {first_message: &m hello}}'];
      for (let i = 1; i < 300; i++) lines.push(`  a${i}: {id: x${i}, config: {first_message: *m}}`);
      const result = await loadTree({ 'voxform.yaml': `${lines.join('\n')}\n` });
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(result.state?.agents.get('a299')?.config.first_message).toBe('hello');
      expect(resolve).not.toHaveBeenCalled();
    } finally {
      resolve.mockRestore();
    }
  });

  it('resolves each alias to the last anchor of its name before it, as YAML says', async () => {
    const text = 'a: &x 1\nb: *x\nc: &x { k: 2 }\nd: *x\ne: [&y 3, *y]\n';
    const parsed = await parseYaml(new SourceRegistry('/').forYaml('/m.yaml', text), new DiagnosticList(), { subset: false });
    expect(parsed.documents[0]?.value).toEqual({ a: 1, b: 1, c: { k: 2 }, d: { k: 2 }, e: [3, 3] });
  });

  it('stops a billion-laughs document at the alias limit, with one diagnostic', async () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
    const result = await loadTree({ 'voxform.yaml': `${lines.join('\n')}\n` });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['yaml_alias_limit']);
  });

  it('stops a few aliases of a large anchor at the expanded-size limit', async () => {
    const items = Array.from({ length: 5_000 }, (_, i) => i).join(', ');
    const aliases = Array.from({ length: Math.ceil(MAX_ALIAS_EXPANDED_VALUES / 5_000) + 1 }, () => '*big').join(', ');
    const result = await loadTree({ 'voxform.yaml': `big: &big [${items}]\ncopies: [${aliases}]\n` });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['yaml_alias_limit']);
    expect(result.diagnostics[0]?.message).toContain('expand to more than 100,000 values');
  });

  it('points at the alias that passes the expansion limit, not at an earlier one or at the anchor', async () => {
    // A harmless alias first, then 9,999 more on one line (10,000 in all, the limit), then the one past it.
    const many = Array.from({ length: 9_999 }, () => '*k').join(', ');
    const result = await loadTree({ 'voxform.yaml': `early: &small hi\ncopy: *small\nk: &k v\nmany: [${many}]\nlast: *k\n` });
    expect(codes(result)).toEqual(['5:7 yaml_alias_limit']);
    expect(result.diagnostics[0]?.message).toBe(
      'with this alias, the aliases of this document are expanded more than 10,000 times (the limit per document), into 10,000 values; write the repeated part out, or use defaults',
    );
  });

  it('points at the alias whose copy passes the expanded-size limit', async () => {
    // Each copy of big is 5,001 values: the 20th passes 100,000, with the harmless alias before them.
    const items = Array.from({ length: 5_000 }, (_, i) => i).join(', ');
    const copies = Array.from({ length: 20 }, () => '  - *big').join('\n');
    const result = await loadTree({ 'voxform.yaml': `early: &small hi\ncopy: *small\nbig: &big [${items}]\ncopies:\n${copies}\n` });
    expect(codes(result)).toEqual(['24:5 yaml_alias_limit']);
    expect(result.diagnostics[0]?.message).toBe(
      'with this alias, the aliases of this document expand to more than 100,000 values (the limit per document), from 21 alias expansions; write the repeated part out, or use defaults',
    );
  });

  it('stops aliases of a long text at the expanded-text limit, at the alias whose copy passes it', async () => {
    // Each copy is 300,000 characters: the fourth passes 1,048,576. fmt refuses the document alike.
    const text = 'x'.repeat(300_000);
    const manifest = `big: &big "${text}"\ncopies:\n${Array.from({ length: 4 }, () => '  - *big').join('\n')}\n`;
    const result = await loadTree({ 'voxform.yaml': manifest });
    expect(codes(result)).toEqual(['6:5 yaml_alias_limit']);
    expect(result.diagnostics[0]?.message).toBe(
      'with this alias, the aliases of this document expand to more than 1,048,576 characters of text (the limit per document), from 4 alias expansions; write the repeated part out, or use defaults',
    );
    const { aliasesWithinLimits, parseYamlDocuments } = await import('../../src/yaml/documents.js');
    expect(parseYamlDocuments(manifest).documents.every(aliasesWithinLimits)).toBe(false);
    // Three copies stay within it.
    expect(parseYamlDocuments(manifest.replace(/\n {2}- \*big\n$/, '\n')).documents.every(aliasesWithinLimits)).toBe(true);
  });

  it('points a billion-laughs document at the first alias that passes a limit, past a harmless one', async () => {
    const lines = ['early: &small hi', 'copy: *small', 'a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
    const result = await loadTree({ 'voxform.yaml': `${lines.join('\n')}\n` });
    // Line 8 (a5) holds the first alias whose copy takes the count past 10,000: its first *a4.
    expect(codes(result)).toEqual(['8:10 yaml_alias_limit']);
  });

  it('refuses a document too large for the general parser, where the limit is passed', async () => {
    const items = Array.from({ length: MAX_YAML_TOKENS / 2 + 1 }, () => '1').join(',');
    const result = await loadTree({ 'voxform.yaml': `anchor: &a 1\nlist: [${items}]\n` });
    expect(result.diagnostics.map((d) => `${d.line} ${d.code}`)).toEqual(['2 yaml_too_large']);
  });

  it('counts a file the same whichever reader reads it: a typo in a large valid file is reported as itself, not as too large', async () => {
    // More pieces than the limit as the yaml library's lexer cuts them (spaces and quotes apart), fewer
    // tokens: just enough lines to pass the limit, each line a resource every reader checks.
    const lines = Array.from({ length: 16_700 }, (_, i) => `  a${i}: { id: "ag_${i}", config: { first_message: "Line ${i}" } }`);
    const valid = `agents:\n${lines.join('\n')}\n`;
    expect([...new Lexer().lex(valid)].length).toBeGreaterThan(MAX_YAML_TOKENS);
    expect(yamlTokenCount(valid)).toBeLessThan(MAX_YAML_TOKENS);
    const yamlCodes = (result: { diagnostics: Array<{ code: string; line: number; col: number }> }) => result.diagnostics.filter((d) => d.code.startsWith('yaml_')).map((d) => `${d.line}:${d.col} ${d.code}`);
    expect(yamlCodes(await loadTree({ 'voxform.yaml': valid }))).toEqual([]);
    const typo = valid.replace('\n  a1: ', '\n   a1: ');
    expect(yamlCodes(await loadTree({ 'voxform.yaml': typo }))).toEqual(['3:4 yaml_indentation']);
    // An anchor (which only the general reader reads) changes nothing either.
    expect(yamlCodes(await loadTree({ 'voxform.yaml': valid.replace('id: "ag_0"', 'id: &first "ag_0"') }))).toEqual([]);
  });

  it('stops checking resources once the kept diagnostics are full', async () => {
    const agents = Array.from({ length: 5_000 }, (_, i) => `  a${i}: { id: ag_${i}, config: { llm: { temperature: warm } } }`).join('\n');
    const result = await loadTree({ 'voxform.yaml': `agents:\n${agents}\n` });
    expect(result.diagnostics).toHaveLength(MAX_DIAGNOSTICS_KEPT);
    expect(result.omitted).toEqual({ errors: 0, warnings: 0, files: 0, stopped: true });
  });

  it('keeps a bounded number of diagnostics and counts the rest', async () => {
    const names = Array.from({ length: 3_000 }, (_, i) => `  "bad name ${i}": { id: ag_${i} }`).join('\n');
    const result = await loadTree({ 'voxform.yaml': `agents:\n${names}\n` });
    expect(result.diagnostics).toHaveLength(MAX_DIAGNOSTICS_KEPT);
    // Every name is checked (counted), but once 1,000 problems are kept the per-resource checks stop.
    expect(result.omitted).toEqual({ errors: 3_000 - MAX_DIAGNOSTICS_KEPT, warnings: 0, files: 0, stopped: true });
    expect(result.diagnostics[0]).toMatchObject({ code: 'invalid_name', line: 2, col: 3 });
  });

  it('with warnings only past the limit, names the limit as an error, first, and counts every file with a problem', async () => {
    const count = MAX_DIAGNOSTICS_KEPT + 200;
    const cwd = await tempDir(Object.fromEntries(Array.from({ length: count }, (_, i) => [`m/f${i}.yaml`, '# nothing yet\n'])));
    const result = await runCliInProcess(['validate', '-f', 'm'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^m\/f\d+\.yaml:1:1 {2}error\[too_many_problems\]: checking stopped at 1,000 problems, the most one run keeps \(this is the first past them\).*-f PATH/);
    expect(result.stderr).toContain('1 error, 1,200 warnings in 1,200 files');
    const json = await runCliInProcess(['validate', '-f', 'm', '--format', 'json'], { cwd });
    expect(JSON.parse(json.stdout).summary).toMatchObject({ errors: 1, warnings: count, omitted: count - MAX_DIAGNOSTICS_KEPT, problemFiles: count, stopped: true });
  });

  /** A manifest of `agents` agents and `environments` small overlays; its `environments:` key is on line `agents` + 2. */
  const manyEnvironments = (agents: number, environments: number): string =>
    [
      'agents:',
      ...Array.from({ length: agents }, (_, i) => `  a${i}: { id: ag_${i}, config: { first_message: Hello ${i} } }`),
      'environments:',
      ...Array.from({ length: environments }, (_, i) => `  e${i}: { defaults: { config: { timezone: Europe/Berlin, first_message: Hi ${i} } } }`),
      '',
    ].join('\n');

  it('refuses more environments than validate loads in time, at the environments: key, before loading any of them', async () => {
    const cwd = await tempDir({ 'voxform.yaml': manyEnvironments(1, MAX_ENVIRONMENTS + 1) });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^voxform\.yaml:3:1 {2}error\[too_many_environments\]: the manifests define 101 environments, more than the 100 voxform checks \(validate loads the manifests once for each\); split the manifests into projects of their own, or merge environments that differ little/,
    );
    expect(codes(await loadTree({ 'voxform.yaml': manyEnvironments(1, MAX_ENVIRONMENTS) }))).toEqual([]);
  });

  it('refuses environments × resources past the cap: many agents leave room for fewer environments', async () => {
    const environments = 100;
    const agents = MAX_ENVIRONMENT_RESOURCE_LOADS / environments;
    const over = await loadTree({ 'voxform.yaml': manyEnvironments(agents + 1, environments) });
    expect(over.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`)).toEqual([
      `${agents + 3}:1 too_many_environments the manifests define 100 environments of 1,001 resources: validate loads every resource once for each environment, 100,100 together, more than the 100,000 voxform checks; split the manifests into projects of their own, or merge environments that differ little`,
    ]);
    expect(codes(await loadTree({ 'voxform.yaml': manyEnvironments(agents, environments) }))).toEqual([]);
  });

  it('shows the first diagnostics and sums up the rest in one line', async () => {
    const names = Array.from({ length: 5_000 }, (_, i) => `  "bad name ${i}": { id: ag_${i} }`).join('\n');
    const cwd = await tempDir({ 'voxform.yaml': `agents:\n${names}\n` });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr.match(/^voxform\.yaml:\d+:\d+ {2}/gm)).toHaveLength(MAX_DIAGNOSTICS_SHOWN);
    expect(result.stderr).toContain(`…and 4,950 more, and checking stopped there (only the first ${MAX_DIAGNOSTICS_SHOWN} are shown; fix these and run again)`);
    expect(result.stderr).toContain('5,000 errors in 1 file');
    const json = await runCliInProcess(['validate', '--format', 'json'], { cwd });
    expect(JSON.parse(json.stdout).summary).toMatchObject({ errors: 5_000, omitted: 5_000 - MAX_DIAGNOSTICS_KEPT });
  });
});
