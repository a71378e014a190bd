/**
 * A knowledge file edited after its plan was shown (while apply asks "Apply these changes?") is not
 * uploaded: the plan showed the hash of the content it read, and the state would record that hash
 * beside a file holding other content, which nobody reviewed and the next plan uploads once more.
 */
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, createClient, fingerprintKey, loadManifests, plan } from '../../src/index.js';
import { SECRETS, useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

describe('a knowledge file changed after the plan was shown', () => {
  it('is refused before its upload completes, and the next plan uploads what the file holds now', async () => {
    const p = await startProject();
    const client = createClient({ baseUrl: p.url, apiKey: p.emulator.apiKey });
    const options = { client, stateFile: path.join(p.dir, '.voxform', 'state.json'), serviceId: 'local', fingerprintKey: fingerprintKey(p.emulator.apiKey) };
    const faq = path.join(p.dir, 'example', 'knowledge', 'faq.md');
    try {
      const { state: desired } = await loadManifests({ paths: ['voxform.yaml'], cwd: p.dir, env: SECRETS });
      const outcome = await apply({
        ...options,
        desired: desired!,
        confirm: async () => {
          await appendFile(faq, '\nA line added after the plan was reviewed.\n');
          return true;
        },
      });
      expect(outcome.failed.map((failure) => [failure.address, (failure.error as { code?: string }).code])).toEqual([['knowledge.faq', 'knowledge_file_changed']]);
      expect(p.emulator.control.state().knowledge).toMatchObject({ files: [], objects: [] });

      const { state: edited } = await loadManifests({ paths: ['voxform.yaml'], cwd: p.dir, env: SECRETS });
      const next = await plan({ ...options, desired: edited! });
      const upload = next.changes.find((change) => change.address === 'knowledge.faq');
      expect(upload?.action).toBe('create');
      expect(upload?.after?.content_hash).toMatch(/^sha256:/);
      const finished = await apply({ ...options, desired: edited!, autoApprove: true });
      expect(finished.status).toBe('applied');
      const [stored] = p.emulator.control.state().knowledge.objects;
      expect(stored?.size).toBe(Buffer.byteLength(await readFile(faq)));
    } finally {
      await client.close();
    }
  });
});
