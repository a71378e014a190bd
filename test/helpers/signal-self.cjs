'use strict';
/**
 * Loaded into a voxform process with `node --require` by tests of a signal that falls outside a
 * command's run: the process sends itself the signal VOXFORM_TEST_SIGNAL names, at the point
 * VOXFORM_TEST_SIGNAL_AT names, so the signal always falls there:
 * - `command-load`: as the module that runs commands loads, before it traps signals;
 * - `stdout-full`: once stdout holds output its reader has not taken, after what is running now
 *   (a command that printed all it had to say and ended) has run.
 */
const Module = require('node:module');

const signal = process.env.VOXFORM_TEST_SIGNAL;
const sendSignal = () => process.kill(process.pid, signal);

if (process.env.VOXFORM_TEST_SIGNAL_AT === 'command-load') {
  const load = Module._load;
  Module._load = function loadThenSignal(request, ...rest) {
    if (/run-command/.test(request)) {
      Module._load = load;
      sendSignal();
    }
    return load.call(this, request, ...rest);
  };
}

if (process.env.VOXFORM_TEST_SIGNAL_AT === 'stdout-full') {
  const write = process.stdout.write;
  process.stdout.write = function writeThenSignal(...args) {
    const taken = write.apply(this, args);
    if (!taken) {
      process.stdout.write = write;
      setImmediate(sendSignal);
    }
    return taken;
  };
}
