/** Values for every required variable of the shipped templates: realistic, so prompts read right. */
export const SAMPLE_VALUES: Record<string, Record<string, string>> = {
  receptionist: {
    business: 'Acme Dental',
    business_description: 'a family dental practice in Springfield',
    opening_hours: 'Monday to Friday 8am to 6pm, Saturday 9am to 1pm',
    transfer_number: '+15551239999',
  },
  'appointment-booking': {
    business: 'Acme Dental',
    services: 'cleaning (45 minutes), check-up (30 minutes), emergency visit (30 minutes)',
    calendar_api_url: 'https://api.acme-dental.example/calendar',
  },
  'lead-qualification': {
    business: 'Sunrise Solar',
    offering: 'solar panels for homes',
    call_reason: 'you asked for a quote on our website',
    sales_number: '+15551230100',
    crm_webhook_url: 'https://crm.sunrise.example/hooks/voice',
  },
  'support-triage': {
    business: 'Nimbus Internet',
    product: 'home internet and TV',
    support_number: '+15551230200',
    technical_number: '+15551230201',
    billing_number: '+15551230202',
    ticket_webhook_url: 'https://help.nimbus.example/api/tickets',
  },
  'post-call-survey': {
    business: 'Acme Dental',
    results_webhook_url: 'https://hooks.acme-dental.example/survey',
  },
};

/** A minimal valid template folder's files, for tests that break one thing at a time. */
export function templateFiles(overrides: { yaml?: string; prompt?: string } = {}): Record<string, string> {
  return {
    'tpl/template.yaml':
      overrides.yaml ??
      [
        'description: A test template.',
        'variables:',
        '  business: { description: The business, required: true }',
        '  delay: { description: Response delay in ms, default: 300 }',
        'agent:',
        '  name: "{{business}} desk"',
        '  config:',
        '    prompt: { file: prompt.md }',
        '    first_message: "Hello from {{business}}!"',
        '    flow: { response_delay: "{{delay}}" }',
        '',
      ].join('\n'),
    'tpl/prompt.md': overrides.prompt ?? '# Role\nYou answer for {{ business }}.\n',
  };
}
