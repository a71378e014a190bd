/** What voxform ships — the templates, agents.example.yaml and example/ — passes its own policy with no finding at all. */
import { describe, expect, it } from 'vitest';
import { listTemplates } from '../../src/templates/catalog.js';
import { repoRoot, useTempDirs } from '../helpers/cli.js';
import { SAMPLE_VALUES } from '../templates/fixtures.js';
import { loadState, TODAY } from './helpers.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { loadManifests } from '../../src/manifest/index.js';

const tempDir = useTempDirs();
const templates = await listTemplates();

/** The tokens the templates read through ${env:…}: long enough to be searchable secrets. */
const TEMPLATE_ENV = { CALENDAR_TOKEN: 'calendar-token-1', CRM_WEBHOOK_TOKEN: 'crm-token-1', SURVEY_WEBHOOK_TOKEN: 'survey-token-1', HELPDESK_TOKEN: 'helpdesk-token-1' };

describe('the shipped configuration has zero policy findings', () => {
  it('agents.example.yaml with example/', async () => {
    const result = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: {} });
    if (!result.state) throw new Error('the example does not load');
    const report = await evaluatePolicy(result.state, { now: () => TODAY });
    expect(report.findings).toEqual([]);
    expect(report.waived).toEqual([]);
  });

  it.each(templates.map((template) => [template.name]))('template %s, filled with sample values', async (name) => {
    const vars = Object.entries(SAMPLE_VALUES[name] ?? {})
      .map(([key, value]) => `      ${key}: ${JSON.stringify(value)}`)
      .join('\n');
    const dir = await tempDir({ 'voxform.yaml': `version: 1\nagents:\n  agent:\n    id: ag_1\n    template: ${name}\n    vars:\n${vars}\n` });
    const state = await loadState(dir, TEMPLATE_ENV);
    expect(state.agents.get('agent')?.config.prompt, 'the template has a prompt').toEqual(expect.any(String));
    const report = await evaluatePolicy(state, { now: () => TODAY });
    expect(report.findings).toEqual([]);
  });
});
