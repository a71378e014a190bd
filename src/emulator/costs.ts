/**
 * What a session costs (docs/emulator.md, "Costs"), one rule for the sessions the emulator runs
 * and the synthetic calls it generates: speech-to-text 0.0043 credit per second, text-to-speech
 * 0.0003 per character, the language model 0.0001 per character; a chat has only the model.
 */
import type { AgentConfigRead } from '../schema/types.gen.js';

interface CostItem {
  type: string;
  provider: string;
  credit: number;
}

const round4 = (n: number) => Math.round(n * 10000) / 10000;

export function sessionCosts(config: AgentConfigRead, kind: 'voice' | 'chat', duration: number, chars: number): CostItem[] {
  const llm = { type: 'llm', provider: config.llm?.model ?? 'gpt-4o-mini', credit: round4(chars * 0.0001) };
  if (kind === 'chat') return [llm];
  return [
    { type: 'stt', provider: config.speech_to_text?.provider ?? 'deepgram', credit: round4(duration * 0.0043) },
    { type: 'tts', provider: config.voice?.provider ?? 'elevenlabs', credit: round4(chars * 0.0003) },
    llm,
  ];
}
