#!/usr/bin/env node
// The CLI runs from the compiled `dist/`, joined into dist/cli-bundle/ (scripts/bundle-cli.mjs says
// why). In a clone, `npm run build` makes it (the published package ships it built).
let cli;
try {
  cli = await import('../dist/cli-bundle/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist')) throw error;
  process.stderr.write('error: voxform is not built yet (dist/ is missing).\n  hint: run `npm run build` in the voxform folder, then try again.\n');
  process.exit(1);
}
const code = await cli.main(process.argv.slice(2), { ownProcess: true });
// Everything the command does is done and its output written: the process ends now, not once V8
// has taken its heap down piece by piece (src/cli/process-exit.ts).
await cli.exitWhenFlushed(code);
