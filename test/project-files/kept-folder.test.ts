/**
 * A kept file is read and written only in a real folder: never in a folder that is a symbolic link,
 * or inside one within its git work tree (outside git: its own folder). Every reader and writer of
 * kept files goes through these functions, so the judge's cache and recordings inherit the rule.
 */
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JudgeCache } from '../../src/conversations/judge-cache.js';
import { writeRecording } from '../../src/conversations/recordings/recording-file.js';
import { makeKeptFolder, readKeptJson, writeKeptFile } from '../../src/project-files/kept-files.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const LIMITS = { maxBytes: 1024, maxValues: 100, maxDepth: 8 };
const LINKED = { code: 'kept_folder_linked' };

/** A git work tree `project` whose `.voxform` is a link to `outside`, which holds a kept file. */
async function linkedCheckout(): Promise<{ project: string; outside: string }> {
  const base = await tempDir({ 'project/.git/HEAD': 'ref: refs/heads/main\n', 'outside/state.json': '{"serial": 1}\n' });
  const project = path.join(base, 'project');
  await symlink(path.join(base, 'outside'), path.join(project, '.voxform'));
  return { project, outside: path.join(base, 'outside') };
}

describe('kept files live in real folders', () => {
  it('refuses to read, write or make a folder through a linked folder of the work tree, at any depth below it', async () => {
    const { project, outside } = await linkedCheckout();
    await expect(readKeptJson(path.join(project, '.voxform/state.json'), LIMITS)).rejects.toMatchObject({
      ...LINKED,
      message: expect.stringMatching(/^\.voxform \(in .+\) is a symbolic link: voxform reads and writes its own files/),
      hint: expect.stringContaining('`git rm .voxform`'),
    });
    await expect(readKeptJson(path.join(project, '.voxform/history/a.json'), LIMITS)).rejects.toMatchObject({ ...LINKED, message: expect.stringContaining('.voxform/history (in ') });
    await expect(writeKeptFile(path.join(project, '.voxform/state.json'), '{}')).rejects.toMatchObject(LINKED);
    await expect(makeKeptFolder(path.join(project, '.voxform/history'))).rejects.toMatchObject(LINKED);
    expect(await readdir(outside)).toEqual(['state.json']);
  });

  it('quotes the linked folder in the hint, so that the command can be pasted', async () => {
    const base = await tempDir({ 'project/.git/HEAD': 'ref: refs/heads/main\n', 'outside/state.json': '{}\n' });
    await symlink(path.join(base, 'outside'), path.join(base, 'project/my plans'));
    await expect(readKeptJson(path.join(base, 'project/my plans/plan.json'), LIMITS)).rejects.toMatchObject({ ...LINKED, hint: expect.stringContaining("`git rm 'my plans'`") });
  });

  it("the judge's cache and a recording write nothing where a link leads", async () => {
    const { project, outside } = await linkedCheckout();
    const cache = new JudgeCache({ folder: path.join(project, '.voxform/cache/judge'), modelName: 'judge', apiKey: undefined, redact: (text) => text });
    const run = { file: 'desk.test.yaml', test: 'is kind', target: 'desired' as const, run: 1 };
    await cache.put({ rubric: 'Is kind.', subject: 'Hello', what: 'reply of the agent' }, run, { pass: true, reason: 'kind' });
    // Read through the link: a miss (the judge is asked), as docs/testing.md says of an unusable cache, not an error.
    expect(await cache.get({ rubric: 'Is kind.', subject: 'Hello', what: 'reply of the agent' }, run)).toBeUndefined();
    await expect(writeRecording(path.join(project, '.voxform/desk.recording.json'), 'desk.test.yaml', { exchanges: [], sentConfigs: [] }, (text) => text)).rejects.toMatchObject(LINKED);
    expect(await readdir(outside)).toEqual(['state.json']);
  });

  it("outside git, refuses only a file whose own folder is a link: the folders above are the operator's path", async () => {
    const base = await tempDir({ 'real/sub/plan.json': '{"kind": "voxform-plan"}\n' });
    await symlink(path.join(base, 'real'), path.join(base, 'linked'));
    await expect(readKeptJson(path.join(base, 'linked/plan.json'), LIMITS)).rejects.toMatchObject(LINKED);
    expect(await readKeptJson(path.join(base, 'linked/sub/plan.json'), LIMITS)).toMatchObject({ found: true, ok: true });
  });

  it('reads and writes as before in real folders, and where a link leads above the work tree', async () => {
    const base = await tempDir({ 'real/project/.git/HEAD': 'ref: refs/heads/main\n' });
    await symlink(path.join(base, 'real'), path.join(base, 'linked'));
    const folder = path.join(base, 'linked/project/.voxform');
    await makeKeptFolder(folder);
    await writeKeptFile(path.join(folder, 'state.json'), '{"serial": 2}\n');
    expect(await readKeptJson(path.join(folder, 'state.json'), LIMITS)).toEqual({ found: true, ok: true, value: { serial: 2 } });
    await mkdir(path.join(base, 'real/project/.voxform/history'));
    await writeFile(path.join(base, 'real/project/.voxform/history/a.json'), '[]');
    expect(await readKeptJson(path.join(folder, 'history/a.json'), LIMITS)).toEqual({ found: true, ok: true, value: [] });
  });
});
