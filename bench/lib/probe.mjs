// Preloaded into a measured CLI process (`node --import ./bench/lib/probe.mjs bin/voxform.js …`).
// It watches the HTTP client from inside, through undici's diagnostics channels (voxform's client
// is undici), and when the process exits writes to the file named by BENCH_PROBE_FILE:
//   firstSentMs  when the first request was handed to the socket pool (ms since the process began)
//   lastDoneMs   when the last answer had fully arrived, or its request failed
//   requests     attempts seen (a cross-check of the emulator's count)
//   exitMs       when the process exited
//   maxRssBytes  the process's peak resident set size
//   cpuMs        CPU time the process used (user + system): beside the wall time, it tells a process
//                that waited (on the service, or for a share of a busy machine) from one that worked
// The network phase is lastDoneMs − firstSentMs: from the first request to the last answer. It
// counts whatever the process does in between (parsing answers, comparing, scheduling), as that is
// work the requests wait on; it leaves out start-up and manifest loading before it and rendering
// and the state file after it.
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

let firstSentMs;
let lastDoneMs;
let requests = 0;

subscribe('undici:request:create', () => {
  requests++;
  firstSentMs ??= performance.now();
});
const done = () => (lastDoneMs = performance.now());
subscribe('undici:request:trailers', done);
subscribe('undici:request:error', done);

process.on('exit', () => {
  if (!process.env.BENCH_PROBE_FILE) return;
  const usage = process.resourceUsage();
  const report = { firstSentMs, lastDoneMs, requests, exitMs: performance.now(), maxRssBytes: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
  writeFileSync(process.env.BENCH_PROBE_FILE, JSON.stringify(report));
});
