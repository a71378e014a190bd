#!/usr/bin/env node
'use strict';
// The CLI runs from its bundle, dist/cli-bundle/ (scripts/bundle-cli.mjs: why CommonJS). In a
// clone, `npm run build` makes it (the published package ships it built).
let cli;
try {
  cli = require('../dist/cli-bundle/main.cjs');
} catch (error) {
  // The shell loads no package (commander is in it): a module not found here is a file of the bundle.
  if (error?.code !== 'MODULE_NOT_FOUND') throw error;
  process.stderr.write('error[install_incomplete]: voxform is not built, or its build is incomplete (dist/cli-bundle/ lacks a file).\n  hint: run `npm run build` in the voxform folder (tsc alone does not make the bundle), then try again.\n');
  process.exit(1);
}
cli.main(process.argv.slice(2), { ownsProcess: true }).then((exitCode) => {
  process.exitCode = exitCode;
});
