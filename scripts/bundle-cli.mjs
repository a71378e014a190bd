// The last step of `npm run build`: the command line's compiled modules (dist/, from tsc) joined
// into a few files in dist/cli-bundle/, which bin/voxform.js runs. Every command pays for loading
// its modules before it does anything: about ninety files for `plan`, each resolved, read, linked
// and instantiated on its own. Joined, `validate` of the example project went from 0.278 s to
// 0.239 s (medians of 15, paired) and `plan` spends about 50 ms less before its first request
// (docs/plan.md, "Start-up"). The library (dist/index.js) stays as tsc wrote it, one module per
// source file, for its users' own bundlers.
//
// What the bundle keeps as it was:
// - packages (node_modules) and Node's own modules are imported, not copied in;
// - each dynamic import stays a chunk of its own, loaded only by the command that needs it
//   (test/cli/start-up-imports.test.ts checks the source graph);
// - dist/cli-bundle/ sits where dist/cli/ does, so the paths the code builds from its own
//   location (`../../schemas/`, `../../package.json`, `../../templates/`) still land at the
//   package's root;
// - the wire thread: src/api/wire-thread-link.ts starts `./wire-thread.js` next to itself, so it
//   is an entry of its own, written beside the chunk that starts it (checked below).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist/cli-bundle');
const THREAD_ENTRY = 'wire-thread';

/** Anything that is not a path of ours: a package or one of Node's modules. */
const isExternal = (id) => !id.startsWith('.') && !path.isAbsolute(id);

await rm(outDir, { recursive: true, force: true });
await build({
  input: { main: path.join(root, 'dist/cli/main.js'), [THREAD_ENTRY]: path.join(root, 'dist/api/wire-thread.js') },
  platform: 'node',
  external: isExternal,
  logLevel: 'warn',
  output: { dir: outDir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});

// The chunk that starts the thread must find it beside itself, or the client would quietly run
// its requests on the main thread.
const starter = readdirSync(outDir).find((file) => readFileSync(path.join(outDir, file), 'utf8').includes(`new URL("./${THREAD_ENTRY}.js", import.meta.url)`));
if (!starter || !existsSync(path.join(outDir, `${THREAD_ENTRY}.js`))) {
  console.error(`bundle-cli: the wire thread's starter (${starter ?? 'not found'}) and ${THREAD_ENTRY}.js are not side by side in ${path.relative(root, outDir)}`);
  process.exit(1);
}
