/**
 * Loaded into a voxform process with `node --import` by the test of how Node's warnings are printed:
 * once the CLI has started (the next turn of the event loop), emits a deprecation and a library's
 * plain warning, as Node and a dependency would.
 */
setImmediate(() => {
  process.emitWarning('an old API was called', 'DeprecationWarning');
  process.emitWarning('a library has something to say');
});
