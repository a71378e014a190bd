import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTree, summarize } from './helpers.js';

const receptionist = {
  'templates/receptionist/template.yaml': [
    'description: A front desk that answers questions and takes messages.',
    'variables:',
    '  business: { description: The business name, required: true }',
    '  agent_name: { description: What the agent calls itself, default: Ava }',
    '  delay: { description: Response delay in ms, default: 300 }',
    'agent:',
    '  name: "{{business}} front desk"',
    '  config:',
    '    prompt: { file: prompt.md }',
    '    first_message: "Thanks for calling {{business}}, this is {{agent_name}}!"',
    '    flow: { response_delay: "{{delay}}" }',
    '    language: en-US',
  ].join('\n'),
  'templates/receptionist/prompt.md': 'You are {{agent_name}}, the receptionist of {{business}}.\n',
};

function manifest(agent: string): string {
  return `agents:\n  front-desk:\n    id: ag_1\n${agent}`;
}

describe('templates', () => {
  it('expands a template: variables substituted, the entry merged over it', async () => {
    const local = await loadWith(
      manifest('    template: receptionist\n    vars: { business: Acme Dental }\n    config:\n      language: de-DE\n      voice: { voice_id: "{{agent_name}}-warm" }\n'),
    );
    expect(summarize(local)).toEqual([]);
    const agent = local.state!.agents.get('front-desk')!;
    expect(agent.name).toBe('Acme Dental front desk');
    expect(agent.config).toEqual({
      prompt: 'You are Ava, the receptionist of Acme Dental.',
      first_message: 'Thanks for calling Acme Dental, this is Ava!',
      flow: { response_delay: 300 },
      language: 'de-DE',
      voice: { voice_id: 'Ava-warm' },
    });
    // The template's files are among what a deploy is made from.
    expect(local.state!.sourceFiles).toEqual(['templates/receptionist/prompt.md', 'templates/receptionist/template.yaml', 'voxform.yaml'].map((file) => path.join(local.dir, file)));
  });

  it('reports a missing required variable at template: in the manifest', async () => {
    const result = await loadWith(manifest('    template: receptionist\n'));
    expect(summarize(result)).toEqual([
      'voxform.yaml:4:15 template_var_missing template "receptionist" needs variable "business" (The business name); add it under vars of agent "front-desk"',
    ]);
  });

  it('a missing variable is the one diagnostic: a value still holding its placeholder is not checked (the shipped receptionist)', async () => {
    const result = await loadTree({ 'voxform.yaml': manifest('    template: receptionist\n    vars: { business: Acme Dental }\n') });
    expect(summarize(result)).toEqual([
      'voxform.yaml:4:15 template_var_missing template "receptionist" needs variables "business_description" (One phrase on what the business is (e.g. a family dental practice in Springfield)), "opening_hours" (Opening hours, as the agent should say them (e.g. Monday to Friday 8am to 6pm)), "transfer_number" (Where calls go when a caller needs a person, in E.164 (e.g. +15551230000)); add them under vars of agent "front-desk"',
    ]);
  });

  it('a variable the shipped template reads through ${env:…} and the environment lacks: one diagnostic at template:, not one per place in the package\'s file', async () => {
    const vars = '    vars: { business: Acme, services: cleaning, calendar_api_url: "https://cal.example.com" }\n';
    const result = await loadTree({ 'voxform.yaml': manifest(`    template: appointment-booking\n${vars}`) });
    expect(summarize(result)).toEqual([
      'voxform.yaml:4:15 env_missing template "appointment-booking": environment variable CALENDAR_TOKEN is not set; set it, or give the agent its own config.tools (the whole list: it replaces the template\'s)',
    ]);
    const set = await loadTree({ 'voxform.yaml': manifest(`    template: appointment-booking\n${vars}`) }, { env: { CALENDAR_TOKEN: 'calendar-token-long-enough' } });
    expect(summarize(set)).toEqual([]);
  });

  it('a variable a shipped template reads and the environment lacks: the fix named is one the user can write, for each field that uses it', async () => {
    const vars = '    vars: { business: Acme, offering: x, call_reason: y, sales_number: "+15551230000", crm_webhook_url: "https://crm.example.com" }\n';
    const result = await loadTree({ 'voxform.yaml': manifest(`    template: lead-qualification\n${vars}`) });
    expect(summarize(result)).toEqual([
      'voxform.yaml:4:15 env_missing template "lead-qualification": environment variable CRM_WEBHOOK_TOKEN is not set; set it, or give the agent its own config.tools (the whole list: it replaces the template\'s)',
      'voxform.yaml:4:15 env_missing template "lead-qualification": environment variable CRM_WEBHOOK_TOKEN is not set; set it, or give the agent its own config.session_data_webhook.headers.authorization (it replaces the template\'s)',
    ]);
    // Doing what the messages say leaves nothing to report about the variable.
    const overridden = await loadTree({
      'voxform.yaml': manifest(`    template: lead-qualification\n${vars}    config:\n      tools: []\n      session_data_webhook: { headers: { authorization: "Bearer \${env:MY_CRM_TOKEN}" } }\n`),
    }, { env: { MY_CRM_TOKEN: 'crm-token-long-enough' } });
    expect(summarize(overridden)).toEqual([]);
  });

  it('a variable a project\'s own template reads and the environment lacks is reported in its file; for a header, the fix is to set it', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme }\n'), {
      'templates/receptionist/template.yaml': `${receptionist['templates/receptionist/template.yaml']}\n    session_data_webhook: { url: "https://hooks.example.com", headers: { authorization: "Bearer \${env:HOOK_TOKEN}" } }`,
    });
    expect(summarize(result)).toEqual([
      'templates/receptionist/template.yaml:13:97 env_missing environment variable HOOK_TOKEN is not set; set it where plan and apply run (the place holds a secret: a default would write the secret into the manifest)',
    ]);
  });

  it('names every missing required variable in one diagnostic, not one per run', async () => {
    const result = await loadWith(manifest('    template: receptionist\n'), {
      'templates/receptionist/template.yaml': receptionist['templates/receptionist/template.yaml'].replace(
        '  agent_name: { description: What the agent calls itself, default: Ava }',
        '  agent_name: { description: What the agent calls itself, required: true }',
      ),
    });
    expect(summarize(result)).toEqual([
      'voxform.yaml:4:15 template_var_missing template "receptionist" needs variables "business" (The business name), "agent_name" (What the agent calls itself); add them under vars of agent "front-desk"',
    ]);
  });

  it('reports a variable the template does not declare at its key in vars', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme, agentname: Bo }\n'));
    expect(summarize(result)).toEqual([
      'voxform.yaml:5:29 template_var_unknown template "receptionist" has no variable "agentname"; did you mean "agent_name"?',
    ]);
  });

  it('a variable of the base entry that a template switched in an overlay lacks: at the base\'s vars line, saying an overlay cannot remove it and what to do', async () => {
    const booking = {
      'templates/booking/template.yaml': [
        'description: Books appointments.',
        'variables:',
        '  business: { description: The business name, required: true }',
        '  services: { description: What can be booked, required: true }',
        'agent:',
        '  name: "{{business}} bookings"',
        '  config: { first_message: "Book {{services}} at {{business}}." }',
      ].join('\n'),
    };
    const switched = [
      'agents:',
      '  front-desk:',
      '    id: ag_1',
      '    template: receptionist',
      '    vars: { business: Acme, agent_name: Bo }',
      'environments:',
      '  staging:',
      '    agents: { front-desk: { id: ag_2 } }',
      '  production:',
      '    agents:',
      '      front-desk:',
      '        template: booking',
      '        vars: { services: cleanings }',
      '',
    ].join('\n');
    const load = (environment: string) => loadTree({ ...receptionist, ...booking, 'voxform.yaml': switched }, { templatesDir: 'templates', environment });
    expect(summarize(await load('staging'))).toEqual([]);
    expect(summarize(await load('production'))).toEqual([
      'voxform.yaml:5:29 template_var_unknown template "booking" has no variable "agent_name" (its variables: business, services); the base entry of agent "front-desk" gives it, ' +
        "and an environment's vars are merged over the base's, never removing one: set template and vars in each environment's overlay rather than in the base, or use one template in every environment",
    ]);
  });

  it('reports an undeclared {{name}} in the template file where it is written', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme }\n'), {
      'templates/receptionist/template.yaml': receptionist['templates/receptionist/template.yaml'].replace('{{agent_name}}!', '{{agentname}}!'),
    });
    expect(summarize(result)).toEqual([
      'templates/receptionist/template.yaml:10:62 template_var_undeclared {{agentname}} is not a variable of template "receptionist"; did you mean {{agent_name}}?',
    ]);
  });

  it('reports an undeclared {{name}} in the prompt file the template includes', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme }\n'), {
      'templates/receptionist/prompt.md': 'You are {{agent_name}}.\nYou work for {{bussiness}}.\n',
    });
    expect(summarize(result)).toEqual([
      'templates/receptionist/prompt.md:2:14 template_var_undeclared {{bussiness}} is not a variable of template "receptionist"; did you mean {{business}}?',
    ]);
  });

  it('reports an undeclared {{name}} in the manifest entry where it is written', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme }\n    config: { first_message: "Hi, {{agent}} here" }\n'));
    expect(summarize(result)).toEqual([
      'voxform.yaml:6:35 template_var_undeclared {{agent}} is not a variable of template "receptionist"',
    ]);
  });

  it('answers an unknown template with a suggestion', async () => {
    const result = await loadWith(manifest('    template: receptionst\n    vars: { business: Acme }\n'));
    expect(summarize(result)).toEqual(['voxform.yaml:4:15 template_unknown there is no template "receptionst"; did you mean "receptionist"?']);
  });

  it('reports mistakes in a template file in that file', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme }\n'), {
      'templates/receptionist/template.yaml': receptionist['templates/receptionist/template.yaml'].replace('agent:\n', 'agent:\n  id: ag_x\n'),
    });
    expect(summarize(result)).toEqual([
      'templates/receptionist/template.yaml:7:3 template_invalid a template must not set id: each manifest adopts its own live agent',
    ]);
  });

  it('reports a schema mistake that comes from the template in the template file', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme }\n'), {
      'templates/receptionist/template.yaml': receptionist['templates/receptionist/template.yaml'].replace('language: en-US', 'languag: en-US'),
    });
    expect(summarize(result)).toEqual([
      'templates/receptionist/template.yaml:12:5 unknown_field unknown field "languag" in config; did you mean "language"?',
    ]);
  });

  it('a value from vars that does not fit the template: at the vars line, naming the variable', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars:\n      business: Acme\n      delay: soon\n'));
    expect(summarize(result)).toEqual([
      'voxform.yaml:7:14 type_mismatch the value of vars.delay does not fit template "receptionist": flow.response_delay: expected a number, found a string ("soon")',
    ]);
  });

  it('a phone number from vars that is not E.164: at the vars line (the shipped receptionist)', async () => {
    const vars = '      business: Acme\n      business_description: dental\n      opening_hours: 9-5\n      transfer_number: "12345"\n';
    const result = await loadTree({ 'voxform.yaml': manifest(`    template: receptionist\n    vars:\n${vars}`) });
    expect(summarize(result)).toEqual([
      'voxform.yaml:9:24 invalid_value the value of vars.transfer_number does not fit template "receptionist": flow.call_transfer.phone: "12345" is not an E.164 phone number ("+", the country code and the number, digits only, no spaces: "+15551230001") or ${env:NAME}; start it with "+" and the country code, digits only',
    ]);
  });

  it('a default that does not fit is the template\'s mistake: reported in the template', async () => {
    const result = await loadWith(manifest('    template: receptionist\n    vars: { business: Acme }\n'), {
      'templates/receptionist/template.yaml': receptionist['templates/receptionist/template.yaml'].replace('default: 300', 'default: soon'),
    });
    expect(summarize(result)).toEqual([
      'templates/receptionist/template.yaml:11:29 type_mismatch flow.response_delay: expected a number, found a string ("soon")',
    ]);
  });

  it('warns about vars without a template', async () => {
    const result = await loadWith(manifest('    vars: { business: Acme }\n'));
    expect(summarize(result)).toEqual(['voxform.yaml:4:5 vars_without_template vars has no effect without template; add template: NAME or remove vars']);
  });

  it('binds the template files into the manifest hash', async () => {
    const entry = manifest('    template: receptionist\n    vars: { business: Acme }\n');
    const first = await loadWith(entry);
    const changed = await loadWith(entry, { 'templates/receptionist/prompt.md': 'Changed {{business}}.' });
    expect(changed.state?.manifestHash).not.toBe(first.state?.manifestHash);
  });
});

/** Loads a manifest beside the fixture templates (not the package's own, which another module owns). */
function loadWith(agentManifest: string, overrides: Record<string, string> = {}) {
  return loadTree({ ...receptionist, ...overrides, 'voxform.yaml': agentManifest }, { templatesDir: 'templates' });
}
