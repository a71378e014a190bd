#!/usr/bin/env node
'use strict';
// The CLI runs from its bundle, dist/cli-bundle/ (scripts/bundle-cli.mjs: why CommonJS). In a
// clone, `npm run build` makes it (the published package ships it built).
let cli;
try {
  cli = require('../dist/cli-bundle/main.cjs');
} catch (error) {
  if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes('cli-bundle')) throw error;
  process.stderr.write('error: voxform is not built yet (dist/ is missing).\n  hint: run `npm run build` in the voxform folder, then try again.\n');
  process.exit(1);
}
cli.main(process.argv.slice(2)).then((exitCode) => {
  process.exitCode = exitCode;
});
