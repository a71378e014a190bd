/**
 * Loaded into a voxform process with `node --import` by tests of running out of open files while
 * the CLI loads: loading the module whose path ends in VOXFORM_TEST_EMFILE_ON (`dist/cli/program.js`,
 * a command's module) fails as Node's loader fails when `ulimit -n` is reached, whatever the machine.
 */
import { register } from 'node:module';

register('./emfile-on-load-hooks.mjs', import.meta.url, { data: { failing: process.env.VOXFORM_TEST_EMFILE_ON } });
