import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { useFakeServers } from './helpers.js';

vi.mock('../../src/util/version.js', () => ({ voxformVersion: () => '9.8.7' }));

const { serve, cleanups } = useFakeServers();

describe('the user agent', () => {
  it("names voxform's own version, as package.json gives it", async () => {
    const agents: Array<string | undefined> = [];
    const fake = await serve((req, res) => {
      agents.push(req.headers['user-agent']);
      res.setHeader('content-type', 'application/json');
      res.end('[]');
    });
    const client = createClient({ baseUrl: fake.url, apiKey: 'test-key-0123456789' });
    cleanups.push(() => client.close());
    await client.listPhones();
    expect(agents).toEqual(['voxform/9.8.7']);
  });
});
