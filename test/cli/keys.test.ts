import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { MAX_KEY_NAME_LENGTH } from '../../src/cli/commands/keys.js';
import { loadSchemas } from '../../src/schema/load.js';
import { runCliInProcess } from '../helpers/cli.js';
import { useEmulator } from '../helpers/project.js';

const service = useEmulator();

describe('voxform keys create', () => {
  it('prints the key alone on stdout, its id and prefix on stderr, and the key works', async () => {
    const result = await runCliInProcess(['keys', 'create', '--type', 'private', '--name', 'ci pipeline'], { env: service.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^[A-Za-z0-9]{32}\n$/);
    const key = result.stdout.trim();
    expect(result.stderr).toMatch(/^Created private key "ci pipeline": id \S+, prefix \S+\.\nIt is shown only this once: store it now/);
    expect(result.stderr).not.toContain(key);
    expect(result.stderr).not.toContain(service.emulator.apiKey);
    const stored = service.emulator.control.state().keys.find((k) => k.name === 'ci pipeline');
    expect(stored).toMatchObject({ type: 'private' });
    expect(key.startsWith(stored?.prefix ?? '?')).toBe(true);

    const client = createClient({ baseUrl: service.emulator.url, apiKey: key });
    try {
      expect(Array.isArray(await client.listPhones())).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('shows a name\'s control characters and line breaks escaped, keeping the Created line one line', async () => {
    const result = await runCliInProcess(['keys', 'create', '--type', 'public', '--name', '\u001b[31mred\nline2'], { env: service.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^Created public key "\\u001b\[31mred\\nline2": id \S+, prefix \S+\.\nIt is shown only this once/);
  });

  it('creates a public key without a name, and does not offer it as VOXFORM_API_KEY (a private key)', async () => {
    const result = await runCliInProcess(['keys', 'create', '--type', 'public'], { env: service.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^[A-Za-z0-9]{32}\n$/);
    expect(result.stderr).toMatch(/^Created public key: id \S+, prefix \S+\.\n/);
    expect(result.stderr).toContain(
      'It is shown only this once: store it now. A public key only starts sessions from a browser or an app (chat, SIP); voxform itself needs a private key as VOXFORM_API_KEY.\n',
    );
    expect(result.stderr).not.toContain('e.g. as VOXFORM_API_KEY');
  });

  it('is sent once: a 503 is not retried (a second key could be created), and says to look for the key before creating another', async () => {
    service.emulator.control.clearRequestLog();
    service.emulator.control.setFaults([{ path: '/api_keys', errorRate: 1, errorStatus: 503 }]);
    try {
      const result = await runCliInProcess(['keys', 'create', '--type', 'private'], { env: service.env });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error\[api_outcome_unknown\]: POST \/api_keys failed: the service answered 503 .+: the service may have acted on it\.\n/);
      expect(result.stderr).toContain('  hint: Check before running it again, or it may be done twice: look for the new key in the service’s dashboard.\n');
      expect(service.emulator.control.requestLog().filter((e) => e.path === '/api_keys')).toHaveLength(1);
    } finally {
      service.emulator.control.clearFaults();
    }
  });

  it('refuses a missing or unknown --type, and a name over 100 characters, before sending', async () => {
    const missing = await runCliInProcess(['keys', 'create'], { env: service.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error[invalid_argument]: `voxform keys create` needs --type <type>.\n  hint: ');
    const unknown = await runCliInProcess(['keys', 'create', '--type', 'admin'], { env: service.env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error[invalid_option]: The value given to --type is not one it takes: choose private or public.\n  hint: ');
    service.emulator.control.clearRequestLog();
    const long = await runCliInProcess(['keys', 'create', '--type', 'private', '--name', 'é'.repeat(101)], { env: service.env });
    expect(long.code).toBe(1);
    expect(long.stderr).toBe('error[invalid_option]: --name is 101 characters long; a key\'s name has at most 100.\n  hint: Give a shorter --name.\n');
    expect(service.emulator.control.requestLog().filter((e) => e.path === '/api_keys')).toHaveLength(0);
    const longest = await runCliInProcess(['keys', 'create', '--type', 'private', '--name', 'é'.repeat(100)], { env: service.env });
    expect(longest.code).toBe(0);
  });

  it('the name limit is the service schema\'s', () => {
    const { service } = loadSchemas();
    expect(service).toMatchObject({ $defs: { CreateApiKeyRequest: { properties: { name: { maxLength: MAX_KEY_NAME_LENGTH } } } } });
  });

  it('a missing key is one clear sentence and a hint, exit 1', async () => {
    const result = await runCliInProcess(['keys', 'create', '--type', 'private'], { env: { VOXFORM_BASE_URL: service.emulator.url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error[api_key_missing]: No API key: VOXFORM_API_KEY is not set.\n  hint: Set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.\n');
  });
});
