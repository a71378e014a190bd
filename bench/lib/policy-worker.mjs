// One measured process of bench/policy.mjs: loads the manifests of the folder in argv[2] as validate
// does, and with argv[3] = `policy` checks the policy too (its modules imported here, as validate
// imports them), so that the two kinds of process differ by exactly what policy adds.
import { loadManifests } from '../../dist/manifest/index.js';

const [dir, mode] = process.argv.slice(2);
const result = await loadManifests({ paths: ['.'], cwd: dir, env: {} });
if (!result.state) throw new Error(`the benchmark project does not load: ${result.diagnostics[0]?.message}`);
let summary = null;
if (mode === 'policy') {
  const { evaluatePolicy } = await import('../../dist/policy/evaluate.js');
  summary = (await evaluatePolicy(result.state, { now: () => new Date() })).summary;
}
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ summary, cpuMs: (cpu.user + cpu.system) / 1000 }));
