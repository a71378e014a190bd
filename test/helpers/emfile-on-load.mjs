/**
 * Loaded into a voxform process with `node --import` by tests of running out of open files while
 * the CLI loads, whatever the machine: loading the module whose path ends in VOXFORM_TEST_EMFILE_ON
 * (a command's chunk, a package's file, the package.json voxform reads its version from) fails with EMFILE, as Node's
 * loaders fail when `ulimit -n` is reached reading a module; resolving the one whose path ends in
 * VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES (a package a command imports) takes every file descriptor
 * left, then fails as Node's ES module loader fails when `ulimit -n` is reached reading a
 * package.json: "not found", ERR_MODULE_NOT_FOUND; requiring the package VOXFORM_TEST_REQUIRE_OUT_OF_FILES
 * names (a chunk's `require('diff')`) takes every descriptor left first, and Node's `require` fails
 * as it does then: "Cannot find module", MODULE_NOT_FOUND. (Loaded when nothing else is loading, so no
 * other load fails first.) The CLI's own chunks are CommonJS, read by `require`; the packages it
 * imports (`import()`), ES modules or not, go through the ES module loader and its hooks.
 */
import fs from 'node:fs';
import Module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';

const failing = process.env.VOXFORM_TEST_EMFILE_ON;
if (failing) {
  // CommonJS reads each file it loads (.js, .cjs) with fs.readFileSync, as voxform reads its package.json.
  const readFileSync = fs.readFileSync;
  fs.readFileSync = function (file, ...rest) {
    const named = file instanceof URL ? fileURLToPath(file) : String(file);
    if (named.endsWith(failing)) throw Object.assign(new Error(`EMFILE: too many open files, open '${named}'`), { code: 'EMFILE', errno: -24, syscall: 'open', path: named });
    return readFileSync.call(this, file, ...rest);
  };
}

const requiredOutOfFiles = process.env.VOXFORM_TEST_REQUIRE_OUT_OF_FILES;
if (requiredOutOfFiles) {
  // A package a chunk requires by its bare name: every descriptor is taken as it loads, and Node's
  // own `require` then answers "Cannot find module 'NAME'" (MODULE_NOT_FOUND), not EMFILE.
  const load = Module._load;
  const held = [];
  Module._load = function loadOutOfFiles(request, ...rest) {
    if (request === requiredOutOfFiles) {
      Module._load = load;
      for (;;) {
        try {
          held.push(fs.openSync(process.execPath, 'r'));
        } catch (error) {
          if (error.code === 'EMFILE') break;
          throw error;
        }
      }
    }
    return load.call(this, request, ...rest);
  };
}

register('./emfile-on-load-hooks.mjs', import.meta.url, {
  data: { failing, notFound: process.env.VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES },
});
