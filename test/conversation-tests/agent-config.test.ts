import { describe, expect, it } from 'vitest';
import { desiredAgentConfig } from '../../src/conversations/agent-config.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { desiredAgent } from '../helpers/desired.js';

const live: Agent = {
  id: '-OKfront',
  name: 'Front desk',
  created_at: 1,
  config: {
    prompt: 'Old prompt.',
    first_message: 'Hello.',
    voice: { provider: 'elevenlabs', voice_id: 'rachel', settings: { stability: 0.5 } },
    llm: { model: 'gpt-4o', temperature: 0.7 },
    flow: { response_delay: 500, user_start_first: false },
    language: 'en-US',
  },
};

describe('the config --against desired sends: what the agent will have after apply', () => {
  it('replaces what apply changes, keeps the rest as live, without read-only fields', () => {
    const agent = desiredAgent('front-desk', {
      config: { prompt: 'New prompt.', voice: { voice_id: 'ava' }, flow: { response_delay: 500 }, language: null },
    });
    expect(desiredAgentConfig(agent, live)).toEqual({
      prompt: 'New prompt.',
      first_message: 'Hello.',
      // The live subtree with the managed leaf merged in (as apply's update body); voice.provider is read-only.
      voice: { voice_id: 'ava', settings: { stability: 0.5 } },
      // llm.model is read-only: not part of what a chat request may carry.
      llm: { temperature: 0.7 },
      flow: { response_delay: 500, user_start_first: false },
      // language: null clears it on apply, so the agent will not have it.
    });
  });

  it('leaves ignored paths as they are live', () => {
    const agent = desiredAgent('front-desk', { config: { voice: { voice_id: 'ava', settings: { stability: 0.9 } } }, ignore: ['config.voice.settings'] });
    expect(desiredAgentConfig(agent, live).voice).toEqual({ voice_id: 'ava', settings: { stability: 0.5 } });
  });

  it('is the live config when apply would change nothing', () => {
    const agent = desiredAgent('front-desk', { config: { prompt: 'Old prompt.' } });
    expect(desiredAgentConfig(agent, live)).toEqual({
      prompt: 'Old prompt.',
      first_message: 'Hello.',
      voice: { voice_id: 'rachel', settings: { stability: 0.5 } },
      llm: { temperature: 0.7 },
      flow: { response_delay: 500, user_start_first: false },
      language: 'en-US',
    });
  });
});
