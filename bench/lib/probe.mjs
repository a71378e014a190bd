// Preloaded into a measured CLI process (`node --import ./bench/lib/probe.mjs bin/voxform.js …`).
// When the process exits it writes to the file named by BENCH_PROBE_FILE:
//   exitMs       when the process exited (ms since it began)
//   maxRssBytes  the process's peak resident set size (every thread: the wire thread's too)
//   cpuMs        CPU time the process used (user + system, every thread): beside the wall time, it
//                tells a process that waited (on the service, or for a share of a busy machine)
//                from one that worked
// When requests went out is not seen from here: voxform sends them from its wire thread
// (src/api/wire-thread.ts). The benchmarks read it from the emulator's request log instead, the
// service's own view of when each request arrived and was answered.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

process.on('exit', () => {
  if (!process.env.BENCH_PROBE_FILE) return;
  const usage = process.resourceUsage();
  const report = { exitMs: performance.now(), maxRssBytes: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
  writeFileSync(process.env.BENCH_PROBE_FILE, JSON.stringify(report));
});
