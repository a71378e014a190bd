import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { useFakeServers } from './helpers.js';

const { serve, cleanups } = useFakeServers();
const KEY = 'planted-key-0123456789abcdef';

describe("createClient's apiKey (the rule the CLI reads VOXFORM_API_KEY by)", () => {
  it('trims a key read from a file with its line break, or with a leading space, and sends the key alone', async () => {
    const sent: Array<string | undefined> = [];
    const fake = await serve((req, res) => {
      sent.push(req.headers.authorization);
      res.setHeader('content-type', 'application/json');
      res.end('[]');
    });
    for (const apiKey of [`${KEY}\n`, ` ${KEY}`, `${KEY}\r\n`]) {
      const client = createClient({ baseUrl: fake.url, apiKey, retries: 0 });
      cleanups.push(() => client.close());
      await client.listPhones();
    }
    expect(sent).toEqual([KEY, KEY, KEY]);
  });

  it('refuses a key with a character a header cannot carry as env_header_invalid, without the key in the message', () => {
    for (const apiKey of [`${KEY.slice(0, 6)}\n${KEY.slice(6)}`, `${KEY}\u200b`, `${KEY}\u0007`]) {
      let caught: unknown;
      try {
        createClient({ baseUrl: 'http://127.0.0.1:9', apiKey });
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'env_header_invalid', message: expect.stringContaining('apiKey is malformed') });
      const { message, hint } = caught as { message: string; hint?: string };
      expect(`${message} ${hint ?? ''}`).not.toContain(KEY.slice(6, 20));
    }
  });

  it('takes a key of spaces alone as no key', () => {
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: ' \n' })).toThrow(expect.objectContaining({ code: 'api_key_missing' }));
  });
});
