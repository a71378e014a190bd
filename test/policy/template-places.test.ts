/** Findings about an agent made from a template are located in the manifest, never in the template's own file. */
import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { loadTree, summarize } from '../manifest/helpers.js';
import { TODAY } from './helpers.js';

const template = [
  'description: A desk.',
  'variables:',
  '  business: { description: The business name, required: true }',
  '  temperature: { description: How inventive the model is, default: 0.4 }',
  '  business_description: { description: What the business does, default: a business }',
  'agent:',
  '  config:',
  '    prompt: You answer calls for {{business}}, {{business_description}}.',
  '    first_message: "{{business}} here. For emergencies call 555-201-3344."',
  '    llm: { temperature: "{{temperature}}" }',
].join('\n');

async function findings(vars: string): Promise<string[]> {
  const manifest = `version: 1\nagents:\n  desk:\n    id: ag_1\n    template: desk\n    vars: ${vars}\n`;
  const result = await loadTree({ 'templates/desk/template.yaml': template, 'voxform.yaml': manifest }, { templatesDir: 'templates' });
  if (!result.state) throw new Error(summarize(result).join('\n'));
  const report = await evaluatePolicy(result.state, { now: () => TODAY });
  return report.findings.map((f) => `${f.rule} ${f.location.file}:${f.location.line}:${f.location.col}`);
}

describe('policy findings of a templated agent', () => {
  it('text the template wrote itself: at the agent\'s template:', async () => {
    expect(await findings('{ business: Acme }')).toEqual(['pii-phone-number voxform.yaml:5:15']);
  });

  it('a value or text vars brought in: at that vars entry (for text, the one whose value holds what was found)', async () => {
    expect(await findings('{ business: Acme, temperature: 1.9 }')).toEqual([
      'pii-phone-number voxform.yaml:5:15',
      'behaviour-temperature voxform.yaml:6:42',
    ]);
  });

  it('text one vars value brought in that holds another\'s: at the entry whose value brought it, not the shorter one inside it', async () => {
    expect(await findings('{ business: Acme, business_description: "a shop, write to Acme@acme.com" }')).toEqual([
      'pii-phone-number voxform.yaml:5:15',
      'pii-email-address voxform.yaml:6:51',
    ]);
  });

  it('a team rule on the agent\'s name the template wrote from vars: at that vars entry', async () => {
    const named = ['description: A desk.', 'variables:', '  business: { description: The business name, required: true }', 'agent:', '  name: "{{business}} front desk"', '  config: { prompt: Be kind. }'].join('\n');
    const manifest = 'version: 1\nagents:\n  desk:\n    id: ag_1\n    template: desk\n    vars: { business: Acme Dental of Springfield }\npolicy:\n  custom:\n    - { id: short-name, path: name, max_length: 10 }\n';
    const result = await loadTree({ 'templates/desk/template.yaml': named, 'voxform.yaml': manifest }, { templatesDir: 'templates' });
    if (!result.state) throw new Error(summarize(result).join('\n'));
    const report = await evaluatePolicy(result.state, { now: () => TODAY });
    expect(report.findings.map((f) => `${f.rule} ${f.location.file}:${f.location.line}:${f.location.col}`)).toEqual(['short-name voxform.yaml:6:23']);
  });
});
