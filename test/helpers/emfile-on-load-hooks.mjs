/** The loader hooks of emfile-on-load.mjs: the one module named fails to load with EMFILE. */
import { fileURLToPath } from 'node:url';

let failing;

export function initialize(data) {
  failing = data.failing;
}

export async function load(url, context, nextLoad) {
  if (failing && url.startsWith('file:') && fileURLToPath(url).endsWith(failing)) {
    const file = fileURLToPath(url);
    throw Object.assign(new Error(`EMFILE: too many open files, open '${file}'`), { code: 'EMFILE', errno: -24, syscall: 'open', path: file });
  }
  return nextLoad(url, context);
}
