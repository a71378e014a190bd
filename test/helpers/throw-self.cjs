'use strict';
const Module = require('node:module');
/**
 * Loaded into a voxform process with `node --require` by tests of an error thrown outside what
 * voxform runs (a timer of an operator's pack): the process throws one, holding the value of
 * VOXFORM_API_KEY in its message, at the point VOXFORM_TEST_THROW_AT names, so it always falls there:
 * - `after-main`: once `main` has resolved, as bin/voxform.cjs takes its exit code;
 * - `stdout-full`: once stdout holds output its reader has not taken, after what is running now
 *   (a command that printed all it had to say and ended) has run.
 */
const throwLate = () => setImmediate(() => {
  throw new Error(`a timer fired late with ${process.env.VOXFORM_API_KEY}`);
});

if (process.env.VOXFORM_TEST_THROW_AT === 'after-main') {
  const load = Module._load;
  Module._load = function loadWrappingMain(request, ...rest) {
    const loaded = load.call(this, request, ...rest);
    if (!/cli-bundle[\\/]main\.cjs$/.test(request)) return loaded;
    Module._load = load;
    return { ...loaded, main: (...args) => loaded.main(...args).then((code) => (throwLate(), code)) };
  };
}

if (process.env.VOXFORM_TEST_THROW_AT === 'stdout-full') {
  const write = process.stdout.write;
  process.stdout.write = function writeThenThrow(...args) {
    const taken = write.apply(this, args);
    if (!taken) {
      process.stdout.write = write;
      throwLate();
    }
    return taken;
  };
}
