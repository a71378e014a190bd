// The command line runs from a bundle of tsc's output (dist/cli/ → dist/cli-bundle/), made after tsc
// by `npm run build`. Why: every command first loads the shell (src/cli/main.ts and what it imports:
// the parser, its help, the output that redacts, the error report), and Node loads the shell as one
// CommonJS file much faster than the many ES modules it is made of (bench/README.md, "Tunings kept"). What a
// command needs beyond the shell stays in chunks of its own, loaded when the command runs, as
// main.ts loads them.
//
// - CommonJS, with bin/voxform.cjs as the entry: an ES module entry starts Node's ES module loader,
//   which costs about as much as loading the shell.
// - Packages stay in node_modules, loaded as npm installed them, except commander: the parser is
//   part of the shell.
// - The library (src/index.ts) is not bundled: it is dist/ as tsc wrote it.
// - The chunks sit two folders deep (dist/cli-bundle/), as the modules that find the package's own
//   files by their location do (src/ROOM/FILE.ts: `../../schemas/`, `../../docs/`).
import { rolldown } from 'rolldown';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const outDir = path.join(dist, 'cli-bundle');
const shellEntry = path.join(dist, 'cli/main.js');

/** A package, by its bare specifier (`undici`, `node:fs`, `@scope/name/sub`); commander is bundled. */
const isExternalPackage = (id) => !id.startsWith('.') && !path.isAbsolute(id) && id !== 'commander' && !id.startsWith('commander/');

/**
 * A command's chunk by the module it loads (`cli-commands-validate.cjs` for dist/cli/commands/
 * validate.js), so that an error naming a chunk says which command's it is; a chunk of shared
 * modules as rolldown names it, after one of them (in a chunk of several, a comment names each
 * module where its code starts).
 */
function chunkFileName(chunk) {
  if (!chunk.facadeModuleId?.startsWith(dist + path.sep)) return '[name].cjs';
  return `${path.relative(dist, chunk.facadeModuleId).replace(/\.js$/, '').split(path.sep).join('-')}.cjs`;
}

await rm(outDir, { recursive: true, force: true });
const bundle = await rolldown({ input: { main: shellEntry }, platform: 'node', external: isExternalPackage, logLevel: 'warn' });
try {
  await bundle.write({
    dir: outDir,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: chunkFileName,
    // The shell is one chunk, every module main.ts imports statically (a group takes in what its
    // modules import); each command, in its chunks, comes with its first run.
    codeSplitting: { groups: [{ name: 'shell', test: (id) => id === shellEntry }] },
  });
} finally {
  await bundle.close();
}
