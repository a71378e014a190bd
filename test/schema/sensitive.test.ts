import { describe, expect, it } from 'vitest';
import { sensitiveConfigPatterns, sensitiveFieldNames, sensitiveManifestPatterns } from '../../src/schema/sensitive.js';

describe('the one answer to "is this secret" (the schemas\' x-sensitive marks)', () => {
  it('names the agent config fields marked secret', () => {
    expect([...sensitiveConfigPatterns()].sort()).toEqual(['app_functions[].credentials', 'extra_prompt_webhook.headers', 'session_data_webhook.headers', 'tools[].header']);
  });

  it('marks each of them under every place a manifest holds an agent config, and the provider keys', () => {
    const manifest = sensitiveManifestPatterns();
    for (const pattern of sensitiveConfigPatterns()) {
      for (const at of ['defaults.config', 'agents.*.config', 'environments.*.agents.*.config']) expect(manifest).toContain(`${at}.${pattern}`);
    }
    expect(manifest).toEqual(expect.arrayContaining(['phones.*.import.api_key', 'phones.*.import.api_secret', 'credentials[].api_key']));
  });

  it('gives the field names `voxform logs` redacts wherever they appear in a call record', () => {
    expect([...sensitiveFieldNames()].sort()).toEqual(['api_key', 'api_secret', 'credentials', 'header', 'headers']);
  });
});
