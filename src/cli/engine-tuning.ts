/**
 * V8's settings for `voxform plan`, when voxform runs as its own process. A plan's time is its
 * reads: while the main thread loads and compares, the wire thread (and, on one machine, the
 * service or the emulator) must get a core the moment an answer arrives. Two things V8 does by
 * default take those cores away for work a plan of a few seconds never gets back:
 *
 * - optimizing compiles (TurboFan) run on background threads, and the plan ends before most of the
 *   code they make has paid for itself: `--max-opt=1` stops at the baseline compiler;
 * - each young-generation collection fans out over every core, while what it copies is the main
 *   thread's survivors (the manifests, the answers, the plan): `--no-parallel-scavenge` keeps it
 *   on the main thread.
 *
 * At 5,000 agents + 5,000 phones on two cores (the benchmark's scale point), the two together made
 * the plan's network phase 0.94–0.95 × what it was, and at 500 agents its CPU about 20 % less
 * (docs/plan.md, "V8 settings for the plan"); alone, the first gave 1.5–2.5 % and the collector on
 * the main thread nothing. Apply runs long enough for the optimizing compiler to pay: with these
 * settings its writes took the same time and about 10 % more CPU, so it keeps V8's defaults. Both
 * flags are safe to change while running (V8 reads them at each decision); the collectors' other
 * threading flags are not (V8 aborts), so they stay.
 */
import { setFlagsFromString } from 'node:v8';

/** The flags `tuneEngineForPlan` sets, in order. */
export const PLAN_ENGINE_FLAGS = ['--max-opt=1', '--no-parallel-scavenge'] as const;

/**
 * Sets PLAN_ENGINE_FLAGS for the rest of the process. Only for a process that is voxform's own
 * (bin/voxform.js): V8's flags are the whole process's, so a program that calls `main` in-process
 * keeps its own.
 */
export function tuneEngineForPlan(): void {
  for (const flag of PLAN_ENGINE_FLAGS) setFlagsFromString(flag);
}
