import { describe, expect, it } from 'vitest';
import { validateAgainst } from '../../src/schema/validate.js';
import { flaggedPaths } from '../../src/schema/introspect.js';

/** A full read-shape AgentConfig with every field of the spec's table. */
const fullReadConfig = {
  prompt: 'You are a receptionist.',
  voice: { provider: 'elevenlabs', voice_id: 'v1', model: 'm1', settings: { stability: 0.5 } },
  flow: {
    user_start_first: false,
    interruption: { allowed: true, keep_interruption_message: false, first_messsage: false },
    response_delay: 300,
    auto_fill_responses: { response_gap_threshold: 1500, messages: ['Mm-hmm'] },
    agent_terminate_call: { enabled: true, instruction: 'When done', messages: ['Bye'] },
    voicemail: { action: 'hangup', message: 'Call back', continue_on_voice_activity: false, detection_phrases: ['leave a message'] },
    call_transfer: { phone: '+15551230000', phones: [{ phone: '+15551230001', description: 'Sales' }], instruction: 'x', messages: ['One moment'] },
    inactivity_handling: { idle_time: 10000, message: 'Still there?' },
    dtmf_dial: { enabled: false, instruction: 'x' },
  },
  first_message: 'Hello',
  tools: [
    {
      name: 'lookup',
      description: 'Look up',
      params: [{ name: 'q', required: true, type: 'string', description: 'query' }],
      webhook: 'https://example.com/hook',
      header: { authorization: 'secret' },
      method: 'POST',
      timeout: 5000,
      run_after_call: false,
      messages: ['Checking'],
      response_mode: 'strict',
      execute_after_message: true,
      exclude_session_id: false,
      include_metadata: true,
    },
  ],
  platform_functions: [
    {
      name: 'end_call',
      description: 'End',
      data: { param: { description: 'd', name: 'n', required: false, type: 'string' } },
      type: 'builtin',
      params: [],
      messages: [],
      response_mode: 'flexible',
    },
  ],
  app_functions: [{ name: 'crm', credentials: { token: 'x' } }],
  custom_llm_websocket: 'wss://llm.example.com',
  language: 'en-US',
  vad_threshold: 0.5,
  llm: { model: 'gpt-4o', temperature: 0.3, history_settings: { history_message_limit: 20, history_tool_result_limit: 5 } },
  session_timeout: { max_duration: 600000, max_idle: 30000, message: 'Bye' },
  session_data_webhook: { url: 'https://example.com/end', headers: { 'x-token': 't' } },
  privacy_settings: { opt_out_data_collection: false, do_not_call_detection: false },
  custom_vocabulary: { keywords: { Acme: 2 } },
  extra_prompt_webhook: 'https://example.com/prefetch',
  switch_language: { languages: ['en-US', 'es-ES'] },
  knowledge_base: { files: ['f1'], messages: ['Let me look that up'] },
  speech_to_text: { provider: 'deepgram', multilingual: false, model: 'nova', denoise: false, denoiser: { settings: {} } },
  call_settings: { enable_recording: false, background: { url: 'https://example.com/bg.mp3', volume: 0.2 } },
  memory: { user_identifier_key: '' },
  timezone: 'America/New_York',
  status: 'active',
};

function withoutReadOnly(config: typeof fullReadConfig): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, any>;
  delete copy.voice.provider;
  delete copy.flow.voicemail.action;
  delete copy.llm.model;
  delete copy.speech_to_text.provider;
  for (const tool of copy.tools) delete tool.response_mode;
  for (const fn of copy.platform_functions) delete fn.response_mode;
  return copy;
}

describe('AgentConfig shapes', () => {
  it('the read shape accepts every field of the spec', () => {
    expect(validateAgainst('AgentConfigRead', fullReadConfig)).toEqual([]);
  });

  it('the update shape accepts every field except the provider extras', () => {
    expect(validateAgainst('AgentConfigUpdate', withoutReadOnly(fullReadConfig))).toEqual([]);
  });

  it('the update shape refuses each provider extra', () => {
    const issues = validateAgainst('AgentConfigUpdate', fullReadConfig);
    expect(issues.filter((i) => i.keyword === 'unknown_property').map((i) => i.path.join('.')).sort()).toEqual([
      'flow.voicemail.action',
      'llm.model',
      'platform_functions.0.response_mode',
      'speech_to_text.provider',
      'tools.0.response_mode',
      'voice.provider',
    ]);
  });

  it('names the read-only fields and the secrets', () => {
    expect(flaggedPaths('AgentConfigRead', 'readOnly').sort()).toEqual([
      'flow.voicemail.action',
      'llm.model',
      'platform_functions[].response_mode',
      'speech_to_text.provider',
      'tools[].response_mode',
      'voice.provider',
    ]);
    expect(flaggedPaths('AgentConfigUpdate', 'sensitive').sort()).toEqual([
      'app_functions[].credentials',
      'extra_prompt_webhook.headers',
      'session_data_webhook.headers',
      'tools[].header',
    ]);
  });

  it.each([
    [{ flow: { response_delay: 'fast' } }, 'flow.response_delay', 'type'],
    [{ flow: { interruption: { first_message: true } } }, 'flow.interruption.first_message', 'unknown_property'],
    [{ tools: [{ params: [{ required: 'yes' }] }] }, 'tools.0.params.0.required', 'type'],
    [{ session_data_webhook: 42 }, 'session_data_webhook', 'anyOf'],
    [{ session_data_webhook: { headers: {} } }, 'session_data_webhook', 'anyOf'],
    [{ knowledge_base: { files: [1] } }, 'knowledge_base.files.0', 'type'],
  ])('the update shape refuses %j at %s', (config, path, keyword) => {
    const issues = validateAgainst('AgentConfigUpdate', config);
    expect(issues.map((i) => [i.path.join('.'), i.keyword])).toContainEqual([path, keyword]);
  });
});

describe('request and response bodies', () => {
  it.each([
    ['CreateApiKeyRequest', { type: 'private', name: 'ci' }],
    ['CreateApiKeyRequest', { type: 'public', name: null }],
    ['CreatedApiKey', { id: 'k1', type: 'private', name: null, created_at: 1, revoked_at: null, prefix: 'abc', legacy: false, is_default: false, key: 'abc123' }],
    ['SetCredentialRequest', { provider: 'openai', api_key: 'sk-1' }],
    ['EditCampaignInfoRequest', { name: 'Spring', include_metadata_in_prompt: false }],
    ['Campaign', { id: 'c1', name: 'Spring', status: 'idle', created_at: 1, caller: '+15551230001', include_metadata_in_prompt: false }],
    ['SetCallerRequest', { caller: '+15551230001' }],
    ['SetPhoneAgentRequest', { agent_id: '-OKdq' }],
    ['PhoneList', [{ id: '+15551230001', create_at: 1, status: 'active', agent_id: 'a', agent_config_override: { voice: { provider: 'x' } }, tags: ['main'] }]],
    ['ImportPhoneRequest', { country: 'US', phone: '+15551230002', region: 'us-west', api_key: 'k', api_secret: 's', provider: 'twilio', app_id: null }],
    ['Agent', { id: '-OKdq', name: 'Front desk', config: fullReadConfig, created_at: 1700000000 }],
    ['UpdateAgentRequest', { name: 'Front desk', config: { prompt: 'x' } }],
    ['ActionResponse', { success: true }],
    ['ActionResponse', 'ok'],
    ['CallHistoriesResponse', { items: [{ agent_id: 'a', duration: 12, ts: 1, chat: '[]', call_status: 'user-ended' }], pagination: { success: true } }],
    ['CallLogsResponse', { histories: [{ agent_id: 'a', campaign_id: 'c', error_message: null, call_metrics: {}, carrier_call_log: {} }], next_cursor: 0 }],
    ['RegisterCallRequest', { agent_id: 'a', agent_config: fullReadConfig, metadata: { k: 'v' }, include_metadata_in_prompt: true, from_phone: '+15557654321', to_phone: '+15551230001', session_continuation: { session_id: 's', messages: [{ role: 'user', content: 'hi' }], identifier_variable: 'phone' } }],
    ['RegisterCallResponse', { call_id: 'c', session_id: 's' }],
    ['RegisterSipCallRequest', { agent_id: 'a', agent_config: withoutReadOnly(fullReadConfig) }],
    ['RegisterSipCallResponse', { call_id: 'c', sip_uri: 'sip:c@host' }],
    ['CreateSipRequest', { init_agent: { agent_id: 'a' }, region: 'us-west' }],
    ['CreateSipResponse', { sip: 'sip:c@host' }],
    ['ChatCompletionRequest', { agent: { agent_id: 'a', agent_config: {}, metadata: {}, include_metadata_in_prompt: false }, messages: [{ role: 'user', content: 'hi' }], end_of_session: false }],
    ['ChatCompletionChunk', { choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] }],
    ['PresignedUrlRequest', { filename: 'faq.pdf' }],
    ['PresignedUrlResponse', { url: 'https://s3', fields: { key: 'k', policy: 'p' } }],
    ['KnowledgeFileRecord', { object_key: 'k', description: 'd', name: 'faq.pdf', file_type: 'application/pdf', size: 10 }],
    ['CreateFileResponse', 'file_1'],
    ['CreateFileResponse', { id: 'file_1' }],
    ['SetAgentFilesRequest', { agent_id: 'a', files: ['f1'], messages: [] }],
    ['ValidationErrorBody', { detail: [{ loc: ['body', 'config', 0], msg: 'Field required', type: 'missing' }] }],
    ['PrefetchWebhookQuery', { session_id: 's', agent_id: 'a', from: '+1', to: '+2', customer: 'vip' }],
    ['PrefetchWebhookResponse', { metadata: { tier: 'gold' }, extra_prompt: 'Be nice.' }],
    [
      'EndOfCallPayload',
      {
        chat: '[{"role":"user","content":"hi"}]', function_calls: [{ name: 'f', params: {} }], ts: 1, duration: 30, agent_config: {}, agent_id: 'a',
        call_id: 'c', chars_used: 100, session_id: 's', cost_breakdown: [{ type: 'stt', provider: 'deepgram', credit: 0.1 }],
        voip: { provider: 'twilio', from: '+1', to: '+2' }, recording: { recording_url: 'https://r' }, metadata: {}, call_status: 'user-ended', error_message: null,
      },
    ],
  ])('%s accepts the spec shape', (name, value) => {
    expect(validateAgainst(name, value)).toEqual([]);
  });

  it.each([
    ['CreateApiKeyRequest', { type: 'admin' }, 'type'],
    ['CreateApiKeyRequest', { type: 'public', name: 'x'.repeat(101) }, 'name'],
    ['CreateApiKeyRequest', { type: 'public', extra: 1 }, 'extra'],
    ['ImportPhoneRequest', { country: 'US', phone: '+1', region: 'us-west', api_key: 'k' }, 'api_secret'],
    ['UpdateAgentRequest', { config: {} }, 'name'],
    ['UpdateAgentRequest', { name: 'x', config: { voice: { provider: 'x' } } }, 'config.voice.provider'],
    ['SetAgentFilesRequest', { agent_id: 'a' }, 'files'],
    ['CallLogsQuery', { limit: 101 }, 'limit'],
    ['EndOfCallPayload', { chat: [], ts: 1, duration: 1.5, agent_id: 'a', call_id: 'c', session_id: 's', call_status: 'done' }, 'chat'],
  ])('%s refuses %j (at %s)', (name, value, path) => {
    const issues = validateAgainst(name, value);
    expect(issues.map((i) => i.path.join('.'))).toContain(path);
  });
});
