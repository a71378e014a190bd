/**
 * The command line as it runs, from its bundle (scripts/bundle-cli.mjs). A file of voxform's
 * installation that is not there (a package of node_modules, a chunk of the bundle) is the
 * installation's, not "an unexpected problem (this is a bug)": the error names the file and says
 * how to install again, exit 1, no require stack unless VOXFORM_DEBUG=1.
 */
import { spawnSync } from 'node:child_process';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportError, type ErrorOutput } from '../../src/cli/report-error.js';
import { VoxformError } from '../../src/errors.js';
import { repoRoot, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

function reported(error: unknown, debug = false, json = false): { code: number; stdout: string; stderr: string } {
  const printed = { stdout: '', stderr: '' };
  const output = (stream: keyof typeof printed) => ({ write: (text: string) => void (printed[stream] += text), isTTY: false, columns: undefined });
  const out: ErrorOutput = { stdout: output('stdout'), stderr: output('stderr'), debug, json, parallelism: false, stdoutWritten: () => false };
  return { code: reportError(error, out), ...printed };
}

const HINT = '  hint: Install voxform again where it is installed (`npm ci` or `npm install`); in a clone of voxform, `npm ci && npm run build`. If it is still missing, this is a bug of voxform: please report it.\n';

describe('what the error report makes of an error', () => {
  it('a package `require` cannot find: named, with the way to install again, no require stack', () => {
    const error = Object.assign(new Error("Cannot find module 'yaml'\nRequire stack:\n- /p/dist/cli-bundle/cli-commands-fmt.cjs\n- /p/dist/cli-bundle/shell.cjs"), { code: 'MODULE_NOT_FOUND' });
    expect(reported(error)).toEqual({ code: 1, stdout: '', stderr: `error[install_incomplete]: voxform could not load yaml: a file of its installation is missing.\n${HINT}` });
    expect(reported(error, true).stderr).toContain('Require stack');
  });

  it('a package `import` cannot find, when files still open: the same error', () => {
    const missing = path.join(repoRoot, 'node_modules/no-such-package/index.js');
    const error = Object.assign(new Error(`Cannot find package '${missing}' imported from ${path.join(repoRoot, 'dist/cli-bundle/http.cjs')}`), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(reported(error).stderr).toBe(`error[install_incomplete]: voxform could not load ${missing}: a file of its installation is missing.\n${HINT}`);
  });

  it('running out of open files beneath an error a command raised about it is too_many_open_files, whose hint fits', () => {
    const emfile = Object.assign(new Error("EMFILE: too many open files, open '/p/.voxform/state.json.lock'"), { code: 'EMFILE', path: '/p/.voxform/state.json.lock' });
    const lock = new VoxformError('state_lock_failed', 'Could not take the state lock /p/.voxform/state.json.lock: the system refused it (EMFILE).', { hint: 'Check that the folder of the state file exists and is writable.', cause: emfile });
    expect(reported(lock).stderr).toBe('error[too_many_open_files]: voxform could not open /p/.voxform/state.json.lock: this process has as many files open as the system lets it (EMFILE).\n  hint: Raise the limit of open files (`ulimit -n`, e.g. `ulimit -n 4096`) and run the command again.\n');
    // An error already about open files keeps its own words (a connection's; its hint without --parallelism, which this command has not).
    const connection = new VoxformError('api_too_many_open_files', 'GET /agents/a failed: no connection could be opened.', { hint: 'Lower --parallelism.', cause: emfile });
    expect(reported(connection).stderr).toBe('error[api_too_many_open_files]: GET /agents/a failed: no connection could be opened.\n  hint: Raise the limit of open files (`ulimit -n`, e.g. `ulimit -n 4096`) and run the command again.\n');
  });

  it('any other error stays "an unexpected problem", with its code', () => {
    expect(reported(new TypeError('x is not a function'))).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error[internal_error]: voxform hit an unexpected problem (this is a bug; please report it): x is not a function\n  hint: Run again with VOXFORM_DEBUG=1 to see the details.\n',
    });
  });

  it('an unexpected problem under --format json is an error envelope on stdout, as every error is', () => {
    const result = reported(new TypeError('x is not a function'), false, true);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'internal_error', message: 'voxform hit an unexpected problem (this is a bug; please report it): x is not a function', hint: 'Run again with VOXFORM_DEBUG=1 to see the details.' },
    });
    // With VOXFORM_DEBUG=1 the stack trace comes on stderr, stdout keeping the one document.
    const debug = reported(new TypeError('x is not a function'), true, true);
    expect(JSON.parse(debug.stdout).error.code).toBe('internal_error');
    expect(debug.stderr).toMatch(/^TypeError: x is not a function\n\s+at /);
  });
});

describe('the command line without its bundle', () => {
  it('says the build is missing or incomplete, and how to build, when dist/cli-bundle/ lacks a file', async () => {
    const dir = await tempDir({});
    await cp(path.join(repoRoot, 'bin'), path.join(dir, 'bin'), { recursive: true });
    const run = spawnSync(process.execPath, [path.join(dir, 'bin/voxform.cjs'), '--version'], { cwd: dir, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
    expect(run.stderr).toBe('error[install_incomplete]: voxform is not built, or its build is incomplete (dist/cli-bundle/ lacks a file).\n  hint: run `npm run build` in the voxform folder (tsc alone does not make the bundle), then try again.\n');
    expect(run.status).toBe(1);
  });
});
