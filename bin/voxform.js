#!/usr/bin/env node
// The CLI runs from the compiled `dist/`. In a clone, `npm run build` makes it (the published
// package ships it built).
let cli;
let openFiles;
try {
  // First, while few files are open: it reports the process running out of them while the CLI loads.
  openFiles = await import('../dist/cli/open-files.js');
  cli = await import('../dist/cli/main.js');
} catch (error) {
  const exitCode = openFiles?.reportLoadFailure(error, process.argv.slice(2), process.env);
  if (exitCode !== undefined) process.exit(exitCode);
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist')) throw error;
  process.stderr.write('error: voxform is not built yet (dist/ is missing).\n  hint: run `npm run build` in the voxform folder, then try again.\n');
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
