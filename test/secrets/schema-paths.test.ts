import { describe, expect, it } from 'vitest';
import {
  agentSecretPatterns,
  configSecretPlaces,
  configSecretSet,
  credentialSecretFields,
  entrySecretFields,
  entrySecretPaths,
  envSecretSet,
  isSecretKeyName,
  isSecretManifestPath,
  phoneSecretFields,
  secretPatternSet,
  sensitiveConfigPatterns,
  sensitiveFieldNames,
  sensitiveManifestPatterns,
} from '../../src/secrets/schema-paths.js';

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

describe('secret places of each kind of resource', () => {
  it('gives the secret fields of a phone entry and of a credential from the manifest schema', () => {
    expect([...phoneSecretFields()].sort()).toEqual(['import.api_key', 'import.api_secret']);
    expect(credentialSecretFields()).toEqual(['api_key']);
    expect(entrySecretFields('campaign')).toEqual([]);
    expect([...entrySecretPaths('phone', ['import.region', 'import.api_key'])].sort()).toEqual(['import.api_key', 'import.api_secret', 'import.region']);
    expect(entrySecretPaths('knowledge', ['description'])).toEqual(['description']);
  });

  it('gives every entry whose `${env:}` paths add nothing the one list of its kind, so its patterns are compiled once', () => {
    expect(entrySecretPaths('phone', [])).toBe(entrySecretFields('phone'));
    expect(entrySecretPaths('phone', ['import.api_key'])).toBe(entrySecretFields('phone'));
    expect(entrySecretPaths('phone', ['import.region'])).not.toBe(entrySecretFields('phone'));
  });

  it("joins an agent's schema secrets and its `${env:}` paths into the patterns its plan change lists", () => {
    const patterns = agentSecretPatterns(['voice.voice_id', 'tools.1.webhook']);
    expect(patterns).toEqual([...sensitiveConfigPatterns().map((p) => `config.${p}`), 'config.voice.voice_id', 'config.tools.1.webhook']);
    const set = secretPatternSet(patterns);
    expect(secretPatternSet(patterns)).toBe(set);
    expect(set.covers(['config', 'tools', 0, 'header'])).toBe(true);
    expect(set.covers(['config', 'tools', 1, 'webhook', 'url'])).toBe(true);
    expect(set.covers(['config', 'tools', 0, 'webhook'])).toBe(false);
    expect(set.covers(['config', 'voice', 'voice_id'])).toBe(true);
    expect(set.covers(['config', 'voice', 'speed'])).toBe(false);
  });

  it('answers for a place in a manifest, under agents, defaults and environments', () => {
    expect(isSecretManifestPath(['agents', 'desk', 'config', 'tools', 2, 'header', 'x-token'])).toBe(true);
    expect(isSecretManifestPath(['environments', 'prod', 'agents', 'desk', 'config', 'session_data_webhook', 'headers'])).toBe(true);
    expect(isSecretManifestPath(['defaults', 'config', 'extra_prompt_webhook', 'headers', 'a'])).toBe(true);
    expect(isSecretManifestPath(['phones', '+15551230001', 'import', 'api_secret'])).toBe(true);
    expect(isSecretManifestPath(['credentials', 0, 'api_key'])).toBe(true);
    expect(isSecretManifestPath(['agents', 'desk', 'config', 'tools', 2, 'name'])).toBe(false);
    expect(isSecretManifestPath(['phones', '+15551230001', 'import', 'region'])).toBe(false);
  });

  it('finds the concrete secret places of a config and hears every secret string there', () => {
    const heard: string[] = [];
    const config = {
      tools: [{ name: 'a', header: { 'x-token': 'T1' } }, { name: 'b' }, { name: 'c', header: { 'x-other': 'T2' } }],
      session_data_webhook: { url: 'https://example.test', headers: { auth: 'T3' } },
    };
    expect(configSecretPlaces(config, (v) => heard.push(v)).sort()).toEqual(['session_data_webhook.headers', 'tools.0.header', 'tools.2.header']);
    expect(heard.sort()).toEqual(['T1', 'T2', 'T3']);
  });

  it("covers a config's schema secrets, and its `${env:}` paths when given", () => {
    expect(configSecretSet().covers(['tools', 0, 'header'])).toBe(true);
    expect(configSecretSet().covers(['voice', 'voice_id'])).toBe(false);
    expect(configSecretSet(['voice.voice_id']).covers(['voice', 'voice_id'])).toBe(true);
  });
});

describe('secret key names in records read from the service', () => {
  it('are the schema secret field names and authorization, in any case', () => {
    for (const key of ['header', 'Headers', 'credentials', 'API_KEY', 'api_secret', 'Authorization']) expect(isSecretKeyName(key)).toBe(true);
    for (const key of ['name', 'webhook', 'prompt']) expect(isSecretKeyName(key)).toBe(false);
  });
});

describe('places filled from ${env:}', () => {
  it('are secret exactly there (and under), keys with special characters included', () => {
    const set = envSecretSet([['config', 'voice', 'settings', 'api.key'], ['import', 'region'], ['knowledge', 0]]);
    expect(set.covers(['config', 'voice', 'settings', 'api.key'])).toBe(true);
    expect(set.covers(['config', 'voice', 'settings', 'api', 'key'])).toBe(false);
    expect(set.covers(['import', 'region'])).toBe(true);
    expect(set.covers(['import', 'country'])).toBe(false);
    expect(set.covers(['knowledge', 0])).toBe(true);
    expect(set.covers(['knowledge', 1])).toBe(false);
  });
});
