/**
 * Code frames show the lines around a problem as written. Secret header values on those lines must
 * be hidden in every case, also when the YAML could not be read and the loader never learnt which
 * values are secret (docs/security.md §5, docs/manifest.md "Secret fields").
 */
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { loadTree } from '../manifest/helpers.js';

const tempDir = useTempDirs();

const HEAD = [
  'version: 1',
  'agents:',
  '  desk:',
  '    id: -OKspareAgent0000001',
  '    config:',
  '      session_data_webhook:',
  '        url: https://hooks.example.com/end',
  '        headers:',
];

/** The triggers the audit found; each plants values that must never be printed. */
const TRIGGERS = [
  { name: 'a duplicate header key', lines: ['          x-token: PLANTDUPA1', '          x-token: PLANTDUPB2'], at: 10 },
  { name: 'a YAML syntax error on the next line', lines: ['          x-token: PLANTSYNTAX1', '          x-other: [PLANTSYNTAX2'], at: 11 },
  { name: 'a tab in the next line\'s indentation', lines: ['          x-token: PLANTTAB1', '\t  x-other: PLANTTAB2'], at: 10 },
  {
    name: 'a block scalar next to an unrelated error',
    lines: ['          x-token: |', '            PLANTBLOCK1', '            PLANTBLOCK2', '      unknownfield: 1'],
    at: 12,
  },
  { name: 'a number-valued header', lines: ['          x-num: 987612345'], at: 9 },
];

const PLANTED = /PLANT[A-Z]+\d|987612345/;

describe('code frames never show a secret header value', () => {
  it.each(TRIGGERS)('$name: validate (text and JSON) and plan', async ({ lines, at }) => {
    const cwd = await tempDir({ 'voxform.yaml': [...HEAD, ...lines, ''].join('\n') });
    const runs = [
      await runCliInProcess(['validate'], { cwd }),
      await runCliInProcess(['validate', '--format', 'json'], { cwd }),
      await runCliInProcess(['plan', '--local'], { cwd }),
      await runCliInProcess(['plan', '--local', '--format', 'markdown'], { cwd }),
    ];
    for (const run of runs) {
      expect(run.code).toBe(1);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(PLANTED);
    }
    // The frames are there, with the header names and the secrets hidden.
    expect(runs[0]?.stderr).toContain(`voxform.yaml:${at}:`);
    expect(runs[0]?.stderr).toContain('(sensitive)');
    const json = JSON.parse(runs[1]?.stdout ?? '') as { diagnostics: Array<{ line: number; frame: string }> };
    expect(json.diagnostics.some((d) => d.line === at && d.frame.includes('(sensitive)'))).toBe(true);
  });

  it('keeps the header names and the rest of the frame readable', async () => {
    const cwd = await tempDir({ 'voxform.yaml': [...HEAD, ...(TRIGGERS[0]?.lines ?? []), ''].join('\n') });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.stderr).toBe(
      [
        'voxform.yaml:10:11  error[duplicate_key]: the key "x-token" is written twice in this mapping (first on line 9); YAML keys must be unique: keep one',
        '   8 |         headers:',
        '   9 |           x-token: (sensitive)',
        '> 10 |           x-token: (sensitive)',
        '     |           ^',
        '',
        '1 error in 1 file',
        '',
      ].join('\n'),
    );
  });
});

describe('the caret under a line with a hidden part', () => {
  const caretLine = (frame: string | undefined) => {
    const lines = (frame ?? '').split('\n');
    const at = lines.findIndex((line) => line.startsWith('>'));
    return { line: lines[at] ?? '', caret: lines[at + 1] ?? '' };
  };
  const under = (frame: string | undefined) => {
    const { line, caret } = caretLine(frame);
    return line.slice(caret.indexOf('^'));
  };

  it('stands under the reported column, though the line as shown is shorter before it', async () => {
    // The spaces before a lone reference are not shown: the reference moves left, and the caret with it.
    const result = await loadTree({ 'voxform.yaml': 'credentials:\n  - provider: openai\n    api_key:        "${env:VOXFORM_SECRET}"\n' });
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['3:22 env_not_allowed']);
    expect(under(result.diagnostics[0]?.frame)).toBe('${env:VOXFORM_SECRET}"');
  });

  it('stands at the start of a hidden part for a column inside it, never within it', async () => {
    const result = await loadTree({ 'voxform.yaml': 'phones:\n  "+15551230001":\n    import: { country: US, region: us-west, api_key: PLANTKEY1, api_secret: y, bogus: 1 }\n' });
    const bogus = result.diagnostics.find((d) => d.code === 'unknown_field');
    expect(bogus?.col).toBe(80);
    expect(under(bogus?.frame)).toBe('(sensitive)');
  });
});

/** Other shapes a secret can take next to a problem; the loader's frames and messages are checked. */
const SHAPES: Array<{ name: string; yaml: string }> = [
  { name: 'a tag the parser quotes in its warning', yaml: [...HEAD, '          x-token: !PLANTTAG1', '      bogus: 1'].join('\n') },
  { name: 'a block scalar header with extra characters', yaml: [...HEAD, '          x-token: |PLANTHDR1', '            PLANTHDR2'].join('\n') },
  { name: 'a quoted value that runs on, under-indented', yaml: [...HEAD, '          x-token: "PLANTQUOTE1', 'PLANTQUOTE2"', '      bogus: 1'].join('\n') },
  {
    name: 'flow style on one line',
    yaml: [...HEAD.slice(0, 5), '      session_data_webhook: { url: "https://h.example.com", headers: { x-token: PLANTFLOW1 } }', '      bogus: 1'].join('\n'),
  },
  {
    name: 'a flow mapping over several lines, oddly indented',
    yaml: [...HEAD.slice(0, 5), '      session_data_webhook: {', '        headers: {', '  x-token: PLANTMULTI1', '        } } }'].join('\n'),
  },
  { name: 'an anchor the header refers to', yaml: ['version: 1', 'shared: &tok PLANTANCHOR1', ...HEAD.slice(1), '          x-token: *tok'].join('\n') },
  {
    name: 'app credentials with a duplicate key',
    yaml: [...HEAD.slice(0, 5), '      app_functions:', '        - name: crm', '          credentials:', '            pin: 987612345', '            pin: PLANTCRED1'].join('\n'),
  },
  {
    name: 'a phone import key next to a syntax error',
    yaml: ['version: 1', 'phones:', '  "+15551230001":', '    import: { provider: twilio, country: US, region: us-west, api_key: PLANTPHONE1, api_secret: PLANTPHONE2 }', '    bad: ['].join('\n'),
  },
  { name: 'a credential key written as a complex key', yaml: ['credentials:', '  - provider: openai', '    ? api_key', '    : PLANTCOMPLEX1', '  - provider: ['].join('\n') },
  { name: 'a credential key written with an escape', yaml: ['credentials:', '  - provider: d', '    "api\\u005fkey": PLANTESCAPE1', '    bad: ['].join('\n') },
  { name: 'a credential key whose value starts on the next line of a flow list', yaml: ['credentials: [{provider: openai, api_key:', '    PLANTFLOWNEXT1}]', 'agents: ['].join('\n') },
  { name: 'app credentials inside a flow collection over several lines', yaml: ['agents:', '  support: {id: ag_1}', 'environments:', '  staging: {agents: {support: {id: ag_2, config: {app_functions: [{name: crm,', '    credentials: {token: PLANTAPPFLOW1}}]}}}}', '  prod: ['].join('\n') },
  {
    name: 'a header value on the line after its key, inside a flow mapping',
    yaml: [...HEAD.slice(0, 5), '      session_data_webhook: {url: "https://h.example/x", headers:', '          {x-token: PLANTFLOWBELOW1}}', '      tools: ['].join('\n'),
  },
  { name: 'a header key in another letter case', yaml: [...HEAD.slice(0, 7), '        Headers:', '          x-token: PLANTCASE1', '      bogus: ['].join('\n') },
];

describe('the loader hides secrets in frames and messages', () => {
  it.each(SHAPES)('$name', async ({ yaml }) => {
    const result = await loadTree({ 'voxform.yaml': `${yaml}\n` });
    expect(result.diagnostics.length).toBeGreaterThan(0);
    for (const diagnostic of result.diagnostics) {
      expect(`${diagnostic.message}\n${diagnostic.frame}`).not.toMatch(PLANTED);
    }
    expect(result.diagnostics.some((d) => d.frame?.includes('(sensitive)'))).toBe(true);
  });
});

describe('a frame of a flow mapping of headers', () => {
  it("puts the caret at the message's column: under a reference, or under the mark of a hidden value", async () => {
    const line = '        headers: { x-hook-token: "${env:HOOK_TOKN}", x-other: 12345678, x-plant: PLANTFLOWCARET1 }';
    const cwd = await tempDir({ 'voxform.yaml': [...HEAD.slice(0, 7), line, ''].join('\n') });
    const result = await runCliInProcess(['validate'], { cwd, env: { HOOK_TOKN: undefined } });
    expect(result.code).toBe(1);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/PLANT[A-Z]+\d|12345678/);
    const shownLine = '> 8 |         headers: { x-hook-token: "${env:HOOK_TOKN}", x-other: (sensitive), x-plant: (sensitive) }';
    const caretUnder = (shown: string) => `${shownLine}\n    | ${' '.repeat(shownLine.indexOf(shown) - '> 8 | '.length)}^\n`;
    expect(result.stderr).toContain(`voxform.yaml:8:${line.indexOf('${env') + 1}  error[env_missing]: environment variable HOOK_TOKN is not set`);
    expect(result.stderr).toContain(caretUnder('${env'));
    expect(result.stderr).toContain(`voxform.yaml:8:${line.indexOf('12345678') + 1}  error[type_mismatch]: session_data_webhook.headers.x-other: expected a string, found a number`);
    expect(result.stderr).toContain(caretUnder('(sensitive), x-plant'));
  });
});

describe('a message that quotes a hidden part stays readable', () => {
  it('a secret shorter than 6 characters is hidden where it stands, never inside the words of the message', async () => {
    const cwd = await tempDir({ 'voxform.yaml': 'version: 1\ncredentials:\n  - provider: openai\n    api_key: e\n' });
    const result = await runCliInProcess(['validate'], { cwd });
    expect(result.code).toBe(0);
    // The provider's name is no secret: the message names it.
    expect(result.stderr).toContain('voxform.yaml:4:14  warning[secret_in_manifest]: api_key of credential "openai" is written in the manifest; use ${env:NAME} so the secret stays out of version control\n');
    expect(result.stderr).toContain('> 4 |     api_key: (sensitive)\n');
  });

  it("names the variable and the provider of the manifest's credentials in messages, which a hidden provider garbled", async () => {
    const cwd = await tempDir({
      'voxform.yaml': ['version: 1', 'credentials:', '  - provider: openai', '    api_key: ${env:OPENAI_API_KEY}', 'environments:', '  staging:', '    credentials:', '      - provider: openai', '        api_key: sk-PLANTSTAGING1', ''].join('\n'),
    });
    const result = await runCliInProcess(['validate'], { cwd, env: { OPENAI_API_KEY: undefined } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[env_missing]: environment variable OPENAI_API_KEY is not set; set it where plan and apply run (the place holds a secret: a default would write the secret into the manifest)\n');
    // The frame shows which credential the error is about, above the line it points at; the overlay's provider stays hidden.
    expect(result.stderr).toContain('  3 |   - provider: openai\n> 4 |     api_key: ${env:OPENAI_API_KEY}\n');
    const staging = await runCliInProcess(['validate', '--env', 'staging'], { cwd, env: { OPENAI_API_KEY: 'sk-PLANTENV1' } });
    expect(staging.code).toBe(0);
    expect(staging.stderr).toContain('warning[secret_in_manifest]: api_key of credential');
    for (const run of [result, staging]) expect(`${run.stdout}${run.stderr}`).not.toMatch(PLANTED);
  });

  it("a tag the parser's warning would quote is left out of the message, so no marker garbles it", async () => {
    const result = await loadTree({ 'voxform.yaml': `${[...HEAD, '          x-token: !PLANTTAG1', '          x-other: sensitive', '      bogus: 1'].join('\n')}\n` });
    const tagWarning = result.diagnostics.find((d) => d.code === 'yaml_warning');
    expect(tagWarning?.message).toBe('unresolved tag: voxform knows no tag of that name, and a manifest needs none; remove it');
    for (const diagnostic of result.diagnostics) expect(diagnostic.message).not.toMatch(/PLANTTAG1|\(\(sensitive\)|\(\(s|\(s\(/);
  });
});
