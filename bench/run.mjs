// `npm run bench`: every benchmark in turn (after the build). Each prints its figures and the ratio
// to its goal. Benchmarks are not tests: they are run by hand on a quiet machine, never in CI.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = ['validate', 'emulator', 'client', 'plan', 'test-conversations'].filter((name) => only.length === 0 || only.includes(name));

let failed = false;
for (const name of benches) {
  console.log(`\n== bench/${name}.mjs`);
  const result = spawnSync(process.execPath, [path.join(here, `${name}.mjs`)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed = true;
    console.log(`bench/${name}.mjs exited ${result.status}`);
  }
}
process.exitCode = failed ? 1 : 0;
