/**
 * `${env:…}` is refused where a value decides where requests go or which file is read: base_url,
 * region, ids, references and file paths. Refused at the reference, in every overlay (used or not)
 * and in templates, and nothing is read from the environment for it.
 */
import { describe, expect, it } from 'vitest';
import { loadTree, summarize, watchedEnv } from '../manifest/helpers.js';

const PLANTED = { PLANTED: 'https://evil.example.com' };
const FIX = 'write the value itself (per-environment values belong in environments:), so that the manifest alone shows where requests go and which files are read';

describe('${env:…} where it is never allowed', () => {
  it.each([
    { place: 'base_url', yaml: 'base_url: "${env:PLANTED}"\nagents: { a: { id: ag_1 } }\n', at: '1:12', what: 'base_url' },
    { place: 'region', yaml: 'region: "${env:PLANTED}"\nagents: { a: { id: ag_1 } }\n', at: '1:10', what: 'region' },
    { place: "an agent's id", yaml: 'agents:\n  a: { id: "ag_${env:PLANTED}" }\n', at: '2:16', what: "an agent's id" },
    { place: "a campaign's id", yaml: 'campaigns:\n  c: { id: "${env:PLANTED}" }\n', at: '2:13', what: "a campaign's id" },
    { place: "a phone's agent id", yaml: 'phones:\n  "+15551230001": { agent: { id: "${env:PLANTED}" } }\n', at: '2:35', what: "an agent's id" },
    { place: "a phone's agent name", yaml: 'agents: { a: { id: ag_1 } }\nphones:\n  "+15551230001": { agent: "${env:PLANTED}" }\n', at: '3:29', what: 'a reference to an agent' },
    { place: "a campaign's caller", yaml: 'campaigns:\n  c: { id: c_1, caller: "${env:PLANTED}" }\n', at: '2:26', what: 'a reference to a phone' },
    { place: "an agent's knowledge", yaml: 'agents:\n  a: { id: ag_1, knowledge: ["${env:PLANTED}"] }\n', at: '2:31', what: 'a reference to a knowledge file' },
    { place: 'a prompt file path', yaml: 'agents:\n  a: { id: ag_1, config: { prompt: { file: "prompts/${env:PLANTED}.md" } } }\n', at: '2:53', what: 'a file path' },
    { place: 'a knowledge file path', yaml: 'knowledge:\n  k: { file: "${env:PLANTED}" }\n', at: '2:15', what: 'a file path' },
  ])('refuses it in $place, at the reference, reading nothing', async ({ yaml, at, what }) => {
    const { env, looked } = watchedEnv(PLANTED);
    const result = await loadTree({ 'voxform.yaml': yaml }, { env });
    const refusals = summarize(result).filter((line) => line.includes('env_forbidden'));
    expect(refusals).toEqual([`voxform.yaml:${at} env_forbidden \${env:…} cannot be used in ${what}; ${FIX}`]);
    expect(result.diagnostics.map((d) => d.code)).not.toContain('file_missing');
    expect(looked.has('PLANTED')).toBe(false);
    expect(result.state).toBeUndefined();
  });

  it('refuses it in every overlay, also one not in use, and in the manifest setting an overlay replaces', async () => {
    const yaml = `base_url: "\${env:PLANTED}"
agents:
  a: { id: ag_1 }
environments:
  prod:
    base_url: "\${env:PLANTED}"
    agents: { a: { id: "\${env:PLANTED}" } }
  staging:
    base_url: https://api-eu-west.millis.ai
    knowledge: {}
`;
    const { env, looked } = watchedEnv(PLANTED);
    const result = await loadTree({ 'voxform.yaml': yaml }, { env, environment: 'staging' });
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['1:12 env_forbidden', '6:16 env_forbidden', '7:25 env_forbidden']);
    expect(looked.has('PLANTED')).toBe(false);
  });

  it('refuses it in a path a template writes', async () => {
    const template = 'description: t\nvariables: {}\nagent:\n  config:\n    prompt: { file: "${env:PLANTED}" }\n';
    const { env, looked } = watchedEnv(PLANTED);
    const result = await loadTree(
      { 'voxform.yaml': 'agents:\n  a: { id: ag_1, template: t }\n', 'templates/t/template.yaml': template },
      { env, templatesDir: 'templates' },
    );
    expect(summarize(result)).toEqual([`templates/t/template.yaml:5:22 env_forbidden \${env:…} cannot be used in a file path; ${FIX}`]);
    expect(looked.has('PLANTED')).toBe(false);
  });

  it('still allows it in ordinary values, and an escaped $${env:…} anywhere', async () => {
    const yaml = 'agents:\n  a: { id: "ag_$${env:X}", config: { first_message: "${env:GREETING}" } }\n';
    const result = await loadTree({ 'voxform.yaml': yaml }, { env: { GREETING: 'Hello there' } });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.agents.get('a')?.id).toBe('ag_${env:X}');
    expect(result.state?.environmentVariables).toEqual(['GREETING']);
  });
});

describe('an escaped reference in a file path', () => {
  it('is a literal file name, read as written', async () => {
    const result = await loadTree({ 'voxform.yaml': 'knowledge:\n  k: { file: "$${env:X}.md" }\n', '${env:X}.md': 'Opening hours' });
    expect(summarize(result)).toEqual([]);
    expect(result.state?.knowledge.get('k')?.size).toBe(13);
  });
});
