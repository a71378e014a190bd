/** The base side of "policy relaxed": the manifests the operator's -f paths find at the base revision of a real git repository. */
import { rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spansOf } from '../../src/manifest/positions.js';
import { locationOf } from '../../src/manifest/source.js';
import { readBaseManifests, readHeadManifests } from '../../src/review/read-manifests.js';
import { useTempDirs } from '../helpers/cli.js';
import { commitAll, git } from '../helpers/git.js';

const tempDir = useTempDirs();

/** A repository whose only commit holds `files`, which are then deleted from the work tree: what is found comes from the base alone. */
async function committedThenDeleted(files: Record<string, string>, links: Record<string, string> = {}): Promise<string> {
  const dir = await tempDir(files);
  for (const [link, target] of Object.entries(links)) await symlink(target, path.join(dir, link));
  git(dir, 'init', '-q');
  commitAll(dir, 'base');
  for (const file of [...Object.keys(files), ...Object.keys(links)]) await rm(path.join(dir, file));
  return dir;
}

const found = async (paths: string[], cwd: string) => (await readBaseManifests('HEAD', paths, cwd, process.env)).map((m) => `${m.file}: ${JSON.stringify(m.documents)}`);

describe('readBaseManifests', () => {
  it('finds a folder\'s manifests as the loader does: nested ones in path order; no hidden or node_modules folder, test file, other extension or link', async () => {
    const dir = await committedThenDeleted(
      {
        'm/b.yaml': 'n: b',
        'm/a/z.YML': 'n: az',
        'm/a.yaml': 'n: a',
        'm/.hidden/h.yaml': 'n: h',
        'm/node_modules/p.yaml': 'n: p',
        'm/greeting.test.yaml': 'n: t',
        'm/notes.md': 'n: md',
        'm/*.yaml': 'n: star',
        'other.yaml': 'n: other',
      },
      { 'm/link.yaml': 'b.yaml' },
    );
    expect(await found(['m'], dir)).toEqual(['m/*.yaml: [{"n":"star"}]', 'm/a/z.YML: [{"n":"az"}]', 'm/a.yaml: [{"n":"a"}]', 'm/b.yaml: [{"n":"b"}]']);
    // A name holding `*` is that file, not a pattern; a path given twice is read once.
    expect(await found(['m/*.yaml', 'm/*.yaml'], dir)).toEqual(['m/*.yaml: [{"n":"star"}]']);
    expect(await found(['no-such-folder'], dir)).toEqual([]);
  });

  it('with no path, reads the default the working directory had: voxform.yaml, else agents.yaml', async () => {
    const both = await committedThenDeleted({ 'sub/voxform.yaml': 'n: v', 'sub/agents.yaml': 'n: ag' });
    expect(await found([], path.join(both, 'sub'))).toEqual(['voxform.yaml: [{"n":"v"}]']);
    const agentsOnly = await committedThenDeleted({ 'agents.yaml': 'n: ag', 'sub/x.yaml': 'n: x' });
    expect(await found([], agentsOnly)).toEqual(['agents.yaml: [{"n":"ag"}]']);
    // The working directory's own default, never the repository root's.
    expect(await found([], path.join(agentsOnly, 'sub'))).toEqual([]);
    // `-f .` at the root searches the whole tree.
    expect(await found(['.'], agentsOnly)).toEqual(['agents.yaml: [{"n":"ag"}]', 'sub/x.yaml: [{"n":"x"}]']);
  });
});

describe('a manifest saved with a byte order mark', () => {
  it('is read on both sides as the loader reads it: the mark is no part of its first key, so its policy is compared', async () => {
    // Editors on Windows save UTF-8 with a mark; read as text, it hid `policy:` from the comparison, and a rule turned off went unflagged.
    const marked = '\ufeffpolicy:\n  rules:\n    cost-prompt-tokens: mandatory\nversion: 1\n';
    const dir = await tempDir({ 'voxform.yaml': marked });
    git(dir, 'init', '-q');
    commitAll(dir, 'base');
    const expected = [[{ policy: { rules: { 'cost-prompt-tokens': 'mandatory' } }, version: 1 }]];
    expect((await readBaseManifests('HEAD', [], dir, process.env)).map((m) => m.documents)).toEqual(expected);
    const head = await readHeadManifests([path.join(dir, 'voxform.yaml')], dir, {});
    expect(head.map((m) => m.documents)).toEqual(expected);
    // The pull request's side points where the loader points: `policy` at line 1, column 1, as an editor shows it.
    const policyKey = spansOf(head[0]?.documents[0] as object)?.entries.get('policy')?.key;
    expect(policyKey && locationOf(policyKey)).toEqual({ file: 'voxform.yaml', line: 1, col: 1 });
  });
});

describe('readHeadManifests', () => {
  it('reads the pull request\'s manifests under the rule of every project file: in a CI job, one a step changed since is refused, never parsed', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents: {}\n' });
    git(dir, 'init', '-q');
    commitAll(dir, 'pull request');
    const file = path.join(dir, 'voxform.yaml');
    expect((await readHeadManifests([file], dir, { CI: 'true' })).map((m) => m.documents)).toEqual([[{ version: 1, agents: {} }]]);
    await writeFile(file, 'version: 1\nagents: { planted: {} }\n');
    await expect(readHeadManifests([file], dir, { CI: 'true' })).rejects.toMatchObject({ code: 'file_unreadable', message: expect.stringContaining('voxform.yaml differs from the file the commit under review holds at its path') });
    expect((await readHeadManifests([file], dir, {})).map((m) => m.documents)).toEqual([[{ version: 1, agents: { planted: {} } }]]);
  });
});
