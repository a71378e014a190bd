/**
 * Which origins the operator trusts with the API key: the official gateways, the origin of the base
 * URL the operator named, and VOXFORM_TRUSTED_ORIGINS — compared as origins (scheme, host, port).
 */
import { describe, expect, it } from 'vitest';
import { parseTrustedOrigins, trustedOrigins } from '../../src/api/trusted-origins.js';
import { isVoxformError } from '../../src/errors.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

describe('trustedOrigins', () => {
  it('holds the gateways alone when the operator names nothing', () => {
    expect([...trustedOrigins({ env: {} })]).toEqual(['https://api-west.millis.ai', 'https://api-eu-west.millis.ai']);
  });

  it('adds the origin of --base-url (before VOXFORM_BASE_URL) and every listed origin, normalized', () => {
    const origins = trustedOrigins({
      operatorBaseUrl: 'https://proxy.example.com:443/voice/',
      env: { VOXFORM_BASE_URL: 'http://127.0.0.1:4010', VOXFORM_TRUSTED_ORIGINS: ' HTTP://Mirror.Example.com:8080 ,, http://127.0.0.1:4020/' },
    });
    expect([...origins].slice(2)).toEqual(['https://proxy.example.com', 'http://mirror.example.com:8080', 'http://127.0.0.1:4020']);
  });

  it('adds VOXFORM_BASE_URL when there is no --base-url', () => {
    expect(trustedOrigins({ env: { VOXFORM_BASE_URL: 'http://127.0.0.1:4010/x' } }).has('http://127.0.0.1:4010')).toBe(true);
  });
});

describe('parseTrustedOrigins', () => {
  it.each([
    ['a path', 'https://proxy.example.com/voice'],
    ['a query', 'https://proxy.example.com?x=1'],
    ['credentials', 'https://user:pw@proxy.example.com'],
    ['another scheme', 'ftp://proxy.example.com'],
    ['a bare host', 'proxy.example.com'],
  ])('refuses an entry with %s', (_, entry) => {
    let error: unknown;
    try {
      parseTrustedOrigins(`https://ok.example.com,${entry}`);
    } catch (caught) {
      error = caught;
    }
    expect(isVoxformError(error) && error.code).toBe('trusted_origins_invalid');
    expect((error as Error).message).not.toContain('pw@');
  });
});

describe('a VOXFORM_TRUSTED_ORIGINS that is not a list of origins', () => {
  it('stops a run that connects to a service although no manifest names a base_url: the typo is found on the first run', async () => {
    const cwd = await tempDir({ 'voxform.yaml': 'version: 1\nagents: {}\n' });
    const result = await runCliInProcess(['plan', '--base-url', 'http://127.0.0.1:9'], { cwd, env: { VOXFORM_API_KEY: 'k-test', VOXFORM_TRUSTED_ORIGINS: 'notanorigin' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[trusted_origins_invalid]: VOXFORM_TRUSTED_ORIGINS: its entry 1 of 1 is not an origin: it is not an absolute URL.');
  });
});
