'use strict';
/**
 * Loaded into a voxform process with `node --require` by tests of a signal that falls outside a
 * command's run: the process sends itself the signal VOXFORM_TEST_SIGNAL names, at the point
 * VOXFORM_TEST_SIGNAL_AT names, so the signal always falls there:
 * - `command-load`: as the module that runs commands loads, before it traps signals.
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
