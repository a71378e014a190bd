// Preloaded into a measured CLI process (`node --import ./bench/lib/probe.mjs bin/voxform.cjs …`).
// When the process exits it writes to the file named by BENCH_PROBE_FILE:
//   maxRssBytes  the process's peak resident set size
//   cpuMs        CPU time the process used (user + system): beside the wall time, it tells a process
//                that waited (on the service, or for its share of a busy machine) from one that worked
// When requests went out is read from the emulator's request log instead: the service's own view
// of when each request arrived and was answered.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (!process.env.BENCH_PROBE_FILE) return;
  const usage = process.resourceUsage();
  const report = { maxRssBytes: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
  writeFileSync(process.env.BENCH_PROBE_FILE, JSON.stringify(report));
});
