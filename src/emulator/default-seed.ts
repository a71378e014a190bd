/**
 * The account `voxform emulator` serves when given no seed. It matches agents.example.yaml: the
 * agents, the campaign and the first phone exist, the second phone does not (the example imports
 * it), and every managed value differs from the example, so a first plan shows real changes.
 */
import type { Agent, AgentConfigRead, GlobalCallHistoryRecord } from '../schema/types.gen.js';
import type { EmulatorSeed } from './types.js';
import { SPARE_AGENT_IDS } from './spare-agents.js';

/** The seeded private key: a fixed, documented key that only the emulator accepts. */
export const DEFAULT_PRIVATE_KEY = 'vxlocalDefaultPrivateKey00000001';
/** The seeded public key (it authorizes only POST /chat/completions and POST /sip). */
export const DEFAULT_PUBLIC_KEY = 'vxlocalDefaultPublicKey000000001';

export const FRONT_DESK_ID = '-OKdqbqetEcM4ak369ym';
export const BOOKING_ID = '-OKdqbqetEcM4ak369yn';
export const STAGING_FRONT_DESK_ID = '-OKstagingFrontDesk01';
const STAGING_BOOKING_ID = '-OKstagingBooking0001';

const JAN_2025 = 1735689600;
/** 2026-01-01T00:00:00Z: the newest seeded call. */
const LOG_BASE_TS = 1767225600;

function frontDeskConfig(): AgentConfigRead {
  return {
    prompt: 'You are the receptionist of Acme Dental. Answer questions about the practice and take messages.',
    first_message: 'Hello, Acme Dental. How can I help you?',
    voice: {
      provider: 'elevenlabs',
      voice_id: 'rachel',
      model: 'eleven_turbo_v2_5',
      settings: { stability: 0.45, similarity_boost: 0.8 },
    },
    flow: {
      user_start_first: false,
      interruption: { allowed: true, keep_interruption_message: false, first_messsage: true },
      response_delay: 500,
      auto_fill_responses: { response_gap_threshold: 2500, messages: ['Let me check that for you.'] },
      agent_terminate_call: { enabled: true, instruction: 'End the call when the caller says goodbye.', messages: ['Goodbye!'] },
      voicemail: { action: 'hangup', message: '', continue_on_voice_activity: false, detection_phrases: ['leave a message', 'after the tone'] },
      call_transfer: { phone: '+15551230000', instruction: 'Transfer when the caller asks for a person.', messages: ['Connecting you now.'] },
      inactivity_handling: { idle_time: 15000, message: 'Hello? Are you still there?' },
      dtmf_dial: { enabled: false, instruction: '' },
    },
    tools: [],
    platform_functions: [],
    language: 'en-US',
    vad_threshold: 0.5,
    llm: { model: 'gpt-4o-mini', temperature: 0.7, history_settings: { history_message_limit: 50, history_tool_result_limit: 10 } },
    session_timeout: { max_duration: 600000, max_idle: 20000, message: 'Goodbye.' },
    privacy_settings: { opt_out_data_collection: true, do_not_call_detection: false },
    custom_vocabulary: { keywords: { Acme: 2 } },
    switch_language: { languages: [] },
    knowledge_base: { files: [], messages: [] },
    speech_to_text: { provider: 'deepgram', multilingual: false, model: 'nova-2', denoise: false },
    call_settings: { enable_recording: false },
    memory: { user_identifier_key: '' },
    timezone: 'America/Chicago',
    status: 'active',
  };
}

function bookingConfig(): AgentConfigRead {
  return {
    prompt: 'You book appointments for Acme Dental.',
    first_message: 'Hi, I can help you book an appointment.',
    voice: { provider: 'cartesia', voice_id: 'sonic-english-female', model: 'sonic-2', settings: { speed: 1 } },
    flow: {
      user_start_first: false,
      interruption: { allowed: false, keep_interruption_message: false, first_messsage: false },
      response_delay: 400,
      voicemail: { action: 'message', message: 'Please call us back to book.', continue_on_voice_activity: false, detection_phrases: [] },
      inactivity_handling: { idle_time: 12000, message: 'Are you there?' },
      dtmf_dial: { enabled: false, instruction: '' },
    },
    tools: [
      {
        name: 'find_slots',
        description: 'Find free slots.',
        webhook: 'https://api.example.com/calendar/v0/slots',
        method: 'GET',
        timeout: 3000,
        header: { authorization: 'seeded-calendar-token' },
        params: [{ name: 'date', type: 'string', required: true, description: 'Day' }],
        messages: ['One moment.'],
        run_after_call: false,
        execute_after_message: true,
        exclude_session_id: false,
        include_metadata: false,
        response_mode: 'strict',
      },
    ],
    platform_functions: [
      {
        name: 'transfer_call',
        description: 'Transfer the caller to the front desk.',
        type: 'transfer',
        data: { param: { name: 'phone', type: 'string', required: true, description: 'Number to transfer to' } },
        params: [],
        messages: ['Transferring you now.'],
        response_mode: 'flexible',
      },
    ],
    language: 'en-US',
    llm: { model: 'gpt-4o', temperature: 0.3 },
    session_timeout: { max_duration: 600000, max_idle: 20000, message: 'Goodbye.' },
    privacy_settings: { opt_out_data_collection: true, do_not_call_detection: false },
    knowledge_base: { files: [], messages: [] },
    speech_to_text: { provider: 'gladia', multilingual: true, model: 'fast', denoise: false },
    call_settings: { enable_recording: false },
    memory: { user_identifier_key: '' },
    timezone: 'America/Chicago',
    status: 'active',
  };
}

function spareConfig(): AgentConfigRead {
  return {
    prompt: 'You are a helpful assistant.',
    first_message: 'Hello! How can I help?',
    voice: { provider: 'openai', voice_id: 'alloy', model: 'tts-1', settings: {} },
    flow: {
      user_start_first: false,
      voicemail: { action: 'hangup', message: '', continue_on_voice_activity: false, detection_phrases: [] },
    },
    tools: [],
    platform_functions: [],
    language: 'en-US',
    llm: { model: 'gpt-4o-mini', temperature: 0.5 },
    speech_to_text: { provider: 'deepgram', multilingual: false, model: 'nova-2', denoise: false },
    knowledge_base: { files: [], messages: [] },
    status: 'active',
  };
}

function agents(): Agent[] {
  const list: Agent[] = [
    { id: FRONT_DESK_ID, name: 'Front desk', config: frontDeskConfig(), created_at: JAN_2025 },
    { id: BOOKING_ID, name: 'Appointment booking', config: bookingConfig(), created_at: JAN_2025 + 3600 },
    { id: STAGING_FRONT_DESK_ID, name: 'Front desk (staging)', config: frontDeskConfig(), created_at: JAN_2025 + 7200 },
    { id: STAGING_BOOKING_ID, name: 'Appointment booking (staging)', config: bookingConfig(), created_at: JAN_2025 + 10800 },
  ];
  SPARE_AGENT_IDS.forEach((id, i) => list.push({ id, name: `Spare agent ${i + 1}`, config: spareConfig(), created_at: JAN_2025 + 86400 * (i + 1) }));
  return list;
}

const STATUS_CYCLE = [
  'user-ended',
  'agent-ended',
  'user-ended',
  'voicemail-hangup',
  'api-ended',
  'timeout',
  'user-ended',
  'error',
  'voicemail-message',
  'registered',
];
const CALLER_LINES = [
  'What time do you open on Saturday?',
  'I need to move my appointment.',
  'Do you take Delta Dental insurance?',
  'Can I book a cleaning next week?',
  'Where can I park?',
];
const LOG_AGENTS = [FRONT_DESK_ID, BOOKING_ID, FRONT_DESK_ID, STAGING_FRONT_DESK_ID, BOOKING_ID];

/**
 * 40 calls over about nine days before 2026-01-01, newest first, with distinct ts: every status of
 * the cycle, every fourth call an outbound call of the campaign `cmp_recall_2026`.
 */
function callLogs(): GlobalCallHistoryRecord[] {
  const records: GlobalCallHistoryRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const agentId = LOG_AGENTS[i % LOG_AGENTS.length] as string;
    const booking = agentId === BOOKING_ID;
    const status = STATUS_CYCLE[i % STATUS_CYCLE.length] as string;
    const campaign = i % 4 === 3;
    const customer = `+1555010${String(1000 + i).slice(-4)}`;
    const line = booking ? '+15551230003' : '+15551230001';
    const registered = status === 'registered';
    const duration = registered ? 0 : 30 + ((i * 37) % 240);
    const chat = registered
      ? []
      : [
          { role: 'assistant', content: booking ? 'Hi, I can help you book an appointment.' : 'Hello, Acme Dental. How can I help you?' },
          { role: 'user', content: CALLER_LINES[i % CALLER_LINES.length] as string },
          { role: 'assistant', content: 'Sure, let me help you with that.' },
        ];
    const chars = chat.reduce((sum, m) => sum + m.content.length, 0);
    records.push({
      agent_id: agentId,
      // As the service records a call: the whole configuration it ran with, which the report hashes to tell versions apart.
      agent_config: { ...(booking ? bookingConfig() : frontDeskConfig()) },
      duration,
      ts: LOG_BASE_TS - i * 19800 - ((i * 7919) % 900),
      chat: JSON.stringify(chat),
      chars_used: chars,
      session_id: `ses_seed${String(i).padStart(4, '0')}`,
      call_id: `call_seed${String(i).padStart(4, '0')}`,
      cost_breakdown: registered
        ? []
        : [
            { type: 'stt', provider: booking ? 'gladia' : 'deepgram', credit: Math.round(duration * 43) / 10000 },
            { type: 'tts', provider: booking ? 'cartesia' : 'elevenlabs', credit: Math.round(chars * 3) / 10000 },
            { type: 'llm', provider: booking ? 'gpt-4o' : 'gpt-4o-mini', credit: Math.round(chars) / 10000 },
          ],
      voip: campaign ? { provider: 'twilio', from: '+15551230001', to: customer } : { provider: booking ? 'plivo' : 'twilio', from: customer, to: line },
      recording: { recording_url: '' },
      metadata: { customer_id: `cus_${1000 + i}` },
      function_calls: booking && !registered ? [{ name: 'find_slots', params: { date: `2025-12-${String(20 + (i % 9)).padStart(2, '0')}` } }] : [],
      call_status: status,
      campaign_id: campaign ? 'cmp_recall_2026' : null,
      error_message: status === 'error' ? 'The transfer number did not answer.' : null,
      call_metrics: registered ? {} : { response_latency_ms_p50: 600 + ((i * 13) % 200) },
      carrier_call_log: {},
    });
  }
  return records;
}

/** The built-in default seed (a fresh copy each time). */
export function defaultSeed(): EmulatorSeed {
  return {
    keys: [
      { id: 'key_local_private', type: 'private', key: DEFAULT_PRIVATE_KEY, name: 'Local emulator key', created_at: JAN_2025, is_default: true },
      { id: 'key_local_public', type: 'public', key: DEFAULT_PUBLIC_KEY, name: 'Local emulator public key', created_at: JAN_2025 },
    ],
    agents: agents(),
    phones: [
      {
        id: '+15551230001',
        create_at: JAN_2025 + 600,
        status: 'active',
        agent_id: STAGING_FRONT_DESK_ID,
        tags: ['main-line'],
        provider: 'twilio',
        country: 'US',
        region: 'us-west',
      },
      {
        id: '+15551230003',
        create_at: JAN_2025 + 1200,
        status: 'active',
        agent_id: BOOKING_ID,
        tags: ['after-hours'],
        provider: 'plivo',
        country: 'US',
        region: 'us-east',
      },
    ],
    campaigns: [
      { id: 'cmp_recall_2026', name: 'Recall reminders', status: 'idle', created_at: JAN_2025 + 86400 * 30, caller: '+15551230001', include_metadata_in_prompt: false },
      { id: 'cmp_winter_2025', name: 'Winter whitening offer', status: 'finished', created_at: JAN_2025 + 86400 * 300, caller: '+15551230003', include_metadata_in_prompt: false },
    ],
    call_logs: callLogs(),
  };
}
