import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/index.js';
import { makeTree } from '../helpers/cli.js';
import { AGENT, loadTree, summarize } from './helpers.js';

describe('loadManifests: finding files', () => {
  it('reads voxform.yaml by default, else agents.yaml', async () => {
    const both = await loadTree({ 'voxform.yaml': AGENT, 'agents.yaml': 'agents: {other: {id: x}}' });
    expect([...both.state!.agents.keys()]).toEqual(['front-desk']);
    expect(both.files).toEqual([path.join(both.dir, 'voxform.yaml')]);
    const fallback = await loadTree({ 'agents.yaml': AGENT });
    expect(fallback.files).toEqual([path.join(fallback.dir, 'agents.yaml')]);
  });

  it('throws manifest_not_found when there is no manifest', async () => {
    const tree = await makeTree({ 'notes.txt': 'x' });
    try {
      await expect(loadManifests({ paths: [], cwd: tree.dir, env: {} })).rejects.toMatchObject({
        code: 'manifest_not_found',
        message: expect.stringContaining('neither voxform.yaml nor agents.yaml exists'),
      });
      await expect(loadManifests({ paths: ['agnets.yaml'], cwd: tree.dir, env: {} })).rejects.toMatchObject({ code: 'manifest_not_found' });
      await expect(loadManifests({ paths: ['.'], cwd: tree.dir, env: {} })).rejects.toMatchObject({
        code: 'manifest_not_found',
        message: 'The folder . holds no .yaml or .yml files.',
      });
    } finally {
      await tree.cleanup();
    }
  });

  it('reads every *.yaml and *.yml of a folder, recursively and sorted, skipping hidden folders', async () => {
    const result = await loadTree(
      {
        'm/b.yml': 'phones: {"+15551230002": {agent: {id: ag_9}}}',
        'm/a.yaml': AGENT,
        'm/sub/c.yaml': 'campaigns: {spring: {id: cmp_1}}',
        'm/.hidden/x.yaml': 'this: is not loaded',
        'm/readme.md': 'not yaml',
      },
      { paths: ['m'] },
    );
    expect(summarize(result)).toEqual([]);
    expect(result.files.map((f) => path.relative(result.dir, f))).toEqual(['m/a.yaml', 'm/b.yml', 'm/sub/c.yaml']);
    expect(result.state?.campaigns.get('spring')?.id).toBe('cmp_1');
  });
});

describe('loadManifests: a folder holds manifests, not test files', () => {
  it('skips *.test.yaml and *.test.yml files, so tests/ may sit beside the manifest in the folder', async () => {
    const result = await loadTree(
      {
        'config/voxform.yaml': AGENT,
        'config/tests/a.test.yaml': 'agent: front-desk\ntests: [{ name: a, turns: [{ user: hi }] }]\n',
        'config/more/b.TEST.yml': 'agent: front-desk\ntests: []\n',
      },
      { paths: ['config'] },
    );
    expect(summarize(result)).toEqual([]);
    expect(result.files.map((f) => path.relative(result.dir, f))).toEqual(['config/voxform.yaml']);
  });

  it('says so when a folder holds test files only', async () => {
    const tree = await makeTree({ 'tests/a.test.yaml': 'agent: front-desk\n' });
    try {
      await expect(loadManifests({ paths: ['tests'], cwd: tree.dir, env: {} })).rejects.toMatchObject({
        code: 'manifest_not_found',
        message: 'The folder tests holds no manifest: its only .yaml and .yml files are test files (*.test.yaml), which are not manifests.',
      });
    } finally {
      await tree.cleanup();
    }
  });
});

describe('loadManifests: YAML', () => {
  it('warns about an empty file and still loads the others', async () => {
    const result = await loadTree({ 'a.yaml': '', 'b.yaml': AGENT }, { paths: ['a.yaml', 'b.yaml'] });
    expect(summarize(result)).toEqual(['a.yaml:1:1 empty_file a.yaml is empty: it defines nothing']);
    expect(result.diagnostics[0]?.severity).toBe('warning');
    expect(result.state?.agents.size).toBe(1);
  });

  it('treats a file of comments only as empty', async () => {
    const result = await loadTree({ 'voxform.yaml': '# nothing yet\n' });
    expect(summarize(result)).toEqual(['voxform.yaml:1:1 empty_file voxform.yaml is empty: it defines nothing']);
  });

  it('reports a syntax error at its position, with a code frame', async () => {
    const result = await loadTree({ 'voxform.yaml': 'agents:\n  front-desk: {id: ag_1\n  other: 2\n' });
    expect(result.state).toBeUndefined();
    expect(result.diagnostics[0]).toMatchObject({ code: 'yaml_syntax', file: 'voxform.yaml', line: 3, col: 3 });
    expect(result.diagnostics[0]?.frame).toContain('> 3 |   other: 2');
  });

  it('refuses an alias with no anchor before it, at the alias (a merge key too), instead of reading null', async () => {
    const typo = await loadTree({ 'voxform.yaml': 'defaults:\n  config: {first_message: &greeting Hi}\nagents:\n  a:\n    id: ag_1\n    config: {first_message: *greetng}\n' });
    expect(typo.state).toBeUndefined();
    expect(summarize(typo)).toEqual(['voxform.yaml:6:29 yaml_syntax YAML syntax error: the alias *greetng refers to no anchor &greetng set before it; did you mean &greeting?']);
    const merge = await loadTree({ 'voxform.yaml': 'agents:\n  a:\n    <<: *missing\n    id: ag_1\n' });
    expect(summarize(merge)).toEqual(['voxform.yaml:3:9 yaml_syntax YAML syntax error: the alias *missing refers to no anchor &missing set before it; mark the value to repeat with &missing, or write it out']);
  });

  it('refuses a key that is not plain text, naming an alias as an alias', async () => {
    const alias = await loadTree({ 'voxform.yaml': 'version: 1\nx-name: &n front-desk\nagents:\n  *n :\n    id: -OKdqbqetEcM4ak369ym\n' });
    expect(alias.state).toBeUndefined();
    expect(summarize(alias)).toEqual(['voxform.yaml:4:3 yaml_complex_key a key must be plain text, not an alias (*n): write the key itself']);
    const list = await loadTree({ 'voxform.yaml': 'agents:\n  ? [a, b]\n  : { id: ag_1 }\n' });
    expect(summarize(list)).toEqual(['voxform.yaml:2:5 yaml_complex_key a key must be plain text, not a list or a mapping']);
  });

  it('refuses a %YAML 1.1 line and tags that make values no field takes, where they are; JSON kinds may be tagged', async () => {
    const old = await loadTree({ 'voxform.yaml': '%YAML 1.1\n---\nagents:\n  a:\n    id: ag_1\n    config: { first_message: yes }\n' });
    expect(old.state).toBeUndefined();
    expect(summarize(old)).toEqual(['voxform.yaml:1:1 yaml_unsupported voxform reads YAML 1.2, not 1.1 (where `yes` is true and `010` is 8); remove the %YAML 1.1 line']);
    const tagged = await loadTree({
      'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    config:\n      voice: { voice_id: v, settings: { a: !!timestamp 2001-12-14, b: !!binary aGk=, c: !!set { x, y }, d: !!str 12 } }\n',
    });
    expect(tagged.state).toBeUndefined();
    expect(summarize(tagged).map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'voxform.yaml:5:56 yaml_unsupported the',
      'voxform.yaml:5:80 yaml_unsupported the',
      'voxform.yaml:5:95 yaml_unsupported the',
    ]);
    expect(summarize(tagged)[0]).toContain('the tag !!timestamp makes a value no manifest field takes');
    const infinite = await loadTree({ 'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    config:\n      voice: { voice_id: v, settings: { stability: .nan } }\n' });
    expect(summarize(infinite)).toEqual(['voxform.yaml:5:52 yaml_unsupported .nan is not a number a manifest field takes (JSON has no infinity and no NaN); write a finite number']);
  });

  it('refuses a number a manifest would not keep as written, in block and flow values alike, and keeps the ones it would', async () => {
    const config = (values: string) => `agents:\n  a:\n    id: ag_1\n    config:\n      voice: { voice_id: v, settings: { ${values} } }\n      session_timeout:\n        max_duration: 9007199254740993\n`;
    const result = await loadTree({ 'voxform.yaml': config('a: 12345678901234567891, b: 1e-400, c: 9007199254740991, d: 0x10, e: 0.0, f: 0e5, g: -0') });
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:44 yaml_unsupported 12345678901234567891 is past the largest whole number kept exactly (9,007,199,254,740,991) and would be rounded; write a smaller number',
      'voxform.yaml:5:69 yaml_unsupported 1e-400 is too small to be kept as a number: it would be 0; write 0 or a larger number',
      'voxform.yaml:7:23 yaml_unsupported 9007199254740993 is past the largest whole number kept exactly (9,007,199,254,740,991) and would be rounded; write a smaller number',
    ]);
    const kept = await loadTree({ 'voxform.yaml': config('c: 9007199254740991, d: 0x10, e: 0.0, f: 0e5, g: -0').replace('9007199254740993', '600000') });
    expect(summarize(kept)).toEqual([]);
  });

  it("says a value does not fit YAML's own tag, not that the tag is unknown; an unknown tag is still named so", async () => {
    const result = await loadTree({
      'voxform.yaml': [
        'agents:',
        '  a:',
        '    id: ag_1',
        '    config:',
        '      privacy_settings: { opt_out_data_collection: !!bool yes }',
        '      flow: { response_delay: !<tag:yaml.org,2002:int> 1.5 }',
        '      x-list: !!map [1]',
        '      x-empty: !!bool',
        '      x-text: !!float |',
        '        abc',
        '      x-own: !mine q',
        '',
      ].join('\n'),
    });
    const tagWarnings = result.diagnostics.filter((d) => d.code === 'yaml_warning').map((d) => `${d.line}:${d.col} ${d.message}`);
    const fix = 'and a manifest needs no tag; remove it, and write the value the field takes';
    expect(tagWarnings).toEqual([
      `5:52 the value tagged !!bool is not one (true or false), ${fix}`,
      `6:31 the value tagged !!int is not one (a whole number), ${fix}`,
      `7:15 the value tagged !!map is not one (a mapping), ${fix}`,
      `8:16 the value tagged !!bool is not one (true or false), ${fix}`,
      `9:15 the value tagged !!float is not one (a number), ${fix}`,
      '11:14 unresolved tag: voxform knows no tag of that name, and a manifest needs none; remove it',
    ]);
  });

  it('a value left out or a key written twice hides no other problem: of its document, or across files', async () => {
    const result = await loadTree({
      'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    id: ag_2\n    config: { vad_threshold: .inf, llm: { temperature: hot } }\n',
      'more.yaml': 'agents:\n  a:\n    id: ag_3\n',
    }, { paths: ['voxform.yaml', 'more.yaml'] });
    expect(result.state).toBeUndefined();
    expect(summarize(result).map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      'voxform.yaml:4:5 duplicate_key',
      'voxform.yaml:5:30 yaml_unsupported',
      'voxform.yaml:5:56 type_mismatch',
      'more.yaml:2:3 duplicate_resource',
    ]);
  });

  it('reports a quote never closed where it opens, not at the end of the file', async () => {
    const result = await loadTree({ 'voxform.yaml': 'version: 1\nagents:\n  a:\n    config:\n      first_message: "Hello\n    id: ag_1\n' });
    expect(summarize(result)).toEqual(['voxform.yaml:5:22 yaml_syntax YAML syntax error: the quote " opened at line 5, column 22 is never closed, so what follows it is read as its text; add the closing " where the text ends']);
    expect(result.diagnostics[0]?.frame).toContain('> 5 |       first_message: "Hello');
  });

  it('says plainly that tabs cannot indent YAML', async () => {
    const result = await loadTree({ 'voxform.yaml': 'agents:\n  front-desk:\n\tid: ag_1\n' });
    expect(summarize(result)).toEqual(['voxform.yaml:3:1 yaml_tab_indent tabs are not allowed in YAML indentation; indent with spaces']);
  });

  it('reports a tab in indentation once, not again on the correct lines after it, and still a later mistake of its own', async () => {
    const agent = 'version: 1\nagents:\n  a:\n    id: ag_1\n    config:\n      llm:\n\ttemperature: 0.4\n      first_message: Hi\n      language: en-US\n    name: A\n  b:\n    id: ag_2\n';
    const alone = await loadTree({ 'voxform.yaml': agent });
    expect(summarize(alone)).toEqual(['voxform.yaml:7:1 yaml_tab_indent tabs are not allowed in YAML indentation; indent with spaces']);
    const withLater = await loadTree({ 'voxform.yaml': `${agent}    name: "B\n` });
    expect(summarize(withLater)).toEqual([
      'voxform.yaml:7:1 yaml_tab_indent tabs are not allowed in YAML indentation; indent with spaces',
      'voxform.yaml:13:11 yaml_syntax YAML syntax error: the quote " opened at line 13, column 11 is never closed, so what follows it is read as its text; add the closing " where the text ends',
    ]);
    const crlfAndComment = await loadTree({ 'voxform.yaml': agent.replace('llm:', 'llm:   # the model').replace('0.4\n', '0.4\n        max_tokens: 200\n        top_p: 1\n').replaceAll('\n', '\r\n') });
    expect(summarize(crlfAndComment)).toEqual(['voxform.yaml:7:1 yaml_tab_indent tabs are not allowed in YAML indentation; indent with spaces']);
    const twoTabs = await loadTree({ 'voxform.yaml': agent.replace('    name: A', '\tname: A') });
    expect(summarize(twoTabs).map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual(['voxform.yaml:7:1 yaml_tab_indent', 'voxform.yaml:10:1 yaml_tab_indent']);
  });

  it('refuses a key written twice in one mapping', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    name: Again\n` });
    expect(summarize(result)).toEqual(['voxform.yaml:5:5 duplicate_key the key "name" is written twice in this mapping (first on line 4); YAML keys must be unique: keep one']);
  });

  it('reads each document of a multi-document file as a fragment', async () => {
    const result = await loadTree({
      'voxform.yaml': `${AGENT}---\nphones:\n  "+15551230001": { agent: front-desk }\n---\n# an empty document at the end\n`,
    });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.phones.get('+15551230001')?.agent).toEqual({ id: 'ag_1', localName: 'front-desk' });
  });

  it('refuses a document that is not a mapping', async () => {
    const result = await loadTree({ 'voxform.yaml': '- agents\n- phones\n' });
    expect(summarize(result)).toEqual([
      'voxform.yaml:1:1 not_a_mapping a manifest document must be a mapping of sections (version, agents, phones, …), found a list',
    ]);
  });

  it('keeps unquoted phone numbers as written (YAML would read them as numbers)', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}phones:\n  +15551230001: { agent: front-desk }\n` });
    expect(summarize(result)).toEqual([]);
    expect([...result.state!.phones.keys()]).toEqual(['+15551230001']);
  });

  it('supports anchors, aliases and merge keys', async () => {
    const result = await loadTree({
      'voxform.yaml': [
        'agents:',
        '  a:',
        '    id: ag_a',
        '    config: &shared',
        '      language: de-DE',
        '      llm: { temperature: 0.2 }',
        '  b:',
        '    id: ag_b',
        '    config:',
        '      <<: *shared',
        '      language: fr-FR',
      ].join('\n'),
    });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.agents.get('b')?.config).toEqual({ language: 'fr-FR', llm: { temperature: 0.2 } });
  });

  it('reports invalid UTF-8 in a manifest at the bad byte', async () => {
    const bytes = Buffer.concat([Buffer.from('agents:\n  a:\n    name: caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const result = await loadTree({ 'voxform.yaml': bytes });
    expect(summarize(result)).toEqual(['voxform.yaml:3:14 file_not_utf8 voxform.yaml is not valid UTF-8 text; save it as UTF-8']);
    expect(result.state).toBeUndefined();
  });
});

describe('loadManifests: schema checks', () => {
  it('suggests first_messsage for first_message under flow.interruption', async () => {
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    config:\n      flow:\n        interruption:\n          first_message: false\n`,
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:8:11 unknown_field unknown field "first_message" in flow.interruption; did you mean "first_messsage"?',
    ]);
  });

  it.each([
    { yaml: '    config:\n      flow: { response_delay: fast }', at: '6:31', message: 'flow.response_delay: expected a number, found a string ("fast")' },
    { yaml: '    config:\n      language: 42', at: '6:17', message: 'language: expected a string, found a number (42); write it in quotes if you meant text: "42"' },
    { yaml: '    config:\n      llm: { temperature: &t 0.5 }\n      language: *t', at: '7:17', message: 'language: expected a string, found a number (0.5)' },
    { yaml: '    config:\n      tools: { name: x }', at: '6:14', message: 'tools: expected a list, found an object' },
    { yaml: '    config:\n      privacy_settings: { opt_out_data_collection: "no" }', at: '6:52', message: 'privacy_settings.opt_out_data_collection: expected a boolean (true or false), found a string ("no")' },
    { yaml: '    config:\n      prompt: 12', at: '6:15', message: 'prompt: expected a string or an object (key: value pairs), found a number (12)' },
    { yaml: '    knowledge: faq', at: '5:16', message: 'knowledge of agent "front-desk": expected a list, found a string ("faq")' },
  ])('names what was expected and found: $message', async ({ yaml, at, message }) => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}${yaml}\n` });
    expect(summarize(result)).toEqual([`voxform.yaml:${at} type_mismatch ${message}`]);
  });

  it('an empty string where a branch of its type wants text says so, not what the other branches take', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      extra_prompt_webhook: ""\n      session_data_webhook: { url: "" }\n` });
    expect(summarize(result)).toEqual(['voxform.yaml:6:29 invalid_value extra_prompt_webhook must not be empty', 'voxform.yaml:7:36 invalid_value session_data_webhook.url must not be empty']);
  });

  it.each([
    { yaml: '    config:\n      promt: x', at: '6:7', message: 'unknown field "promt" in config; did you mean "prompt"?' },
    { yaml: '    nmae: x', at: '5:5', message: 'unknown field "nmae" in agent "front-desk"; did you mean "name"?' },
    { yaml: '    prompt: x', at: '5:5', message: 'unknown field "prompt" in agent "front-desk"; prompt is a config field: put it under config' },
    { yaml: '    config:\n      prompt: { fil: a.md }', at: '6:17', message: 'unknown field "fil" in prompt; did you mean "file"?' },
    { yaml: '    config:\n      voice: { voice_idd: x }', at: '6:16', message: 'unknown field "voice_idd" in voice; did you mean "voice_id"?' },
  ])('reports an unknown key at the key: $message', async ({ yaml, at, message }) => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}${yaml}\n` });
    expect(summarize(result)).toEqual([`voxform.yaml:${at} unknown_field ${message}`]);
  });

  it('reports unknown top-level keys with a suggestion', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}phone:\n  "+15551230001": {}\n` });
    expect(summarize(result)).toEqual(['voxform.yaml:5:1 unknown_field unknown field "phone" at the top level; did you mean "phones"?']);
  });

  it('reports a file\'s shape before its names, so an unknown top-level key is not crowded out when the problems overflow', async () => {
    const names = Array.from({ length: 2_000 }, (_, i) => `  "bad name ${i}": { id: ag_${i} }`).join('\n');
    const result = await loadTree({ 'voxform.yaml': `version: 1\nbogus_top: 1\nagents:\n${names}\n` });
    expect(result.omitted.stopped).toBe(true);
    expect(summarize(result)[0]).toBe('voxform.yaml:2:1 unknown_field unknown field "bogus_top" at the top level');
  });

  it.each([
    ['voice.provider', '    config:\n      voice: { provider: elevenlabs }'],
    ['flow.voicemail.action', '    config:\n      flow:\n        voicemail: { action: hangup }'],
    ['llm.model', '    config:\n      llm: { model: gpt-4o }'],
    ['speech_to_text.provider', '    config:\n      speech_to_text: { provider: deepgram }'],
    ['tools.0.response_mode', '    config:\n      tools:\n        - { name: t, response_mode: strict }'],
    ['platform_functions.0.response_mode', '    config:\n      platform_functions:\n        - { name: p, response_mode: strict }'],
  ])('refuses the read-only field %s with the reason', async (field, yaml) => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}${yaml}\n` });
    const shown = field.replace(/\.(\d+)\./, '[$1].');
    expect(result.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
      `read_only_field ${shown} is set by the service and cannot be changed by the update operation; remove it`,
    ]);
  });

  it('allows null anywhere in a config (it clears the field) and keeps it', async () => {
    const result = await loadTree({
      'voxform.yaml': `defaults:\n  config:\n    voice: { voice_id: ava }\n${AGENT}    config:\n      voice: null\n      flow: { call_transfer: null }\n`,
    });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.agents.get('front-desk')?.config).toEqual({ voice: null, flow: { call_transfer: null } });
  });

  it('leaves out a field written null inside a list item: the list is sent whole, so the item has no such field', async () => {
    // Sent as written, the null was refused before the request left ("voxform built an invalid request"),
    // and compared as written, the live list, which has no such field, never matched it.
    const tools = '      tools:\n        - { name: t, timeout: null, header: { x-token: null, x-other: b }, params: [{ name: p, required: null }] }\n';
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n${tools}      flow: { response_delay: null, auto_fill_responses: { messages: [] } }\n` });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.agents.get('front-desk')?.config).toEqual({
      tools: [{ name: 't', header: { 'x-other': 'b' }, params: [{ name: 'p' }] }],
      flow: { response_delay: null, auto_fill_responses: { messages: [] } },
    });
  });

  it('requires an id on every agent after merging', async () => {
    const result = await loadTree({ 'voxform.yaml': 'agents:\n  front-desk:\n    name: Front desk\n' });
    expect(summarize(result)).toEqual([
      "voxform.yaml:2:3 missing_id agent \"front-desk\" has no id: agents are adopted, not created; set id to the live agent's id",
    ]);
  });

  it('says to name an environment when the manifests leave an id to the environments, every one of which gives it', async () => {
    const environments = 'environments:\n  staging:\n    agents: { front-desk: { id: a1 } }\n    campaigns: { renewals: { id: c1 } }\n  production:\n    agents: { front-desk: { id: a2 } }\n';
    const manifest = `agents:\n  front-desk:\n    name: Front desk\ncampaigns:\n  renewals: { name: Renewals }\n${environments}`;
    const result = await loadTree({ 'voxform.yaml': manifest });
    expect(summarize(result)).toEqual([
      'voxform.yaml:2:3 missing_id agent "front-desk" has no id in the manifests themselves; the environments staging and production give it one: run with --env NAME',
      // production gives the campaign none: it is a missing id, as without environments.
      "voxform.yaml:5:3 missing_id campaign \"renewals\" has no id: campaigns are adopted, not created; set id to the live campaign's id",
    ]);
    expect(result.idsFromEnvironments).toEqual(['agent.front-desk']);
    // With an environment, the id is there, or it is missing in that environment.
    const staging = await loadTree({ 'voxform.yaml': manifest }, { environment: 'staging' });
    expect(summarize(staging)).toEqual([]);
    expect(staging.idsFromEnvironments).toBeUndefined();
    expect(summarize(await loadTree({ 'voxform.yaml': manifest }, { environment: 'production' }))).toEqual([
      "voxform.yaml:5:3 missing_id campaign \"renewals\" has no id: campaigns are adopted, not created; set id to the live campaign's id",
    ]);
  });

  it('refuses a name that is not a valid local name, and a phone key that is not E.164', async () => {
    const result = await loadTree({ 'voxform.yaml': 'agents:\n  front desk: { id: a }\nphones:\n  "5551230001": {}\n' });
    expect(summarize(result)).toEqual([
      'voxform.yaml:2:3 invalid_name agent name "front desk" is not a valid name: use letters, digits, "-", "_" and ".", starting with a letter or digit',
      'voxform.yaml:4:3 invalid_name phone "5551230001" is not an E.164 number such as "+15551230001"; start it with "+" and the country code, digits only',
    ]);
  });

  it('refuses an id with a space, a line break or another control character: of agents, campaigns, a phone\'s agent, and in environments', async () => {
    const manifest = [
      'agents:',
      '  a: { id: "-OK a" }',
      '  b:',
      '    id: |-',
      '      -OKb',
      '      split',
      'campaigns:',
      '  c: { id: "c\\t1" }',
      'phones:',
      '  "+15551230001": { agent: { id: "x\\u0007" } }',
      'environments:',
      '  staging:',
      '    agents: { a: { id: " " } }',
      '',
    ].join('\n');
    const words = 'is not an id as the service gives it, such as -OKdqbqetEcM4ak369ym: no spaces, line breaks or other control characters, and not "." or ".." (copy it again, whole)';
    expect(summarize(await loadTree({ 'voxform.yaml': manifest }))).toEqual([
      `voxform.yaml:2:12 invalid_value id of agent "a": "-OK a" ${words}`,
      `voxform.yaml:4:9 invalid_value id of agent "b": "-OKb\\nsplit" ${words}`,
      `voxform.yaml:8:12 invalid_value id of campaign "c": "c\\t1" ${words}`,
      `voxform.yaml:10:34 invalid_value agent.id of phone "+15551230001": "x\\u0007" ${words}`,
      `voxform.yaml:13:24 invalid_value id of agent "a": " " ${words}`,
    ]);
    // What the service's ids look like passes: any characters but those.
    expect(summarize(await loadTree({ 'voxform.yaml': 'agents:\n  a: { id: -OKdqbqetEcM4ak369ym }\n  b: { id: ag_1.x/é }\n' }))).toEqual([]);
  });

  it('warns of a time zone Node does not know, with the zone likely meant; aliases and ${env:…} pass', async () => {
    const agent = (name: string, zone: string) => `  ${name}: { id: ${name}, config: { timezone: "${zone}" } }\n`;
    const zones = ['America/NewYork', 'Mars/Olympus', 'UTC', 'Etc/UTC', 'US/Eastern', 'Europe/Berlin', '${env:ZONE}'];
    const result = await loadTree({ 'voxform.yaml': `agents:\n${zones.map((zone, index) => agent(`a${index}`, zone)).join('')}` }, { env: { ZONE: 'Nowhere/At_All' } });
    expect(summarize(result)).toEqual([
      'voxform.yaml:2:37 timezone_unknown config.timezone: "America/NewYork" is not an IANA time zone; did you mean "America/New_York"?',
      'voxform.yaml:3:37 timezone_unknown config.timezone: "Mars/Olympus" is not an IANA time zone such as "America/New_York" or "Europe/Berlin"',
    ]);
    expect(result.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
  });

  it('warns of a config key left empty, which clears the field, not of a written null', async () => {
    const config = ['    config:', '      llm:', '      voice: null', '      flow:', '        call_transfer:', '        response_delay: ~', '      prompt: hi', '', ''].join('\n');
    const flow = '    config: { voice: , llm: null }\n';
    const result = await loadTree({ 'voxform.yaml': `agents:\n  a:\n    id: a\n${config}  b:\n    id: b\n${flow}` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:7 config_value_empty config.llm is empty, which clears it on the service; write `llm: null` to mean that, or remove the key to leave it alone',
      'voxform.yaml:8:9 config_value_empty config.flow.call_transfer is empty, which clears it on the service; write `call_transfer: null` to mean that, or remove the key to leave it alone',
      'voxform.yaml:14:15 config_value_empty config.voice is empty, which clears it on the service; write `voice: null` to mean that, or remove the key to leave it alone',
    ]);
    expect(result.state?.agents.get('a')?.config).toMatchObject({ llm: null, voice: null, flow: { call_transfer: null, response_delay: null } });
  });

  it('suggests a phone number only when its digits carry a country code, by one rule for phone keys, transfer numbers and callers', async () => {
    const numbers = ['555-123-0001', '(555) 123-0001', '+1 (555) 123-0001', '0044 20 7946 0018', 'front desk'];
    const phones = numbers.map((number) => `  "${number}": {}\n`).join('');
    const transfers = numbers.map((number, index) => `  t${index}: { id: t${index}, config: { flow: { call_transfer: { phone: "${number}" } } } }\n`).join('');
    const result = await loadTree({ 'voxform.yaml': `phones:\n${phones}agents:\n${transfers}` });
    const advice = (line: string) => line.replace(/^.*?(?:E\.164 number such as "\+15551230001"|no spaces: "\+15551230001"\)(?: or \$\{env:NAME\})?)/, '');
    const expected = [
      '; start it with "+" and the country code, digits only',
      '; start it with "+" and the country code, digits only',
      '; did you mean "+15551230001"?',
      '; did you mean "+442079460018"?',
      '',
    ];
    expect(summarize(result).map(advice)).toEqual([...expected, ...expected]);
    const caller = await loadTree({ 'voxform.yaml': 'phones:\n  "+15551230001": {}\ncampaigns:\n  c: { id: c, caller: "555 123 0001" }\n' });
    expect(summarize(caller)).toEqual([
      'voxform.yaml:4:23 invalid_value caller of campaign "c": "555 123 0001" is not an E.164 phone number ("+", the country code and the number, digits only, no spaces: "+15551230001"); start it with "+" and the country code, digits only',
    ]);
  });

  it('reports every mistake of every file in one run, in file order', async () => {
    const result = await loadTree(
      {
        'a.yaml': 'agents:\n  a: { id: 1 }\n',
        'b.yaml': 'agents:\n  b: { id: b, config: { vad_threshold: high } }\n',
      },
      { paths: ['b.yaml', 'a.yaml'] },
    );
    expect(result.diagnostics.map((d) => `${d.file}:${d.line}`)).toEqual(['b.yaml:2', 'a.yaml:2']);
  });

  it('reports a mistake in defaults once, at defaults, not once per agent', async () => {
    const agents = Array.from({ length: 5 }, (_, i) => `  a${i}: { id: ag_${i} }`).join('\n');
    const result = await loadTree({ 'voxform.yaml': `defaults:\n  config:\n    languag: en-US\nagents:\n${agents}\n` });
    expect(summarize(result)).toEqual(['voxform.yaml:3:5 unknown_field unknown field "languag" in config; did you mean "language"?']);
  });

  it('checks ignore paths against the config schema', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    ignore: [config.voice.setings, config.voice.settings.any.depth, name]\n` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:14 unknown_field ignore: config.voice.setings is not a field of the agent: config.voice has no "setings"; did you mean "settings"?',
    ]);
  });

  it('refuses an ignore path inside a list or a text: it would ignore nothing, and the whole field is sent', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    ignore: [config.first_message.text, config.tools.header, config.prompt.file]\n` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:14 unknown_field ignore: config.first_message.text is not a field of the agent: config.first_message is not an object; ignore config.first_message whole',
      'voxform.yaml:5:41 unknown_field ignore: config.tools.header is not a field of the agent: config.tools is a list: ignore names fields, not what a list holds; ignore config.tools whole',
    ]);
  });

  it('refuses knowledge_base.files beside knowledge, which fills it: the two would undo each other at every apply', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config: { knowledge_base: { files: [] } }\n    knowledge: []\n` });
    expect(summarize(result)).toEqual([
      "voxform.yaml:5:33 invalid_value config.knowledge_base.files is filled by voxform from the agent's knowledge, which this agent sets too: remove files, and list the knowledge files by name under knowledge",
    ]);
    expect(summarize(await loadTree({ 'voxform.yaml': `${AGENT}    config: { knowledge_base: { files: [] } }\n` }))).toEqual([]);
  });

  it('refuses knowledge_base: null, or its messages: null, beside knowledge: the clear and the files knowledge attaches would undo each other at every apply', async () => {
    // Let through, each apply cleared knowledge_base and attached the files again, and the next plan cleared them again.
    const result = await loadTree({ 'voxform.yaml': `defaults:\n  config: { knowledge_base: null }\n${AGENT}    knowledge: []\n` });
    expect(summarize(result)).toEqual([
      "voxform.yaml:2:13 invalid_value config.knowledge_base: null clears the knowledge files voxform attaches from the agent's knowledge, which this agent sets too: remove the null (knowledge_base: { messages: [] } empties the messages alone), or remove knowledge",
    ]);
    expect(summarize(await loadTree({ 'voxform.yaml': `${AGENT}    config: { knowledge_base: null }\n` }))).toEqual([]);
    // Attaching the files, the service keeps the messages a list: a null beside them would never match.
    expect(summarize(await loadTree({ 'voxform.yaml': `${AGENT}    config: { knowledge_base: { messages: null } }\n    knowledge: []\n` }))).toEqual([
      "voxform.yaml:5:33 invalid_value config.knowledge_base.messages: null cannot clear them beside the agent's knowledge: the service keeps them a list when voxform attaches the files, so the null would differ at every plan; write messages: [] to empty them",
    ]);
    expect(summarize(await loadTree({ 'voxform.yaml': `${AGENT}    config: { knowledge_base: { messages: [] } }\n    knowledge: []\n` }))).toEqual([]);
    expect(summarize(await loadTree({ 'voxform.yaml': `${AGENT}    config: { knowledge_base: { messages: null } }\n` }))).toEqual([]);
  });

  it('refuses ignoring the knowledge files beside knowledge, which fills and sends them: the dashboard\'s files would go', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    knowledge: []\n    ignore: [config.knowledge_base, config.knowledge_base.files, config, config.voice]\n` });
    expect(summarize(result).map((line) => line.split(' holds ')[0])).toEqual([
      'voxform.yaml:6:14 ignore_conflict ignore: config.knowledge_base',
      'voxform.yaml:6:37 ignore_conflict ignore: config.knowledge_base.files',
      'voxform.yaml:6:66 ignore_conflict ignore: config',
    ]);
    expect(summarize(result)[0]).toContain("which voxform fills from this agent's knowledge and sends: remove knowledge to leave the files to the dashboard, or stop ignoring them");
    expect(summarize(await loadTree({ 'voxform.yaml': `${AGENT}    ignore: [config.knowledge_base]\n` }))).toEqual([]);
  });

  it('refuses an ignore path under a field the agent sets whole, which sending would clear', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config: { voice: null, tools: [] }\n    ignore: [config.voice.settings, config.tools]\n` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:14 ignore_conflict ignore: config.voice.settings lies under config.voice, which this agent sets whole (to null): sending it would clear what ignore keeps; set the fields of config.voice it manages instead, or ignore config.voice',
    ]);
  });
});

describe('loadManifests: ${env:…}', () => {
  const webhook = `${AGENT}    config:\n      session_data_webhook:\n        url: https://hooks.example.com/end\n        headers: { x-token: "\${env:HOOK_TOKEN}" }\n`;

  it('substitutes a variable, marks the path sensitive and records the value as a secret', async () => {
    const result = await loadTree({ 'voxform.yaml': webhook }, { env: { HOOK_TOKEN: 'tok-123456' } });
    expect(summarize(result)).toEqual([]);
    const agent = result.state!.agents.get('front-desk')!;
    expect(agent.config.session_data_webhook).toEqual({ url: 'https://hooks.example.com/end', headers: { 'x-token': 'tok-123456' } });
    expect(agent.sensitivePaths).toEqual(expect.arrayContaining(['session_data_webhook.headers', 'session_data_webhook.headers.x-token']));
    expect(result.state!.secrets).toContain('tok-123456');
  });

  it('records the value at a secret place with a variable in it, however short, and not one the manifest writes whole', async () => {
    const headers = `${AGENT}    config:\n      session_data_webhook:\n        url: https://hooks.example.com/end\n        headers: { authorization: "Bearer \${env:PIN}", x-trace: written-in-git }\n`;
    const result = await loadTree({ 'voxform.yaml': headers }, { env: { PIN: 'a1z' } });
    expect(result.state!.secrets).toEqual(expect.arrayContaining(['a1z', 'Bearer a1z']));
    expect(result.state!.secrets).not.toContain('written-in-git');
  });

  it('reports a missing variable at its location; in a place the schema marks secret, the fix is to set it, never a default', async () => {
    const result = await loadTree({ 'voxform.yaml': webhook });
    expect(summarize(result)).toEqual([
      'voxform.yaml:8:30 env_missing environment variable HOOK_TOKEN is not set; set it where plan and apply run (the place holds a secret: a default would write the secret into the manifest)',
    ]);
    const credential = await loadTree({ 'voxform.yaml': 'version: 1\ncredentials:\n  - { provider: openai, api_key: "${env:OPENAI_KEY}" }\n' });
    expect(summarize(credential)).toEqual(['voxform.yaml:3:35 env_missing environment variable OPENAI_KEY is not set; set it where plan and apply run (the place holds a secret: a default would write the secret into the manifest)']);
  });

  it('a missing variable in a place that holds no secret: set it, or give it a default', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      first_message: "\${env:GREETING}"\n` });
    expect(summarize(result)).toEqual(['voxform.yaml:6:23 env_missing environment variable GREETING is not set; set it, or give a default with ${env:GREETING:-default}']);
  });

  it('reports a missing variable at the reference, not at an escaped $${env:…} of the same name before it', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      first_message: "$\${env:NOPE_X} then \${env:NOPE_X}"\n` });
    expect(summarize(result)).toEqual(['voxform.yaml:6:43 env_missing environment variable NOPE_X is not set; set it, or give a default with ${env:NOPE_X:-default}']);
  });

  it('reports every problem of a value whose references are written otherwise, each at its own place where it can be found', async () => {
    const setOrDefault = (name: string) => `environment variable ${name} is not set; set it, or give a default with \${env:${name}:-default}`;
    const escaped = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      first_message: "Hi \${env:NAME\\u005fX}, \${env:TAIL_X} and \${env:MORE_X}"\n` });
    expect(summarize(escaped)).toEqual([
      `voxform.yaml:6:26 env_missing ${setOrDefault('NAME_X')}`,
      `voxform.yaml:6:46 env_missing ${setOrDefault('TAIL_X')}`,
      `voxform.yaml:6:64 env_missing ${setOrDefault('MORE_X')}`,
    ]);
    // Two written otherwise share the value's first reference, and both are reported there.
    const both = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      first_message: 'It''s \${env:A_X:-''a''} and \${env:B_X:-''b''}, \${env:C_X}'\n` }, { env: { VOXFORM_ENV_ALLOW: 'OTHER' } });
    expect(summarize(both).map((line) => line.slice(0, line.indexOf(' is refused')))).toEqual([
      'voxform.yaml:6:29 env_not_allowed ${env:A_X}',
      'voxform.yaml:6:29 env_not_allowed ${env:B_X}',
      'voxform.yaml:6:70 env_not_allowed ${env:C_X}',
    ]);
  });

  it("a missing variable in a URL's user info or a query value, where tokens ride: set it, never a default", async () => {
    const url = 'https://user:${env:PW}@api.example.com/slots?token=${env:TOK:-x&y}${env:TOK2}&${env:NAME}=1&mode=${env:MODE}#${env:FRAGMENT}';
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      tools:\n        - { name: find_slots, description: Finds slots, webhook: "${url}" }\n` }, { env: { TOK: 'a-long-token' } });
    const setIt = 'set it where plan and apply run (the place holds a secret: a default would write the secret into the manifest)';
    expect(summarize(result).map((line) => line.replace(/^\S+ env_missing /, ''))).toEqual([
      `environment variable PW is not set; ${setIt}`,
      `environment variable TOK2 is not set; ${setIt}`,
      'environment variable NAME is not set; set it, or give a default with ${env:NAME:-default}',
      `environment variable MODE is not set; ${setIt}`,
      'environment variable FRAGMENT is not set; set it, or give a default with ${env:FRAGMENT:-default}',
    ]);
  });

  it('uses the default when the variable is unset or empty', async () => {
    const yaml = `${AGENT}    config:\n      language: "\${env:LANG_TAG:-en-GB}"\n`;
    for (const env of [{}, { LANG_TAG: '' }]) {
      const result = await loadTree({ 'voxform.yaml': yaml }, { env });
      expect(result.state?.agents.get('front-desk')?.config.language).toBe('en-GB');
      expect(result.state?.agents.get('front-desk')?.sensitivePaths).toEqual(['language']);
    }
  });

  it('never echoes a value that came from the environment in a type error', async () => {
    const yaml = `${AGENT}    config:\n      vad_threshold: \${env:VAD}\n`;
    const result = await loadTree({ 'voxform.yaml': yaml }, { env: { VAD: 'hunter2-secret' } });
    expect(summarize(result)).toEqual(['voxform.yaml:6:22 type_mismatch vad_threshold: expected a number, found a string']);
    expect(JSON.stringify(result.diagnostics)).not.toContain('hunter2');
    expect(result.secrets).toContain('hunter2-secret');
  });

  it('records phone import keys and credential keys from the environment as secrets, and warns about literal ones', async () => {
    const result = await loadTree(
      {
        'voxform.yaml': [
          AGENT.trimEnd(),
          'phones:',
          '  "+15551230001":',
          '    agent: front-desk',
          '    import: { country: US, region: us-west, api_key: "${env:TW_KEY}", api_secret: literal-secret }',
          'credentials:',
          '  - { provider: openai, api_key: "${env:OPENAI_KEY}" }',
        ].join('\n'),
      },
      { env: { TW_KEY: 'tw-key-1', OPENAI_KEY: 'sk-openai-1' } },
    );
    expect(summarize(result)).toEqual([
      'voxform.yaml:8:83 secret_in_manifest import.api_secret of phone "+15551230001" is written in the manifest; use ${env:NAME} so the secret stays out of version control',
    ]);
    expect(result.state?.secrets).toEqual(expect.arrayContaining(['tw-key-1', 'sk-openai-1']));
    // The literal is the manifest's text, masked where it stands: searched for, it would hide the words it holds from all output.
    expect(result.state?.secrets).not.toContain('literal-secret');
    expect(result.state?.phones.get('+15551230001')?.import).toEqual({
      provider: 'twilio',
      country: 'US',
      region: 'us-west',
      api_key: 'tw-key-1',
      api_secret: 'literal-secret',
    });
    const credential = result.state?.credentials.get('openai');
    const expected = createHash('sha256').update('openai\0sk-openai-1').digest('hex');
    expect(credential).toMatchObject({ address: 'credential.openai', apiKey: 'sk-openai-1', fingerprint: `sha256:${expected}` });
  });

  it("marks a phone's import fields secret: the schema's keys, and any value from the environment", async () => {
    const result = await loadTree(
      { 'voxform.yaml': `phones:\n  "+15551230001":\n    import: { country: US, region: "\${env:TW_REGION}", api_key: "\${env:TW_KEY}", api_secret: "\${env:TW_SECRET}" }\n` },
      { env: { TW_REGION: 'planted-region', TW_KEY: 'tw-key-2', TW_SECRET: 'tw-secret-2' } },
    );
    expect(summarize(result)).toEqual([]);
    expect([...(result.state?.phones.get('+15551230001')?.sensitivePaths ?? [])].sort()).toEqual(['import.api_key', 'import.api_secret', 'import.region']);
    expect(result.state?.secrets).toContain('planted-region');
  });

  it("marks a campaign's values from the environment secret", async () => {
    const yaml = `${AGENT}phones:\n  "+15551230001": { agent: front-desk }\ncampaigns:\n  spring: { id: cmp_1, name: "\${env:CAMPAIGN_NAME}", caller: "+15551230001" }\n`;
    const result = await loadTree({ 'voxform.yaml': yaml }, { env: { CAMPAIGN_NAME: 'planted-campaign' } });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.campaigns.get('spring')?.sensitivePaths).toEqual(['name']);
  });
});

describe('loadManifests: prompt includes and knowledge files', () => {
  it('reads a prompt file relative to the manifest that names it', async () => {
    const result = await loadTree(
      {
        'config/agents.yaml': `${AGENT}    config:\n      prompt: { file: ../prompts/front.md }\n`,
        'prompts/front.md': 'You are the front desk.\r\nBe brief.\n',
      },
      { paths: ['config/agents.yaml'] },
    );
    expect(summarize(result)).toEqual([]);
    expect(result.state?.agents.get('front-desk')?.config.prompt).toBe('You are the front desk.\nBe brief.');
  });

  it('reports a missing prompt file at the file: value, with a suggestion', async () => {
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    config:\n      prompt: { file: prompts/frontdesk.md }\n`,
      'prompts/front-desk.md': 'x',
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:23 file_missing prompt file "prompts/frontdesk.md" does not exist (looked for prompts/frontdesk.md: paths are relative to the file that names them); did you mean "prompts/front-desk.md"?',
    ]);
  });

  it('says to write paths with "/" when a prompt or knowledge path written with "\\" names a file that way', async () => {
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    config:\n      prompt: { file: prompts\\fd.md }\n    knowledge: [faq]\nknowledge:\n  faq: { file: docs\\faq.md }\n`,
      'prompts/fd.md': 'x',
      'docs/faq.md': 'y',
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:23 file_missing prompt file "prompts\\fd.md" does not exist (looked for prompts\\fd.md: paths are relative to the file that names them); write paths with "/", which every system reads as a folder separator: "prompts/fd.md"',
      'voxform.yaml:9:16 file_missing knowledge file "docs\\faq.md" does not exist (looked for docs\\faq.md: paths are relative to the file that names them); write paths with "/", which every system reads as a folder separator: "docs/faq.md"',
    ]);
    // A "\\" path that names no file either way gets no such advice.
    const neither = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      prompt: { file: prompts\\none.md }\n`, 'prompts/fd.md': 'x' });
    expect(summarize(neither).join('\n')).not.toContain('write paths with');
  });

  it('never tells by its advice whether a file outside the project exists: a "\\" path is read as "/" only inside it', async () => {
    const outside = await makeTree({ 'notes.md': 'private' });
    const project = await makeTree({});
    const written = (name: string) => path.relative(project.dir, path.join(outside.dir, name)).replaceAll('/', '\\');
    await writeFile(path.join(project.dir, 'voxform.yaml'), `${AGENT}    config:\n      prompt: { file: '${written('notes.md')}' }\n    knowledge: [faq]\nknowledge:\n  faq: { file: '${written('none.md')}' }\n`);
    try {
      const result = await loadManifests({ paths: [], env: {}, cwd: project.dir });
      // The file that exists outside and the one that does not are told alike: missing, with no advice.
      expect(summarize(result).map((line) => line.replace(/"[^"]*"/, '"…"').replace(/ \(looked for [^)]*\)/, ''))).toEqual([
        'voxform.yaml:6:23 file_missing prompt file "…" does not exist',
        'voxform.yaml:9:16 file_missing knowledge file "…" does not exist',
      ]);
    } finally {
      await outside.cleanup();
      await project.cleanup();
    }
  });

  it('suggests only a file that exists when the path written holds a "\\" that is part of a name', async () => {
    // Outside Windows `\` is an ordinary character: the names near `front-desk.md\x` are in prompts/, not in a folder of that name.
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    config:\n      prompt: { file: 'prompts/front-desk.md\\x' }\n    knowledge: [faq]\nknowledge:\n  faq: { file: 'prompts/a\\0.md' }\n`,
      'prompts/front-desk.md': 'x',
      'prompts/a.md': 'y',
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:23 file_missing prompt file "prompts/front-desk.md\\x" does not exist (looked for prompts/front-desk.md\\x: paths are relative to the file that names them); did you mean "prompts/front-desk.md"?',
      'voxform.yaml:9:16 file_missing knowledge file "prompts/a\\0.md" does not exist (looked for prompts/a\\0.md: paths are relative to the file that names them); did you mean "prompts/a.md"?',
    ]);
  });

  it('says a missing file\'s name differs only in Unicode form from one that exists, instead of suggesting a name that prints alike', async () => {
    const composed = 'caf\u00e9.md';
    const decomposed = 'cafe\u0301.md';
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    config:\n      prompt: { file: "prompts/cafe\\u0301.md" }\n    knowledge: [faq]\nknowledge:\n  faq: { file: "docs/caf\\u00e9.md" }\n`,
      [`prompts/${composed}`]: 'x',
      [`docs/${decomposed}`]: 'y',
    });
    expect(summarize(result)).toEqual([
      `voxform.yaml:6:23 file_missing prompt file "prompts/${decomposed}" does not exist (looked for prompts/${decomposed}: paths are relative to the file that names them); a file of the same name in another Unicode form (NFC) exists: "prompts/${composed}"; write the name as the file system holds it`,
      `voxform.yaml:9:16 file_missing knowledge file "docs/${composed}" does not exist (looked for docs/${composed}: paths are relative to the file that names them); a file of the same name in another Unicode form (NFD) exists: "docs/${decomposed}"; write the name as the file system holds it`,
    ]);
  });

  it('reports a NUL character in a manifest as what it is, where it is: the file is valid UTF-8', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      first_message: A\0B\n` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:23 file_not_utf8 voxform.yaml holds a NUL character at line 6, column 23, which no text file holds; remove it (a file saved as UTF-16 has one beside every letter: save it as UTF-8)',
    ]);
  });

  it('reports a prompt that is not UTF-8 at the bad byte in the prompt file', async () => {
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    config:\n      prompt: { file: p.md }\n`,
      'p.md': Buffer.concat([Buffer.from('Line one\nna'), Buffer.from([0xef, 0xbb]), Buffer.from('ve\n')]),
    });
    expect(summarize(result)).toEqual(['p.md:2:3 file_not_utf8 p.md is not valid UTF-8 text; save it as UTF-8']);
  });

  it('loads a 1 MB prompt', async () => {
    const prompt = `${'You are a helpful receptionist. '.repeat(32_768)}`;
    expect(prompt.length).toBe(1_048_576);
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config:\n      prompt: { file: big.md }\n`, 'big.md': prompt });
    expect(summarize(result)).toEqual([]);
    expect((result.state?.agents.get('front-desk')?.config.prompt as string).length).toBe(1_048_576);
  });

  it('hashes, sizes and types knowledge files; the name defaults to the base name', async () => {
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    knowledge: [faq, prices]\nknowledge:\n  faq: { file: kb/faq.md, description: FAQ }\n  prices: { file: kb/prices.pdf, name: Price list.pdf }\n`,
      'kb/faq.md': '# FAQ\n',
      'kb/prices.pdf': '%PDF-1.4',
    });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.knowledge.get('faq')).toMatchObject({
      address: 'knowledge.faq',
      path: path.join(result.dir, 'kb/faq.md'),
      name: 'faq.md',
      description: 'FAQ',
      size: 6,
      mimeType: 'text/markdown',
      contentHash: `sha256:${createHash('sha256').update('# FAQ\n').digest('hex')}`,
    });
    expect(result.state?.knowledge.get('prices')).toMatchObject({ name: 'Price list.pdf', mimeType: 'application/pdf', size: 8 });
    expect(result.state?.agents.get('front-desk')?.knowledge).toEqual(['faq', 'prices']);
  });

  it('lists every file it read, and no other, as what a deploy is made from: manifests, prompts, knowledge files', async () => {
    const result = await loadTree({
      'voxform.yaml': `${AGENT}    config:\n      prompt: { file: prompts/desk.md }\n    knowledge: [faq]\nknowledge:\n  faq: { file: kb/faq.md }\n`,
      'prompts/desk.md': 'You are the front desk.',
      'kb/faq.md': '# FAQ\n',
      'plan.json': '{}',
      'notes.txt': 'not read',
    });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.sourceFiles).toEqual(['kb/faq.md', 'prompts/desk.md', 'voxform.yaml'].map((file) => path.join(result.dir, file)));
  });

  it('changes the manifest hash when an included file changes, and only then', async () => {
    const files = { 'voxform.yaml': `${AGENT}    config:\n      prompt: { file: p.md }\n`, 'p.md': 'one' };
    const first = await loadTree(files);
    const again = await loadTree(files);
    const changed = await loadTree({ ...files, 'p.md': 'two' });
    expect(first.state?.manifestHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(again.state?.manifestHash).toBe(first.state?.manifestHash);
    expect(changed.state?.manifestHash).not.toBe(first.state?.manifestHash);
  });
});

describe('loadManifests: resources across files', () => {
  it('refuses a resource defined twice in one file (two documents), naming both places', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}---\n${AGENT}` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:7:3 duplicate_resource agent "front-desk" is defined twice: here and at voxform.yaml:2:3',
    ]);
  });

  it('refuses a resource defined in two files, naming both places', async () => {
    const result = await loadTree({ 'a.yaml': AGENT, 'b.yaml': `# b\n${AGENT}` }, { paths: ['a.yaml', 'b.yaml'] });
    expect(summarize(result)).toEqual(['b.yaml:3:3 duplicate_resource agent "front-desk" is defined twice: here and at a.yaml:2:3']);
  });

  it('refuses two entries adopting the same live agent', async () => {
    const result = await loadTree({ 'voxform.yaml': `${AGENT}  copy:\n    id: ag_1\n` });
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:9 duplicate_id agent "copy" has the same id as agent "front-desk" (voxform.yaml:3:9); each live agent can be managed by one entry',
    ]);
  });

  it.each([
    {
      name: 'phone → agent',
      yaml: `${AGENT}phones:\n  "+15551230001": { agent: front-dsk }\n`,
      expected: 'voxform.yaml:6:28 reference_missing phone "+15551230001" is answered by agent "front-dsk", which the manifest does not define; did you mean "front-desk"?',
    },
    {
      name: 'campaign → caller',
      yaml: `${AGENT}phones:\n  "+15551230001": { agent: front-desk }\ncampaigns:\n  spring: { id: c1, caller: "+15551230010" }\n`,
      expected: 'voxform.yaml:8:29 reference_missing campaign "spring" calls from "+15551230010", which is not a phone of the manifest; did you mean "+15551230001"?',
    },
    {
      name: 'agent → knowledge',
      yaml: `${AGENT}    knowledge: [fqa]\nknowledge:\n  faq: { file: faq.md }\n`,
      expected: 'voxform.yaml:5:17 reference_missing agent "front-desk" attaches knowledge file "fqa", which the manifest does not define; did you mean "faq"?',
    },
  ])('resolves references: $name', async ({ yaml, expected }) => {
    const result = await loadTree({ 'voxform.yaml': yaml, 'faq.md': 'x' });
    expect(summarize(result)).toEqual([expected]);
  });

  it('binds a phone to an agent outside the manifest by id, keeping where the id is written', async () => {
    const result = await loadTree({ 'voxform.yaml': 'phones:\n  "+15551230001": { agent: { id: -OKdqbqetEcM4ak369ym } }\n' });
    expect(result.state?.phones.get('+15551230001')?.agent).toEqual({ id: '-OKdqbqetEcM4ak369ym', localName: undefined, source: expect.objectContaining({ file: 'voxform.yaml', line: 2, col: 34 }) });
  });
});

describe('loadManifests: defaults and environments', () => {
  const manifest = [
    'region: us',
    'defaults:',
    '  config: { language: en-US, timezone: America/New_York, llm: { temperature: 0.5 } }',
    AGENT.trimEnd(),
    '    config:',
    '      llm: { temperature: 0.2 }',
    'environments:',
    '  staging:',
    '    region: eu',
    '    defaults: { config: { timezone: Europe/Berlin } }',
    '    agents:',
    '      front-desk: { id: ag_staging, config: { language: de-DE } }',
    '  production: {}',
  ].join('\n');

  it('merges defaults under each agent config', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.region).toBe('us');
    expect(result.state?.agents.get('front-desk')).toMatchObject({
      id: 'ag_1',
      config: { language: 'en-US', timezone: 'America/New_York', llm: { temperature: 0.2 } },
    });
  });

  it('applies the --env overlay over everything', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest }, { environment: 'staging' });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.environment).toBe('staging');
    expect(result.state?.region).toBe('eu');
    expect(result.state?.agents.get('front-desk')).toMatchObject({
      id: 'ag_staging',
      config: { language: 'de-DE', timezone: 'Europe/Berlin', llm: { temperature: 0.2 } },
    });
  });

  it('answers an unknown environment with a suggestion, naming the flag that chose it, and lists the environments', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest }, { environment: 'stagign', environmentFlag: '--env' });
    expect(summarize(result)).toEqual(['voxform.yaml:10:1 environment_unknown --env names an environment the manifests do not define; did you mean "staging"?']);
    expect(result.environments).toEqual(['production', 'staging']);
    const fromCode = await loadTree({ 'voxform.yaml': manifest }, { environment: 'prod' });
    expect(summarize(fromCode)).toEqual(['voxform.yaml:10:1 environment_unknown unknown environment "prod"; did you mean "production"?']);
    // A file that could not be parsed may hold more: the list is not given.
    const broken = await loadTree({ 'voxform.yaml': manifest, 'more.yaml': 'environments: [' }, { paths: ['.'] });
    expect(broken.environments).toBeUndefined();
    // Nor is a name not found said unknown: it may be that file's; its syntax error is the one to fix.
    const brokenNamed = await loadTree({ 'voxform.yaml': manifest, 'more.yaml': 'environments: [' }, { paths: ['.'], environment: 'canary', environmentFlag: '--env' });
    expect(summarize(brokenNamed).map((line) => line.split(' ')[1])).toEqual(['yaml_syntax']);
  });

  it('refuses an overlay of a resource the manifest does not define', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest.replace('      front-desk: {', '      front-dsk: {') }, { environment: 'staging' });
    expect(summarize(result)).toEqual([
      'voxform.yaml:15:7 environment_unknown_resource environment "staging" changes agent "front-dsk", which the manifest does not define; did you mean "front-desk"?',
    ]);
  });

  it('refuses an overlay of an undefined resource in every environment, whichever is selected (once when it is)', async () => {
    const overlays = [
      'version: 1',
      'agents:',
      '  desk: { id: -OKspareAgent0000001 }',
      'knowledge:',
      '  faq: { file: faq.md }',
      'environments:',
      '  prod:    { agents: { dsek: { id: -OKspareAgent0000002 } }, knowledge: { fqa: { description: x } } }',
      '  staging: { agents: { desk: { id: -OKspareAgent0000003 } } }',
      '',
    ].join('\n');
    const expected = [
      'voxform.yaml:7:24 environment_unknown_resource environment "prod" changes agent "dsek", which the manifest does not define; did you mean "desk"?',
      'voxform.yaml:7:75 environment_unknown_resource environment "prod" changes knowledge file "fqa", which the manifest does not define; did you mean "faq"?',
    ];
    for (const environment of [undefined, 'staging', 'prod']) {
      const result = await loadTree({ 'voxform.yaml': overlays, 'faq.md': 'Open 9 to 5.\n' }, { environment });
      expect(summarize(result), `--env ${environment}`).toEqual(expected);
      expect(result.state).toBeUndefined();
    }
  });

  it('reports an overlay entry that is not an object once, at the overlay, whichever environment is selected', async () => {
    const overlays = [
      'agents:',
      '  a:',
      '    id: -OKspareAgent0000001',
      '    config: { first_message: hi }',
      'phones:',
      '  "+15551230001": { agent: a }',
      'campaigns:',
      '  c: { id: cmp_1, name: Recall }',
      'knowledge:',
      '  faq: { file: faq.md }',
      'environments:',
      '  staging:',
      '    agents:',
      '      a: null',
      '    phones:',
      '      "+15551230001": off',
      '    campaigns:',
      '      c: [1]',
      '    knowledge:',
      '      faq: 3',
      '',
    ].join('\n');
    const expected = [
      'voxform.yaml:14:7 type_mismatch agent "a": expected an object (key: value pairs), found null',
      'voxform.yaml:16:7 type_mismatch phone "+15551230001": expected an object (key: value pairs), found a string ("off")',
      'voxform.yaml:18:10 type_mismatch campaign "c": expected an object (key: value pairs), found a list',
      'voxform.yaml:20:7 type_mismatch knowledge file "faq": expected an object (key: value pairs), found a number (3)',
    ];
    for (const environment of [undefined, 'staging']) {
      const result = await loadTree({ 'voxform.yaml': overlays, 'faq.md': 'Open 9 to 5.\n' }, { environment });
      expect(summarize(result), `--env ${environment}`).toEqual(expected);
      expect(result.state).toBeUndefined();
    }
  });

  it('checks every environment overlay, also when another is selected', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest.replace('  production: {}', '  production:\n    agents: { front-desk: { confg: {} } }') });
    expect(summarize(result)).toEqual([
      'voxform.yaml:17:29 unknown_field unknown field "confg" in agent "front-desk"; did you mean "config"?',
    ]);
  });
});

describe('loadManifests: secrets told as they are met', () => {
  it('tells each secret the moment it is read, before any other callback runs, and lists them all again', async () => {
    const told: string[] = [];
    const toldBeforeNextCallback: boolean[] = [];
    const env = new Proxy({ HOOK: 'planted-hook-token' } as Record<string, string | undefined>, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key === 'HOOK') queueMicrotask(() => toldBeforeNextCallback.push(told.includes(value as string)));
        return value;
      },
    });
    const result = await loadTree(
      { 'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    config: { session_data_webhook: { url: "https://hooks.example.com/x", headers: { x-token: "${env:HOOK}" } } }\n' },
      { env, onSecret: (secret) => told.push(secret) },
    );
    expect(result.diagnostics).toEqual([]);
    expect(toldBeforeNextCallback).toEqual([true]);
    expect(told).toEqual(result.secrets);
    expect(told).toEqual(['planted-hook-token']);
  });
});

describe('environments that change only where resources live', () => {
  it('are those whose overlays set only ids, region and base URL', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  a: { id: ag_1, config: { first_message: Hello } }',
      'campaigns:',
      '  c: { id: cmp_1, name: Recall }',
      'environments:',
      '  ids: { region: eu, agents: { a: { id: ag_2 } }, campaigns: { c: { id: cmp_2 } } }',
      '  url: { base_url: "http://127.0.0.1:4010" }',
      '  config: { agents: { a: { id: ag_3, config: { first_message: Hi } } } }',
      '  renamed: { campaigns: { c: { name: Winter } } }',
      '  defaults: { defaults: { config: { language: fr } } }',
      '',
    ].join('\n');
    const result = await loadTree({ 'voxform.yaml': manifest });
    expect(result.environments).toEqual(['config', 'defaults', 'ids', 'renamed', 'url']);
    expect(result.placementOnlyEnvironments).toEqual(['ids', 'url']);
  });
});

describe('environmentsPlacedAlike', () => {
  const files = {
    'voxform.yaml': `version: 1\nbase_url: https://api-west.example.com\n${AGENT}environments:\n  staging:\n    agents: { front-desk: { id: ag_2 } }\n  eu:\n    base_url: https://api-eu.example.com\n  east:\n    region: eu\n`,
  };
  const env = { VOXFORM_TRUSTED_ORIGINS: 'https://api-west.example.com, https://api-eu.example.com' };

  it('names the other environments on the same base_url and region, undefined for the manifests without --env', async () => {
    expect((await loadTree(files, { env })).state?.environmentsPlacedAlike).toEqual(['staging']);
    expect((await loadTree(files, { env, environment: 'staging' })).state?.environmentsPlacedAlike).toEqual([undefined]);
    expect((await loadTree(files, { env, environment: 'eu' })).state?.environmentsPlacedAlike).toEqual([]);
  });
});
