/**
 * `voxform test --baseline FILE`: the run compared with an earlier JSON result (`--format json`),
 * failing only on tests that got worse — newly failing (passed in the baseline, or absent from it,
 * and not passing now), or a pass rate whose 95% interval lies wholly below the baseline's. A test
 * that failed in the baseline and still fails is known, not a regression; a test now skipped is
 * neither. A test now in error still fails the run, regression or not: its verdict is unknown
 * (runner.ts runSucceeded). With both targets, only the desired verdicts are compared: the gate is on what the
 * change would deploy.
 */
import { VoxformError } from '../errors.js';
import { readTestReport } from './read-json.js';
import { verdictStatistics } from './statistics.js';
import type { BaselineComparison, BaselineVerdict, Regression, Target, TestRun } from './types.js';

/** The baseline's verdicts, by test file, name and target. */
export type Baseline = Map<string, Partial<Record<Target, BaselineVerdict>>>;

const testKey = (file: string, name: string): string => `${file}\0${name}`;

/** Reads an earlier JSON result with the one report reader; a file that is not one is `baseline_invalid`. */
export async function readBaseline(file: string, display: string): Promise<Baseline> {
  const run = await readTestReport(file, (problem) =>
    new VoxformError('baseline_invalid', `The baseline ${display} ${problem}.`, { hint: 'Give --baseline the JSON result of an earlier run (voxform test --format json --out FILE).' }),
  );
  const baseline: Baseline = new Map();
  for (const report of run.reports) {
    const verdicts: Partial<Record<Target, BaselineVerdict>> = {};
    for (const target of ['desired', 'live'] as const) {
      const verdict = report.verdicts[target];
      if (verdict) verdicts[target] = { status: verdict.status, passes: verdict.passes, runs: verdict.runs };
    }
    baseline.set(testKey(report.file, report.name), verdicts);
  }
  return baseline;
}

/** Whether `now` is worse than `before`; undefined when it is not. */
function regressionOf(now: BaselineVerdict, before: BaselineVerdict | undefined): Regression['change'] | undefined {
  if (now.status === 'skipped') return undefined;
  if (now.status !== 'passed' && (before === undefined || before.status === 'passed' || before.status === 'skipped')) return 'newly_failing';
  if (!before || before.runs === 0) return undefined;
  const after = verdictStatistics(now).interval;
  const earlier = verdictStatistics(before).interval;
  return after && earlier && after.high < earlier.low ? 'rate_dropped' : undefined;
}

export function compareWithBaseline(run: TestRun, baseline: Baseline, display: string): BaselineComparison {
  const regressions: Regression[] = [];
  // As without a baseline, only the desired verdicts decide when both targets ran (runner.ts runSucceeded).
  const targets = run.against.includes('desired') ? (['desired'] as const) : run.against;
  for (const report of run.reports) {
    const earlier = baseline.get(testKey(report.file, report.name));
    for (const target of targets) {
      const now = report.verdicts[target];
      if (!now) continue;
      const before = earlier?.[target];
      const change = regressionOf(now, before);
      if (change) regressions.push({ report, target, change, before });
    }
  }
  return { file: display, regressions };
}

/** "2/2" or "absent". */
export function describeBaselineVerdict(verdict: BaselineVerdict | undefined): string {
  return verdict ? `${verdict.status} ${verdict.passes}/${verdict.runs}` : 'not in the baseline';
}
