/**
 * A damaged file of the ledger is told of once per run, however many walks of the ledger a command
 * makes (`report --agent` reads two environments' histories, each walk through the same files), and
 * the closing count counts files, not warnings.
 */
import { describe, expect, it } from 'vitest';
import { allSummaries } from '../../src/cli/history-records.js';
import type { HistoryQuery, HistoryStore } from '../../src/history/types.js';
import { MAX_DIAGNOSTICS_SHOWN } from '../../src/project-files/limits.js';
import { makeContext } from '../helpers/context.js';

/** A ledger of `files` junk files and no record, walked as the file store walks it. */
function junkLedger(files: number): HistoryStore {
  return {
    summaries: async function* (query: HistoryQuery) {
      for (let n = 0; n < files; n++) query.onSkipped?.({ where: `.voxform/history/junk-${n}.json`, problem: 'agents: not an object' });
    },
  } as unknown as HistoryStore;
}

const skippedLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes(' is skipped: '));

describe('the ledger walked twice in one run', () => {
  it('names each skipped file once', async () => {
    const { ctx, captured, close } = makeContext({ cwd: '/project' });
    const ledger = junkLedger(30);
    await allSummaries(ledger, 'staging@https://api.example.com', ctx);
    await allSummaries(ledger, 'default@https://api.example.com', ctx);
    await close();
    expect(skippedLines(captured.stderr)).toHaveLength(30);
    expect(captured.stderr).not.toContain('more files of the ledger');
  });

  it('counts the files past the first ones named, not the warnings', async () => {
    const { ctx, captured, close } = makeContext({ cwd: '/project' });
    const ledger = junkLedger(MAX_DIAGNOSTICS_SHOWN + 7);
    await allSummaries(ledger, 'staging@https://api.example.com', ctx);
    await allSummaries(ledger, 'default@https://api.example.com', ctx);
    await close();
    expect(skippedLines(captured.stderr)).toHaveLength(MAX_DIAGNOSTICS_SHOWN);
    expect(captured.stderr.trimEnd().split('\n').at(-1)).toBe(`warning: …and 7 more files of the ledger are skipped, not voxform history records (only the first ${MAX_DIAGNOSTICS_SHOWN} are named).`);
  });
});
