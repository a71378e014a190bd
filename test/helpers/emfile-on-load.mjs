/**
 * Loaded into a voxform process with `node --import` by tests of running out of open files while
 * the CLI loads, whatever the machine: loading the module whose path ends in VOXFORM_TEST_EMFILE_ON
 * (a command's chunk, a package's file) fails with EMFILE, as Node's
 * loaders fail when `ulimit -n` is reached reading a module; resolving the one whose path ends in
 * VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES (a package a command imports) takes every file descriptor
 * left, then fails as Node's ES module loader fails when `ulimit -n` is reached reading a
 * package.json: "not found", ERR_MODULE_NOT_FOUND. (Loaded when nothing else is loading, so no
 * other load fails first.) The CLI's own chunks are CommonJS, read by `require`; the packages it
 * imports (`import()`), ES modules or not, go through the ES module loader and its hooks.
 */
import Module, { register } from 'node:module';

const failing = process.env.VOXFORM_TEST_EMFILE_ON;
if (failing) {
  // Every CommonJS file (.js, .cjs) is read by the '.js' handler.
  const loadCommonJs = Module._extensions['.js'];
  Module._extensions['.js'] = function (module, filename) {
    if (filename.endsWith(failing)) throw Object.assign(new Error(`EMFILE: too many open files, open '${filename}'`), { code: 'EMFILE', errno: -24, syscall: 'open', path: filename });
    return loadCommonJs.call(this, module, filename);
  };
}

register('./emfile-on-load-hooks.mjs', import.meta.url, {
  data: { failing, notFound: process.env.VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES },
});
