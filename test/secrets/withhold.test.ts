import { describe, expect, it } from 'vitest';
import { WITHHELD, withholdSecrets, withholdUrlTokens } from '../../src/secrets/withhold.js';

const W = WITHHELD;

describe('withholdSecrets: the config voxform test sends before review', () => {
  it.each([
    ['a webhook header map keeps its names', { session_data_webhook: { url: 'https://h/end', headers: { 'x-token': 's1', 'x-other': 's2' } } }, { session_data_webhook: { url: 'https://h/end', headers: { 'x-token': W, 'x-other': W } } }],
    ['tool headers, from the live agent too', { tools: [{ name: 't', webhook: 'https://h/t', header: { authorization: 'live' } }] }, { tools: [{ name: 't', webhook: 'https://h/t', header: { authorization: W } }] }],
    ['app credentials', { app_functions: [{ name: 'a', credentials: { key: 'k' } }] }, { app_functions: [{ name: 'a', credentials: { key: W } }] }],
    ['URL user info and query values', { extra_prompt_webhook: 'https://u:p@h/pre?token=abc&flag&x=' }, { extra_prompt_webhook: `https://${W}@h/pre?token=${W}&flag&x=` }],
    ['text that is not a URL is left alone', { prompt: 'See https://h/a?x=1 for more', first_message: 'Hi' }, { prompt: 'See https://h/a?x=1 for more', first_message: 'Hi' }],
  ])('%s', (_name, config, expected) => {
    expect(withholdSecrets(config, { sensitivePaths: [] })).toEqual(expected);
  });

  it('withholds each ${env:…} reference where the manifest wrote it, keeping the text around it', () => {
    const config = { first_message: 'Hello Bearer secret-value', extra_prompt_webhook: { url: 'https://h/pre/secret-path' }, language: 'en-US' };
    const agent = {
      sensitivePaths: ['first_message', 'extra_prompt_webhook.url', 'language'],
      envReferences: { 'config.first_message': 'Hello Bearer ${env:TOKEN}', 'config.extra_prompt_webhook.url': 'https://h/pre/${env:PART}', 'config.language': '$${env:LITERAL} ${env:LANG:-en}' },
    };
    expect(withholdSecrets(config, agent)).toEqual({ first_message: `Hello Bearer ${W}`, extra_prompt_webhook: { url: `https://h/pre/${W}` }, language: `\${env:LITERAL} ${W}` });
    // The original is untouched (it is the desired state's).
    expect(config.first_message).toBe('Hello Bearer secret-value');
  });

  it('withholds a whole value at an ${env:…} place without its written form', () => {
    expect(withholdSecrets({ first_message: 'secret', voice: { settings: { speed: 1 } } }, { sensitivePaths: ['first_message'] })).toEqual({ first_message: W, voice: { settings: { speed: 1 } } });
  });

  it('keeps a key named __proto__ as a key of the copy, its secret withheld', () => {
    // JSON from the service makes `__proto__` an own key; plain assignment in the copy would drop it.
    const config = JSON.parse('{"session_data_webhook":{"url":"https://h/end","headers":{"__proto__":"s1","x-token":"s2"}},"__proto__":{"note":"https://u:p@h/x"}}');
    const copy = withholdSecrets(config, { sensitivePaths: [] });
    expect(Object.keys(copy)).toEqual(['session_data_webhook', '__proto__']);
    expect(JSON.parse(JSON.stringify(copy))).toEqual(JSON.parse(`{"session_data_webhook":{"url":"https://h/end","headers":{"__proto__":"${W}","x-token":"${W}"}},"__proto__":{"note":"https://${W}@h/x"}}`));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('leaves URLs without tokens as they are', () => {
    expect(withholdUrlTokens('https://h/a/b?flag#frag')).toBe('https://h/a/b?flag#frag');
    expect(withholdUrlTokens('wss://h/a?k=v#frag')).toBe(`wss://h/a?k=${W}#frag`);
  });
});
