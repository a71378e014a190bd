import { describe, expect, it } from 'vitest';
import { configurationHash, normalizeAgentConfig } from '../../src/history/config-hash.js';
import { PatternSet } from '../../src/util/field-path.js';

describe('configurationHash', () => {
  const config = {
    prompt: 'Hello',
    tools: [{ name: 'a', webhook: 'https://x/secret-path', header: { authorization: 'Bearer t0k3n' } }],
    session_data_webhook: { url: 'https://hooks', headers: { 'x-token': 'abc' } },
    language: null,
  };

  it('masks the schema secrets and the given paths, drops nulls, and ignores key order', () => {
    expect(normalizeAgentConfig(config, { maskPaths: ['tools.0.webhook'] })).toEqual({
      prompt: 'Hello',
      tools: [{ name: 'a', webhook: '(masked)', header: '(masked)' }],
      session_data_webhook: { url: 'https://hooks', headers: '(masked)' },
    });
    const reordered = { language: null, session_data_webhook: { headers: { 'x-token': 'other' }, url: 'https://hooks' }, tools: config.tools, prompt: 'Hello' };
    expect(configurationHash(reordered)).toBe(configurationHash(config));
    expect(configurationHash({ ...config, prompt: 'Hi' })).not.toBe(configurationHash(config));
    expect(configurationHash(config, { maskPaths: ['tools.0.webhook'] })).not.toBe(configurationHash(config));
  });

  it('masks by the one pattern type (src/util/field-path.ts): [] an index, * a key, at or under', () => {
    const set = new PatternSet(['tools[].header', 'a.*.b', 'x.0']);
    const matches = (path: Array<string | number>) => set.covers(path);
    expect(matches(['tools', 0, 'header'])).toBe(true);
    expect(matches(['tools', 0, 'header', 'authorization'])).toBe(true);
    expect(matches(['tools', 'k', 'header'])).toBe(false);
    expect(matches(['a', 'key', 'b'])).toBe(true);
    expect(matches(['a', 1, 'b'])).toBe(false);
    expect(matches(['x', 0])).toBe(true);
    expect(matches(['x'])).toBe(false);
  });
});
