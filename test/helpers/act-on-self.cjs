'use strict';
/**
 * Loaded into a voxform process with `node --require` by tests of what falls outside a command's
 * run: the process does to itself what VOXFORM_TEST_ACT names, at the point VOXFORM_TEST_AT names,
 * so it always falls there. What: a signal's name (`SIGINT`, `SIGTERM`), or `throw`: an error thrown
 * from a timer, outside anything voxform awaits, holding the value of VOXFORM_API_KEY in its message.
 * Where:
 * - `command-load`: as the module that runs commands loads, before it traps signals;
 * - `stdout-full`: once stdout holds output its reader has not taken, after what is running now
 *   (a command that printed all it had to say and ended) has run;
 * - `after-main`: once `main` has resolved, as bin/voxform.cjs takes its exit code.
 */
const Module = require('node:module');

const act = process.env.VOXFORM_TEST_ACT;
const actNow = () => {
  if (act !== 'throw') return process.kill(process.pid, act);
  setImmediate(() => {
    throw new Error(`a timer fired late with ${process.env.VOXFORM_API_KEY}`);
  });
};

/** Calls `then(loaded)` as the module whose request matches `pattern` loads; it gives what the loader returns. */
function onLoad(pattern, then) {
  const load = Module._load;
  Module._load = function loadAndAct(request, ...rest) {
    if (!pattern.test(request)) return load.call(this, request, ...rest);
    Module._load = load;
    return then(() => load.call(this, request, ...rest));
  };
}

if (process.env.VOXFORM_TEST_AT === 'command-load') {
  onLoad(/run-command/, (load) => (actNow(), load()));
}

if (process.env.VOXFORM_TEST_AT === 'after-main') {
  onLoad(/cli-bundle[\\/]main\.cjs$/, (load) => {
    const loaded = load();
    return { ...loaded, main: (...args) => loaded.main(...args).then((code) => (actNow(), code)) };
  });
}

if (process.env.VOXFORM_TEST_AT === 'stdout-full') {
  const write = process.stdout.write;
  process.stdout.write = function writeThenAct(...args) {
    const taken = write.apply(this, args);
    if (!taken) {
      process.stdout.write = write;
      setImmediate(actNow);
    }
    return taken;
  };
}
