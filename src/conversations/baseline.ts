/**
 * `voxform test --baseline FILE`: the run compared with an earlier JSON result (`--format json`),
 * failing only on tests that got worse — newly failing (passed in the baseline, or absent from it,
 * and not passing now), or a pass rate whose 95% interval lies wholly below the baseline's. A test
 * that failed in the baseline and still fails is known, not a regression; a test now skipped is
 * neither. With both targets, only the desired verdicts are compared: the gate is on what the
 * change would deploy.
 */
import { VoxformError } from '../errors.js';
import { readKeptJson } from '../project-files/kept-files.js';
import { MAX_KEPT_JSON_DEPTH } from '../project-files/limits.js';
import { isPlainObject } from '../util/json-object.js';
import { TEST_REPORT_FORMAT_VERSION } from './render-json.js';
import { verdictStatistics } from './statistics.js';
import type { BaselineComparison, BaselineVerdict, CheckStatus, Regression, Target, TestRun } from './types.js';

/** A JSON result, bytes: it holds every transcript of its run (tens of MB for the largest run allowed). */
export const MAX_BASELINE_BYTES = 128 * 1024 * 1024;
const MAX_BASELINE_JSON_VALUES = 8_000_000;

/** The baseline's verdicts, by test file, name and target. */
export type Baseline = Map<string, Partial<Record<Target, BaselineVerdict>>>;

const testKey = (file: string, name: string): string => `${file}\0${name}`;
const STATUSES = new Set<CheckStatus>(['passed', 'failed', 'skipped', 'error']);

function invalid(display: string, why: string): VoxformError {
  return new VoxformError('baseline_invalid', `The baseline ${display} ${why}.`, { hint: 'Give --baseline the JSON result of an earlier run (voxform test --format json --out FILE).' });
}

function verdictOf(value: unknown): BaselineVerdict | undefined {
  if (!isPlainObject(value) || !STATUSES.has(value.status as CheckStatus)) return undefined;
  if (!Number.isInteger(value.passes) || !Number.isInteger(value.runs) || (value.passes as number) < 0 || (value.passes as number) > (value.runs as number)) return undefined;
  return { status: value.status as CheckStatus, passes: value.passes as number, runs: value.runs as number };
}

/** Reads an earlier JSON result under the kept files' guards and budgets; a file that is not one is `baseline_invalid`. */
export async function readBaseline(file: string, display: string): Promise<Baseline> {
  const kept = await readKeptJson(file, { maxBytes: MAX_BASELINE_BYTES, maxValues: MAX_BASELINE_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH });
  if (!kept.found) throw invalid(display, 'does not exist');
  if (!kept.ok) throw invalid(display, kept.problem);
  const value = kept.value;
  if (!isPlainObject(value) || value.format_version !== TEST_REPORT_FORMAT_VERSION || !Array.isArray(value.tests)) {
    throw invalid(display, `is not a JSON result of voxform test (format_version ${TEST_REPORT_FORMAT_VERSION}, with "tests")`);
  }
  const baseline: Baseline = new Map();
  for (const [index, test] of value.tests.entries()) {
    if (!isPlainObject(test) || typeof test.file !== 'string' || typeof test.name !== 'string' || !isPlainObject(test.verdicts)) throw invalid(display, `has a test (tests[${index}]) without file, name and verdicts`);
    const verdicts: Partial<Record<Target, BaselineVerdict>> = {};
    for (const target of ['desired', 'live'] as const) {
      if (test.verdicts[target] === undefined) continue;
      const verdict = verdictOf(test.verdicts[target]);
      if (!verdict) throw invalid(display, `has a verdict (tests[${index}].verdicts.${target}) without status, passes and runs`);
      verdicts[target] = verdict;
    }
    baseline.set(testKey(test.file, test.name), verdicts);
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
