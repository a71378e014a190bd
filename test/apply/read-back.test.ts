import { describe, expect, it } from 'vitest';
import { readBackWarnings } from '../../src/apply/read-back.js';
import { desiredAgent } from '../helpers/desired.js';

/** An update that sent every top-level key the agent manages. */
const SENT_EVERYTHING = { name: 'Front desk', config: { flow: {}, first_message: 'Hi', session_data_webhook: {} } };

describe('read-back after an update', () => {
  const agent = desiredAgent('front', {
    id: 'a1',
    name: 'Front desk',
    config: { flow: { response_delay: 300 }, first_message: 'Hi', session_data_webhook: { url: 'https://h', headers: { 'x-token': 'tok-secret-123' } } },
  });

  it('is quiet when the service kept every managed field', () => {
    const live = { id: 'a1', name: 'Front desk', config: { flow: { response_delay: 300 }, first_message: 'Hi', voice: { provider: 'x' }, session_data_webhook: { url: 'https://h', headers: { 'x-token': 'tok-secret-123' } } } };
    expect(readBackWarnings(agent, live, SENT_EVERYTHING)).toEqual([]);
  });

  it('names each field the service dropped or changed, never showing a secret', () => {
    const live = { id: 'a1', name: 'Front desk', config: { flow: { response_delay: 500 }, session_data_webhook: { url: 'https://h', headers: { 'x-token': 'other-secret-456' } } } };
    const warnings = readBackWarnings(agent, live, SENT_EVERYTHING);
    expect(warnings).toEqual([
      'agent.front: config.flow.response_delay is not as applied (sent 300, the service has 500): changed on the service since, or not kept.',
      'agent.front: config.first_message is not as applied (sent "Hi", the service has nothing): changed on the service since, or not kept.',
      'agent.front: config.session_data_webhook.headers.x-token is not as applied: changed on the service since, or not kept.',
    ]);
    expect(warnings.join('\n')).not.toMatch(/secret-/);
  });

  it('never names a field the update did not send, whatever the service holds there now', () => {
    const live = { id: 'a1', name: 'Someone else', config: { flow: { response_delay: 500 }, first_message: 'Hi' } };
    expect(readBackWarnings(agent, live, { name: 'Front desk', config: { first_message: 'Hi' } })).toEqual([
      'agent.front: name is not as applied (sent "Front desk", the service has "Someone else"): changed on the service since, or not kept.',
    ]);
  });
});
