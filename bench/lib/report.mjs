// What every benchmark prints beside its figures: the machine's load (figures from a busy machine
// are not the code's alone), medians, and the verdict against a goal.
import os from 'node:os';

export function loadAverage() {
  const [one, five, fifteen] = os.loadavg();
  return `load average ${one.toFixed(2)}, ${five.toFixed(2)}, ${fifteen.toFixed(2)} on ${os.cpus().length} cores`;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const verdict = (ok) => (ok ? 'PASS' : 'MISS');

export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
