import { describe, expect, it } from 'vitest';
import { buildAgentUpdate } from '../../src/plan/update-body.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { desiredAgent } from '../helpers/desired.js';

const live: Agent = {
  id: 'a1',
  name: 'Front desk',
  created_at: 1,
  config: {
    prompt: 'Old prompt',
    voice: { provider: 'elevenlabs', voice_id: 'v1', settings: { stability: 0.4 } },
    flow: { response_delay: 300, voicemail: { action: 'hangup', message: 'Bye' }, interruption: { allowed: true } },
    tools: [{ name: 't', response_mode: 'strict' }],
    language: 'en-US',
  },
};

describe('buildAgentUpdate', () => {
  it('sends nothing when nothing managed differs', () => {
    expect(buildAgentUpdate(desiredAgent('a', { id: 'a1', config: { prompt: 'Old prompt' } }), live)).toBeUndefined();
  });

  it('sends each changed top-level key as the live subtree with the desired leaves merged, read-only extras stripped', () => {
    const body = buildAgentUpdate(desiredAgent('a', { id: 'a1', config: { flow: { response_delay: 100 }, prompt: 'Old prompt' } }), live);
    expect(body).toEqual({
      name: 'Front desk',
      config: { flow: { response_delay: 100, voicemail: { message: 'Bye' }, interruption: { allowed: true } } },
    });
  });

  it('keeps ignored paths at their live value, so a replacing service does not lose them', () => {
    const agent = desiredAgent('a', { id: 'a1', config: { voice: { voice_id: 'v2', settings: { stability: 0.9 } } }, ignore: ['config.voice.settings'] });
    expect(buildAgentUpdate(agent, live)?.config).toEqual({ voice: { voice_id: 'v2', settings: { stability: 0.4 } } });
  });

  it('sends the live name when the agent ignores its name, whatever name a template or the entry gives', () => {
    // `ignore: [name]` leaves the name to the dashboard: the plan shows no change of it, so the update must not make one.
    const agent = desiredAgent('a', { id: 'a1', name: 'Acme receptionist', config: { prompt: 'New prompt' }, ignore: ['name'] });
    expect(buildAgentUpdate(agent, live)).toEqual({ name: 'Front desk', config: { prompt: 'New prompt' } });
  });

  it('sends a top-level null, and drops a nested null from the subtree', () => {
    const agent = desiredAgent('a', { id: 'a1', config: { language: null, flow: { response_delay: null } } });
    expect(buildAgentUpdate(agent, live)?.config).toEqual({ language: null, flow: { voicemail: { message: 'Bye' }, interruption: { allowed: true } } });
  });

  it('leaves a nested null under a live value that is no object, or under nothing, as it is: no empty object is sent in its place', () => {
    const agent = desiredAgent('a', { id: 'a1', config: { voice: { voice_id: 'v2', settings: { stability: { boost: null } } }, flow: { response_delay: 200, inactivity_handling: { message: null } } } });
    expect(buildAgentUpdate(agent, live)?.config).toEqual({
      voice: { voice_id: 'v2', settings: { stability: 0.4 } },
      flow: { response_delay: 200, voicemail: { message: 'Bye' }, interruption: { allowed: true } },
    });
  });

  it('sends the desired name, and the live name when only config changes', () => {
    expect(buildAgentUpdate(desiredAgent('a', { id: 'a1', name: 'Reception' }), live)).toEqual({ name: 'Reception', config: {} });
  });

  it('replaces a string webhook with the object the manifest gives', () => {
    const withString: Agent = { ...live, config: { ...live.config, session_data_webhook: 'https://old' } };
    const agent = desiredAgent('a', { id: 'a1', config: { session_data_webhook: { url: 'https://new', headers: { x: 'y' } } } });
    expect(buildAgentUpdate(agent, withString)?.config).toEqual({ session_data_webhook: { url: 'https://new', headers: { x: 'y' } } });
  });

  it('keeps a key that is the empty string (a custom vocabulary keyword ""), and then sees no change', () => {
    const withKeywords: Agent = { ...live, config: { ...live.config, custom_vocabulary: { keywords: { '': 1, other: 2 } } } };
    const agent = desiredAgent('a', { id: 'a1', config: { custom_vocabulary: { keywords: { '': 3, other: 2 } } } });
    expect(buildAgentUpdate(agent, withKeywords)?.config).toEqual({ custom_vocabulary: { keywords: { '': 3, other: 2 } } });
    const same = desiredAgent('a', { id: 'a1', config: { custom_vocabulary: { keywords: { '': 1, other: 2 } } } });
    expect(buildAgentUpdate(same, withKeywords)).toBeUndefined();
  });
});
