import { describe, expect, it } from 'vitest';
import { readBackDifferences } from '../../src/apply/read-back.js';
import { desiredAgent } from '../helpers/desired.js';

describe('read-back after an update', () => {
  const agent = desiredAgent('front', {
    id: 'a1',
    name: 'Front desk',
    config: { flow: { response_delay: 300 }, first_message: 'Hi', session_data_webhook: { url: 'https://h', headers: { 'x-token': 'tok-secret-123' } } },
  });

  it('is quiet when the service kept every managed field', () => {
    const live = { id: 'a1', name: 'Front desk', config: { flow: { response_delay: 300 }, first_message: 'Hi', voice: { provider: 'x' }, session_data_webhook: { url: 'https://h', headers: { 'x-token': 'tok-secret-123' } } } };
    expect(readBackDifferences(agent, live)).toEqual([]);
  });

  it('names each field the service dropped or changed, never showing a secret', () => {
    const live = { id: 'a1', name: 'Front desk', config: { flow: { response_delay: 500 }, session_data_webhook: { url: 'https://h', headers: { 'x-token': 'other-secret-456' } } } };
    const warnings = readBackDifferences(agent, live);
    expect(warnings).toEqual([
      'agent.front: the service did not keep config.flow.response_delay as applied: sent 300, the service has 500.',
      'agent.front: the service did not keep config.first_message as applied: sent "Hi", the service has nothing.',
      'agent.front: the service did not keep config.session_data_webhook.headers.x-token as applied.',
    ]);
    expect(warnings.join('\n')).not.toMatch(/secret-/);
  });
});
