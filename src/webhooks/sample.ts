/**
 * A plausible ended call, for `voxform webhook send` without `--call`: a short booking call with
 * one tool call, costs and metadata, so a receiver sees every field of a real payload filled.
 */
import type { EndedCallRecord } from './payload.js';

interface SampleCallOptions {
  agentId?: string | undefined;
  /** The config the agent runs with (the manifest's), or a one-line sample prompt. */
  agentConfig?: Record<string, unknown> | undefined;
  /** Unix seconds of the call's start. */
  ts: number;
}

export function sampleCallRecord(options: SampleCallOptions): EndedCallRecord {
  const chat = [
    { role: 'assistant', content: 'Thanks for calling, this is Ava. How can I help you today?' },
    { role: 'user', content: 'I would like to book a cleaning next Tuesday.' },
    { role: 'assistant', content: 'Tuesday at 10:30 is free. Shall I book it?' },
    { role: 'user', content: 'Yes please. Thanks, bye.' },
  ];
  const chars = chat.reduce((sum, message) => sum + message.content.length, 0);
  return {
    agent_id: options.agentId ?? 'sample-agent',
    agent_config: options.agentConfig ?? { prompt: 'You are the receptionist of a dental practice.' },
    duration: 42,
    ts: options.ts,
    chat: JSON.stringify(chat),
    chars_used: chars,
    session_id: 'sample-session-0001',
    call_id: 'sample-call-0001',
    cost_breakdown: [
      { type: 'stt', provider: 'deepgram', credit: 0.1806 },
      { type: 'tts', provider: 'elevenlabs', credit: Math.round(chars * 3) / 10000 },
      { type: 'llm', provider: 'gpt-4o-mini', credit: Math.round(chars) / 10000 },
    ],
    voip: { provider: 'twilio', from: '+15551230001', to: '+15559870002' },
    recording: { recording_url: '' },
    metadata: { customer_id: 'sample-customer-42', source: 'voxform webhook send' },
    function_calls: [{ name: 'find_slots', params: { date: '2026-01-13' } }],
    call_status: 'user-ended',
    error_message: null,
  };
}
