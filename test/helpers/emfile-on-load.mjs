/**
 * Loaded into a voxform process with `node --import` by tests of running out of open files while
 * the CLI loads, whatever the machine: loading the module whose path ends in VOXFORM_TEST_EMFILE_ON
 * (`dist/cli/program.js`, a command's module) fails with EMFILE, as Node's loader fails when
 * `ulimit -n` is reached reading a module; resolving the one whose path ends in
 * VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES takes every file descriptor left, then fails as Node's loader
 * fails when `ulimit -n` is reached reading a package.json: "not found", ERR_MODULE_NOT_FOUND. (A
 * command's module, which main.ts loads when nothing else is loading, so no other load fails first.)
 */
import { register } from 'node:module';

register('./emfile-on-load-hooks.mjs', import.meta.url, {
  data: { failing: process.env.VOXFORM_TEST_EMFILE_ON, notFound: process.env.VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES },
});
