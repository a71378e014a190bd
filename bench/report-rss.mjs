// Preloaded into a measured CLI process (`node --import ./bench/report-rss.mjs …`): writes the
// process's peak resident set size, in bytes, to the file named by BENCH_RSS_FILE when it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS * 1024));
});
