/**
 * The process out of open files (`ulimit -n`), wherever it happens: while Node loads voxform's own
 * modules (at start, or a command's, which run-command.ts loads lazily), or when a command opens a file.
 * Nothing here is a bug of voxform, so the error says what the limit is and how to raise it; nor is
 * a module that is not there at all, which is the installation's (`missingModuleError`).
 * (The shell itself is read as bin/voxform.cjs is, one file closed before the next is opened: a
 * limit that lets Node read bin/voxform.cjs lets it read the shell.)
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openFileLimitHint, VoxformError } from '../errors.js';
import { printableKeepingLines } from '../util/printable.js';

/** How many causes deep an error is searched for the code (a cause chain is never that long). */
const MAX_CAUSES = 8;

type ExhaustedCode = 'EMFILE' | 'ENFILE';

/** `EMFILE` (this process's limit) or `ENFILE` (the system's) when `error`, or an error that caused it, is one. */
function exhaustedCode(error: unknown): { code: ExhaustedCode; path: string | undefined } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && current instanceof Error; depth++) {
    const { code, path } = current as NodeJS.ErrnoException;
    if (code === 'EMFILE' || code === 'ENFILE') return { code, path: typeof path === 'string' ? path : undefined };
    current = current.cause;
  }
  return moduleNotReadable(error);
}

/** Node's words for a module it could not load: `Cannot find package '/p/node_modules/diff/index.js' imported from …`, `Cannot find module 'yaml'`. */
const NOT_FOUND = /^Cannot find (package|module) '([^']+)'/;
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/** The folder of the package a path lies in (`/p/node_modules/@scope/name`), or the path itself outside node_modules. */
function packageFolder(file: string): string {
  const at = file.lastIndexOf(NODE_MODULES);
  if (at < 0) return file;
  const inside = file.slice(at + NODE_MODULES.length).split(path.sep);
  const name = inside[0]?.startsWith('@') ? inside.slice(0, 2) : inside.slice(0, 1);
  return path.join(file.slice(0, at), 'node_modules', ...name);
}

/**
 * How many files a check may still open and take the process for out of them: the loads that ran
 * beside the one that failed close theirs before its error is handled, so a check of one file can
 * find a descriptor they freed.
 */
const FREED_MEANWHILE = 16;

/** EMFILE or ENFILE when this process cannot open FREED_MEANWHILE more files now, by trying. */
function openingFails(): ExhaustedCode | undefined {
  const opened: number[] = [];
  try {
    while (opened.length <= FREED_MEANWHILE) opened.push(openSync(process.execPath, 'r'));
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EMFILE' || code === 'ENFILE' ? code : undefined;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

/**
 * Node's loaders report a module they could not read for want of a file descriptor as not found,
 * without the EMFILE: the ES module loader by its path (ERR_MODULE_NOT_FOUND), `require` by the name
 * a chunk asked for (MODULE_NOT_FOUND, `Cannot find module 'diff'`). A module that is there all the
 * same (the file, or its package's folder: `existsSync` needs no descriptor) while opening a file
 * fails with EMFILE or ENFILE is that. A module missing indeed, or one found while files still open, is not.
 */
function moduleNotReadable(error: unknown): { code: ExhaustedCode; path: string | undefined } | undefined {
  const errorCode = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!(error instanceof Error) || (errorCode !== 'ERR_MODULE_NOT_FOUND' && errorCode !== 'MODULE_NOT_FOUND')) return undefined;
  const [, kind, named] = NOT_FOUND.exec(error.message) ?? [];
  if (named === undefined) return undefined;
  // A package's subpath (`gpt-tokenizer/encoding/o200k_base`) is no file: its package's folder stands for it.
  const module = path.isAbsolute(named) ? (kind === 'package' || !existsSync(named) ? packageFolder(named) : named) : installedPackage(named);
  const code = module !== undefined && existsSync(module) ? openingFails() : undefined;
  return code === undefined ? undefined : { code, path: module };
}

/** voxform's own folder (this module sits two folders down, in src/ as in the bundle). */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The folder of the package a bare name (`diff`, `@scope/name/sub`) names, where `require` would
 * find it from voxform's folder: the first node_modules above it that holds it; undefined for a
 * relative name or one no node_modules holds.
 */
function installedPackage(name: string): string | undefined {
  const parts = name.split('/');
  if (name.startsWith('.') || parts[0] === '') return undefined;
  const packageName = parts.slice(0, name.startsWith('@') ? 2 : 1);
  for (let dir = PACKAGE_ROOT; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', ...packageName);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The error to report for `error` when the process or the system ran out of open files; undefined
 * for any other. `parallelism`: whether the command has --parallelism, which the hint then names.
 */
export function tooManyOpenFilesError(error: unknown, options: { parallelism: boolean }): VoxformError | undefined {
  const found = exhaustedCode(error);
  if (!found) return undefined;
  const opening = found.path === undefined ? 'a file it needs' : found.path;
  if (found.code === 'ENFILE') {
    return new VoxformError('too_many_open_files', `voxform could not open ${opening}: the system has as many files open as it allows (ENFILE).`, {
      hint: 'Close programs that hold many files open, or raise the system-wide limit of open files; then run the command again.',
      cause: error,
    });
  }
  return new VoxformError('too_many_open_files', `voxform could not open ${opening}: this process has as many files open as the system lets it (EMFILE).`, {
    hint: openFileLimitHint(options.parallelism),
    cause: error,
  });
}

/**
 * A module voxform loads that is not there (after tooManyOpenFilesError, which takes one that is
 * there but could not be opened): a package of node_modules, or a chunk of the build, missing.
 * `--version` and `--help` load neither, so the first command to need one meets it.
 */
export function missingModuleError(error: unknown): VoxformError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!(error instanceof Error) || (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND')) return undefined;
  const named = NOT_FOUND.exec(error.message)?.[2];
  if (named === undefined) return undefined;
  return new VoxformError('install_incomplete', `voxform could not load ${printableKeepingLines(named)}: a file of its installation is missing.`, {
    hint: 'Install voxform again where it is installed (`npm ci` or `npm install`); in a clone of voxform, `npm ci && npm run build`. If it is still missing, this is a bug of voxform: please report it.',
    cause: error,
  });
}
