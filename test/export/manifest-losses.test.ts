import { describe, expect, test } from 'vitest';
import { describeLosses, losesAnything, losesResources, manifestLosses } from '../../src/export/manifest-losses.js';
import { isOwnComment } from '../../src/init/replaced-manifest.js';
import { isExportComment } from '../../src/export/build-manifest.js';

const EXPORTED = ['# Exported from the live service.', 'version: 1', 'agents:', '  support:', '    id: ag_support', '    config:', '      prompt: |', '        # Rules', '        Be kind.', 'phones:', '  "+15551230002": { agent: support }', ''].join('\n');

describe('manifestLosses: what an exported manifest drops of the one it replaces', () => {
  test('the resources, sections and comments of a project the export does not write', () => {
    const existing = [
      '# Exported from the live service.',
      'version: 1',
      '# The team keeps these two here.',
      'agents:',
      '  front-desk: { id: ag_front }',
      '  support: { id: ag_support } # the one exported again',
      '  booking: { id: ag_booking }',
      'phones:',
      '  "+15551230001": { agent: front-desk }',
      '  "+15551230002": { agent: support }',
      'knowledge:',
      '  prices: { file: prices.pdf }',
      'credentials:',
      '  - { provider: openai, api_key: "${env:OPENAI_KEY}" }',
      'defaults: {}',
      'environments: { staging: {} }',
      'policy: {}',
      '',
    ].join('\n');
    const losses = manifestLosses(existing, EXPORTED, isExportComment);
    expect(describeLosses(losses)).toBe(
      'agents front-desk and booking; phone +15551230001; knowledge file prices; credential for openai; the defaults, environments and policy sections; 2 comment lines',
    );
    expect(losesResources(losses)).toBe(true);
  });

  test('an agent the export writes under another key is not dropped: it is the same agent', () => {
    const existing = 'version: 1\nagents:\n  help-line: { id: ag_support }\n';
    expect(losesAnything(manifestLosses(existing, EXPORTED, isExportComment))).toBe(false);
  });

  test("export's own comments in the replaced manifest (its header, an agent's notes) are no loss, though the new one words them otherwise", () => {
    const existing = [
      '# yaml-language-server: $schema=.voxform/manifest.schema.json',
      '#',
      '# Exported from the live service by `voxform export --from-phones`.',
      '# `voxform plan` on it shows no changes; edit it, review the plan, apply.',
      '# Secrets (headers, credentials, URL query values and user info) are not exported: the manifest',
      '# reads them from these environment variables; set each to its live value:',
      '#   BOOKING_TOOLS_FIND_SLOTS_AUTHORIZATION  (agents.booking.config.tools[0].header.authorization)',
      'version: 1',
      'agents:',
      '  # read-only on the service, not managed here: voice.provider=elevenlabs, llm.model=gpt-4o-mini',
      '  booking:',
      '    id: ag_booking',
      '  # not managed here: app_functions holds secrets that are not text (app_functions[0].credentials.pin); a ${env:…} reference would make them text',
      '  support:',
      '    id: ag_support',
      '  # The team: call Bob before changing this one.',
      '  front:',
      '    id: ag_front',
      '',
    ].join('\n');
    expect(describeLosses(manifestLosses(existing, EXPORTED, isExportComment))).toBe('agents booking and front; 1 comment line');
  });

  test("init's own header in the replaced manifest is no loss, for another spare agent or under export; a comment added there, or a header line edited, is", () => {
    const initHeader = (agentId: string) =>
      [
        '# yaml-language-server: $schema=.voxform/manifest.schema.json',
        '#',
        '# Answers the phone.',
        '# Created with `voxform init --template receptionist`. The prompt is in prompts/receptionist.md.',
        '# Check it, see what would change on the service, then make it so:',
        '#   voxform validate',
        '#   voxform plan',
        '#   voxform apply',
        `# ${agentId} is a spare agent of the embedded emulator: add --local to plan and apply to try it offline.`,
      ].join('\n');
    const initManifest = (agentId: string) => `${initHeader(agentId)}\nversion: 1\nagents:\n  receptionist:\n    id: ${agentId}\n`;
    const earlier = initManifest('-OKspareAgent0000002');
    expect(losesAnything(manifestLosses(earlier, initManifest('-OKspareAgent0000001'), isOwnComment))).toBe(false);
    // Export words none of init's header; the template's description is its author's text.
    expect(describeLosses(manifestLosses(earlier.replace('receptionist:', 'support:').replace('-OKspareAgent0000002\n', 'ag_support\n'), EXPORTED, isOwnComment))).toBe('1 comment line');

    const edited = earlier
      .replace('#   voxform plan', '#   voxform plan --local')
      .replace('agent of the embedded emulator', 'agent: do not apply it')
      .replace('version: 1', '# Ann owns this.\nversion: 1');
    expect(describeLosses(manifestLosses(edited, initManifest('-OKspareAgent0000001'), isOwnComment))).toBe('3 comment lines');
  });

  test('a comment-like line inside a prompt is text, not a comment; the comments the export writes again are none lost', () => {
    expect(losesAnything(manifestLosses(EXPORTED, EXPORTED, isExportComment))).toBe(false);
    const sectionsOnly = manifestLosses(`${EXPORTED}environments: { staging: {} }\n`, EXPORTED, isExportComment);
    expect(describeLosses(sectionsOnly)).toBe('the environments section');
    expect(losesResources(sectionsOnly)).toBe(false);
  });

  test('a file that does not read as a manifest: all of it, said as not listed; an empty one loses nothing', () => {
    const broken = manifestLosses('agents: [unclosed\n', EXPORTED, isExportComment);
    expect(describeLosses(broken)).toBe('all it defines (it does not read as a manifest, so what it defines cannot be listed)');
    expect(losesResources(broken)).toBe(true);
    expect(losesAnything(manifestLosses('', EXPORTED, isExportComment))).toBe(false);
    expect(describeLosses(manifestLosses('# just a note\n', EXPORTED, isExportComment))).toBe('1 comment line');
  });

  test('a file past the YAML token budget is read as every YAML file is, no further: all of it, said as not listed', () => {
    const huge = `agents:\n${'  - x\n'.repeat(600_000)}`;
    const losses = manifestLosses(huge, EXPORTED, isExportComment);
    expect(describeLosses(losses)).toBe('all it defines (it does not read as a manifest, so what it defines cannot be listed)');
  });

  test('several documents in one file do not read as a manifest', () => {
    expect(manifestLosses('version: 1\n---\nagents: {}\n', EXPORTED, isExportComment).unreadable).toBe(true);
  });

  test('names are written printable: a control character in a key is escaped', () => {
    const existing = 'version: 1\nagents:\n  "evil\\u001b[31m": { id: ag_evil }\n';
    expect(describeLosses(manifestLosses(existing, EXPORTED, isExportComment))).toBe('agent evil\\u001b[31m');
  });
});
