/**
 * keptFilesAtCommit: the deploy ledger at the base revision, read through git. Every apply adds a
 * record, so the git runs it takes must not grow with them; and the checks a record read alone gets
 * (its size from the listing before any of it is read, a link refused) hold for every record a
 * batch brings along.
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VoxformError } from '../../src/errors.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import { HISTORY_RECORD_LIMITS } from '../../src/history/stored-record.js';
import type { SkippedRecord } from '../../src/history/types.js';
import { openGitRepository, type GitRepository } from '../../src/project-files/git.js';
import { keptFilesAtCommit, MAX_BATCH_BYTES } from '../../src/project-files/kept-source.js';
import { appliedRecord, ledgerRecords, TEST_SEAL_KEY } from '../helpers/ledger.js';
import { useTempDirs } from '../helpers/cli.js';
import { commitAll, gitIn } from '../helpers/git.js';

const tempDir = useTempDirs();
const WORKSPACE = 'default@local';

/** An agent whose prompt is `prompt`, as a record holds it. */
function agentWith(prompt: string) {
  return { desk: { id: 'ag1', config: { prompt }, configHash: `sha256:${'0'.repeat(64)}`, maskedPaths: [] } };
}

/** A repository whose `history/` holds a record of each of `prompts`, committed; its ledger in the work tree, and `git`. */
async function committedLedger(prompts: string[], folder?: string) {
  const dir = folder ?? (await tempDir());
  await writeFile(path.join(dir, 'README.md'), 'ledger\n');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
  const git = gitIn(dir);
  const workTree = new FileHistoryStore(path.join(dir, 'history'));
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const ids: string[] = [];
  for (const [index, prompt] of prompts.entries()) ids.push((await workTree.append(appliedRecord(new Date(start + index * 60_000).toISOString(), WORKSPACE, agentWith(prompt)), TEST_SEAL_KEY)).id);
  git('init', '-q', '-b', 'main');
  return { dir, env, git, ids, workTree, commitAll: () => commitAll(dir, 'ledger') };
}

const MEGABYTE = 1024 * 1024;
/** Records of a megabyte each: enough that the ledger fills more than one batch, and a batch holds several. */
const LARGE_LEDGER_RECORDS = Math.ceil((3 * MAX_BATCH_BYTES) / (2 * MEGABYTE));
let largeLedgerFolder: string | undefined;
let largeLedger: Promise<Awaited<ReturnType<typeof committedLedger>> & { commit: string }> | undefined;
/** One committed ledger larger than a batch, made once (in a folder of its own, kept until the file ends) for the tests that only read it. */
function sharedLargeLedger() {
  largeLedger ??= (async () => {
    largeLedgerFolder = await mkdtemp(path.join(tmpdir(), 'voxform-large-ledger-'));
    const ledger = await committedLedger(Array.from({ length: LARGE_LEDGER_RECORDS }, (_, index) => `${index}`.padEnd(MEGABYTE, 'x')), largeLedgerFolder);
    return { ...ledger, commit: ledger.commitAll() };
  })();
  return largeLedger;
}
afterAll(async () => {
  if (largeLedgerFolder !== undefined) await rm(largeLedgerFolder, { recursive: true, force: true });
});

/** The repository of `dir`, every git run it is asked for written down: its arguments, and what it was given to read. */
async function countedRepository(dir: string, env: Record<string, string>) {
  const repository = (await openGitRepository(dir, env)) as GitRepository;
  const runs: string[][] = [];
  const inputs: string[] = [];
  const counted: GitRepository = {
    root: repository.root,
    run(args, options) {
      runs.push([...args]);
      return repository.run(args, options);
    },
    runBytes(args, options) {
      runs.push([...args]);
      inputs.push(options.input);
      return repository.runBytes(args, options);
    },
  };
  return { repository: counted, runs, inputs };
}

/** As the base revision's reader makes it: an error that stops the command, not a damaged record to skip. */
const unreadable = (why: string) => new VoxformError('state_base_unreadable', `unreadable: ${why}`, { hint: undefined });

describe('keptFilesAtCommit', () => {
  it('reads a ledger of 50 records in a listing and one batch, newest first as the evidence walks it, and oldest first', async () => {
    const { dir, env, commitAll, workTree } = await committedLedger(Array.from({ length: 50 }, (_, index) => `Prompt ${index}`));
    const commit = commitAll();
    const expected = await ledgerRecords(workTree, { workspace: WORKSPACE });

    for (const walk of ['newest first', 'oldest first'] as const) {
      const { repository, runs } = await countedRepository(dir, env);
      const atCommit = new FileHistoryStore(workTree.directory, undefined, undefined, keptFilesAtCommit(repository, commit, unreadable));
      if (walk === 'newest first') expect(await ledgerRecords(atCommit, { workspace: WORKSPACE })).toEqual(expected);
      else expect(await atCommit.all()).toEqual([...expected].reverse());
      expect(runs.map((args) => args.filter((arg) => arg !== commit && !arg.startsWith('-')).slice(0, 2).join(' ')), walk).toEqual(['ls-tree history/', 'cat-file']);
    }
  });

  it('a ledger larger than a batch, walked again (a workspace at a time), costs its batches again per walk, never one run per record', async () => {
    const { dir, env, commit, workTree } = await sharedLargeLedger();
    const { repository, runs } = await countedRepository(dir, env);
    const atCommit = new FileHistoryStore(workTree.directory, undefined, undefined, keptFilesAtCommit(repository, commit, unreadable));
    const batchesPerWalk = Math.ceil((LARGE_LEDGER_RECORDS * MEGABYTE) / MAX_BATCH_BYTES) + 1;
    expect(batchesPerWalk).toBeLessThan(LARGE_LEDGER_RECORDS);
    for (let walk = 1; walk <= 3; walk++) {
      expect(await ledgerRecords(atCommit, { workspace: WORKSPACE })).toHaveLength(LARGE_LEDGER_RECORDS);
      expect(runs.filter((args) => args.includes('cat-file')).length, `walk ${walk}`).toBeLessThanOrEqual(walk * batchesPerWalk);
    }
  });

  it('a ledger larger than a batch is read in batches of at most MAX_BATCH_BYTES, never one run per record', async () => {
    const { dir, env, commit, workTree, ids } = await sharedLargeLedger();
    const { repository, runs, inputs } = await countedRepository(dir, env);
    const atCommit = new FileHistoryStore(workTree.directory, undefined, undefined, keptFilesAtCommit(repository, commit, unreadable));

    expect((await ledgerRecords(atCommit, { workspace: WORKSPACE })).map((record) => record.id)).toEqual([...ids].reverse());
    const batches = inputs.map((input) => input.split('\n').filter((line) => line !== ''));
    expect(batches.flat()).toHaveLength(LARGE_LEDGER_RECORDS);
    expect(batches.length).toBeGreaterThanOrEqual(Math.ceil((LARGE_LEDGER_RECORDS * MEGABYTE) / MAX_BATCH_BYTES));
    expect(batches.length).toBeLessThan(LARGE_LEDGER_RECORDS);
    for (const batch of batches) expect(batch.length * MEGABYTE).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    expect(runs).toHaveLength(1 + batches.length);
  });

  it('a record larger than the limit, or a link, is refused from the listing: git is never asked for it, and the rest are read', async () => {
    const { dir, env, git, commitAll, workTree, ids } = await committedLedger(['short', 'x'.repeat(5000), 'short too']);
    const oversized = ids[1] as string;
    const linked = '20260101T000500000Z-abcdef';
    await writeFile(path.join(dir, 'secret.json'), '{}');
    await symlink('../secret.json', path.join(workTree.directory, `${linked}.json`));
    const commit = commitAll();
    const oversizedObject = git('rev-parse', `${commit}:history/${oversized}.json`);
    const { repository, inputs } = await countedRepository(dir, env);
    const atCommit = new FileHistoryStore(workTree.directory, { ...HISTORY_RECORD_LIMITS, maxBytes: 4096 }, undefined, keptFilesAtCommit(repository, commit, unreadable));

    const skipped: SkippedRecord[] = [];
    expect((await ledgerRecords(atCommit, { workspace: WORKSPACE, onSkipped: (skip) => skipped.push(skip) })).map((record) => record.id)).toEqual([ids[2], ids[0]]);
    expect(skipped).toEqual([
      { where: path.join(workTree.directory, `${linked}.json`), problem: 'it is a symbolic link' },
      { where: path.join(workTree.directory, `${oversized}.json`), problem: expect.stringMatching(/^it is 5,\d{3} bytes; the limit is 4 KiB$/) },
    ]);
    expect(inputs.join('')).not.toContain(oversizedObject);
    expect(inputs.join('')).toContain(git('rev-parse', `${commit}:history/${ids[0]}.json`));
  });

  it('a record git does not give as listed stops the read: what the commit holds is then unknown', async () => {
    const { dir, env, commitAll, workTree } = await committedLedger(['one', 'two']);
    const commit = commitAll();
    const { repository } = await countedRepository(dir, env);
    const lying: GitRepository = { ...repository, runBytes: async (args, options) => (await repository.runBytes(args, { ...options, input: `${'0'.repeat(40)}\n` })) };
    const atCommit = new FileHistoryStore(workTree.directory, undefined, undefined, keptFilesAtCommit(lying, commit, unreadable));
    await expect(ledgerRecords(atCommit, { workspace: WORKSPACE })).rejects.toThrow(/^unreadable: has a history\/\S+\.json git cannot show$/);
  });
});
