/** The loader hooks of emfile-on-load.mjs: the one module named fails to load with EMFILE, or is "not found" once the descriptors are gone. */
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let failing;
let notFound;
/** The descriptors taken: held open until the process ends. */
const held = [];

export function initialize(data) {
  failing = data.failing;
  notFound = data.notFound;
}

/** Opens files until the process may open no more (the test runs it under a low `ulimit -n`). */
function takeEveryDescriptor() {
  for (;;) {
    try {
      held.push(openSync(process.execPath, 'r'));
    } catch (error) {
      if (error.code === 'EMFILE') return;
      throw error;
    }
  }
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const file = resolved.url.startsWith('file:') ? fileURLToPath(resolved.url) : undefined;
  if (notFound && file !== undefined && (file.endsWith(notFound) || specifier === notFound)) {
    takeEveryDescriptor();
    const from = context.parentURL ? fileURLToPath(context.parentURL) : 'the command line';
    // A package's subpath (`pkg/sub`) is named as Node names it when it could not read the package's
    // package.json, and so its exports: node_modules/pkg/sub, which is no file.
    const named = specifier === notFound ? `${file.slice(0, file.lastIndexOf('/node_modules/') + '/node_modules/'.length)}${specifier}` : file;
    throw Object.assign(new Error(`Cannot find module '${named}' imported from ${from}`), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return resolved;
}

export async function load(url, context, nextLoad) {
  if (failing && url.startsWith('file:') && fileURLToPath(url).endsWith(failing)) {
    const file = fileURLToPath(url);
    throw Object.assign(new Error(`EMFILE: too many open files, open '${file}'`), { code: 'EMFILE', errno: -24, syscall: 'open', path: file });
  }
  return nextLoad(url, context);
}
