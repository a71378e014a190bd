import { chmod, lstat, readdir, readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { makeTree, repoRoot, runCli, runCliInProcess, spawnCli } from '../helpers/cli.js';

const MESSY = 'agents:\n  a:\n    name: A   # shown in the dashboard\n    id: x\nversion: 1\n';
const TIDY = 'version: 1\n\nagents:\n  a:\n    id: x\n    name: A # shown in the dashboard\n';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((c) => c()));
  cleanups = [];
});
async function tree(files: Record<string, string>): Promise<string> {
  const made = await makeTree(files);
  cleanups.push(made.cleanup);
  return made.dir;
}
const read = (dir: string, file: string) => readFile(path.join(dir, file), 'utf8');

describe('voxform fmt', () => {
  test('--check exits 1 listing the files that would change, and writes nothing', async () => {
    const dir = await tree({ 'voxform.yaml': MESSY });
    const before = await stat(path.join(dir, 'voxform.yaml'));
    const result = await runCliInProcess(['fmt', '--check'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('voxform.yaml\n');
    expect(result.stderr).toContain('1 file not in the canonical layout; run `voxform fmt` to fix it.');
    expect(await read(dir, 'voxform.yaml')).toBe(MESSY);
    expect((await stat(path.join(dir, 'voxform.yaml'))).mtimeMs).toBe(before.mtimeMs);
  });

  test('rewrites the file, lists it, and then --check passes', async () => {
    const dir = await tree({ 'voxform.yaml': MESSY });
    const result = await runCliInProcess(['fmt'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('voxform.yaml\n');
    expect(await read(dir, 'voxform.yaml')).toBe(TIDY);
    const check = await runCliInProcess(['fmt', '--check'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toBe('');
    expect(check.stderr).toBe('1 file already formatted.\n');
  });

  test('a file with CRLF line endings (a Windows checkout): --check passes when it is formatted; fmt keeps CRLF', async () => {
    const crlf = (text: string) => text.replaceAll('\n', '\r\n');
    const dir = await tree({ 'voxform.yaml': crlf(TIDY), 'messy/voxform.yaml': crlf(MESSY) });
    const check = await runCliInProcess(['fmt', '--check', 'voxform.yaml'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toBe('');
    const result = await runCliInProcess(['fmt', 'messy/voxform.yaml'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(await read(dir, 'messy/voxform.yaml')).toBe(crlf(TIDY));
  });

  test('a file that starts with a UTF-8 byte-order mark keeps it when fmt rewrites it, as it does when fmt leaves it alone', async () => {
    const BOM = '\ufeff';
    const dir = await tree({ 'voxform.yaml': BOM + TIDY, 'messy/voxform.yaml': BOM + MESSY });
    const result = await runCliInProcess(['fmt', 'voxform.yaml', 'messy/voxform.yaml'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('messy/voxform.yaml\n');
    expect(await readFile(path.join(dir, 'messy/voxform.yaml'))).toEqual(Buffer.from(BOM + TIDY, 'utf8'));
    expect(await readFile(path.join(dir, 'voxform.yaml'))).toEqual(Buffer.from(BOM + TIDY, 'utf8'));
    const check = await runCliInProcess(['fmt', '--check', 'messy/voxform.yaml'], { cwd: dir });
    expect(check.code).toBe(0);
  });

  test('right after fmt, --check passes and another fmt changes nothing (a comment closing a block, a last `---`)', async () => {
    const source = 'version: 1\n\nagents:\n  a:\n    id: -OKspareAgent0000001\n  # b:\n  #   id: -OKspareAgent0000002\n\nphones:\n  "+15551230001": { agent: a }\n---\n';
    const dir = await tree({ 'voxform.yaml': source });
    expect((await runCliInProcess(['fmt'], { cwd: dir })).code).toBe(0);
    const formatted = await read(dir, 'voxform.yaml');
    const check = await runCliInProcess(['fmt', '--check'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toBe('');
    const again = await runCliInProcess(['fmt'], { cwd: dir });
    expect(again.stdout).toBe('');
    expect(await read(dir, 'voxform.yaml')).toBe(formatted);
    expect(formatted).toBe(source);
  });

  test('a manifest that validates still validates after fmt: an unquoted phone number key keeps its +', async () => {
    const source = 'phones:\n  +15551230001: { agent: a }\n\nagents:\n  a:\n    config: { prompt: hi }\n    id: -OKspareAgent0000001\n';
    const dir = await tree({ 'voxform.yaml': source });
    expect((await runCliInProcess(['validate'], { cwd: dir })).code).toBe(0);
    expect((await runCliInProcess(['fmt'], { cwd: dir })).code).toBe(0);
    expect(await read(dir, 'voxform.yaml')).toBe('agents:\n  a:\n    id: -OKspareAgent0000001\n    config: { prompt: hi }\n\nphones:\n  +15551230001: { agent: a }\n');
    const validate = await runCliInProcess(['validate'], { cwd: dir });
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
  });

  test('falls back to agents.yaml, like the loader', async () => {
    const dir = await tree({ 'agents.yaml': MESSY });
    const result = await runCliInProcess(['fmt'], { cwd: dir });
    expect(result.stdout).toBe('agents.yaml\n');
    expect(await read(dir, 'agents.yaml')).toBe(TIDY);
  });

  test('a folder: every manifest under it, skipping YAML that is not a manifest', async () => {
    const compose = 'services:\n    web: { image: nginx }\n';
    const dir = await tree({
      'manifests/a.yaml': MESSY,
      'manifests/team/b.yml': MESSY,
      'manifests/ok.yaml': TIDY,
      'manifests/docker-compose.yaml': compose,
      'manifests/.hidden/c.yaml': MESSY,
      'manifests/node_modules/d.yaml': MESSY,
    });
    const result = await runCliInProcess(['fmt', 'manifests'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('manifests/a.yaml\nmanifests/team/b.yml\n');
    expect(await read(dir, 'manifests/team/b.yml')).toBe(TIDY);
    expect(await read(dir, 'manifests/docker-compose.yaml')).toBe(compose);
    expect(await read(dir, 'manifests/.hidden/c.yaml')).toBe(MESSY);
  });

  test('a syntax error: listed as validate lists it, exit 1, that file untouched, the others still formatted', async () => {
    const broken = 'version: 1\nagents:\n  a: [oops\n';
    const dir = await tree({ 'broken.yaml': broken, 'good.yaml': MESSY });
    const result = await runCliInProcess(['fmt', 'broken.yaml', 'good.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^broken\.yaml:\d+:\d+ {2}error\[yaml_syntax\]: YAML syntax error: /m);
    expect(result.stderr).toContain('error[yaml_syntax]: broken.yaml has a YAML error (listed above), so it was left as it is.\n');
    expect(result.stderr).not.toContain('    at ');
    expect(result.stdout).toBe('good.yaml\n');
    expect(await read(dir, 'broken.yaml')).toBe(broken);
    expect(await read(dir, 'good.yaml')).toBe(TIDY);
  });

  test('a quote never closed: reported at the quote, not at the end of the file', async () => {
    const dir = await tree({ 'voxform.yaml': 'version: 1\nagents:\n  a:\n    first_message: "Hello\n    id: x\n' });
    const result = await runCliInProcess(['fmt', '--check'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('voxform.yaml:4:20  error[yaml_syntax]: YAML syntax error: the quote " opened at line 4, column 20 is never closed, so what follows it is read as its text; add the closing " where the text ends\n');
  });

  test.each([
    ['a tab in indentation', 'version: 1\nagents:\n  a:\n    id: x\n    config:\n      llm:\n\tmodel: m\n'],
    ['a line indented wrongly', 'version: 1\nagents:\n  a:\n    id: x\n     name: A\n'],
    ['a key written twice', 'version: 1\nagents:\n  a:\n    id: x\n    id: y\n'],
    ['a merge key given no mapping', 'version: 1\nagents:\n  a:\n    id: x\n    config:\n      <<: 1\n'],
    ['an unclosed flow list', 'version: 1\nagents:\n  a: [oops\n'],
  ])('%s: fmt lists the problems exactly as validate does (codes, messages, frames)', async (_name, text) => {
    const dir = await tree({ 'voxform.yaml': text });
    const validate = await runCliInProcess(['validate'], { cwd: dir });
    const fmt = await runCliInProcess(['fmt'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(fmt.code).toBe(1);
    // validate ends with its summary line, fmt with its error: everything above is the same listing.
    const listing = validate.stderr.slice(0, validate.stderr.lastIndexOf('\n', validate.stderr.length - 2) + 1);
    expect(listing).toMatch(/^voxform\.yaml:\d+:\d+ {2}error\[/);
    expect(fmt.stderr.slice(0, listing.length)).toBe(listing);
    expect(fmt.stderr.slice(listing.length)).toMatch(/^error\[yaml_syntax\]: voxform\.yaml has (a YAML error|\d+ YAML errors) \(listed above\), so it was left as it is\.\n {2}hint: /);
    expect(await read(dir, 'voxform.yaml')).toBe(text);
  });

  test('a file that cannot be written: its own clear error, exit 1, the other files still formatted', async () => {
    const dir = await tree({ 'ro/voxform.yaml': MESSY, 'w/b.yaml': MESSY });
    await chmod(path.join(dir, 'ro'), 0o555);
    const result = await runCli(['fmt', 'ro/voxform.yaml', 'w/b.yaml'], { cwd: dir, unprivileged: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error[file_unwritable]: Cannot rewrite ro/voxform.yaml: voxform may not write there; it was left as it was.\n' +
        '  hint: fmt replaces a file through a new file beside it: make the file and its folder writable for this user.\n',
    );
    expect(result.stdout).toBe('w/b.yaml\n');
    expect(await read(dir, 'w/b.yaml')).toBe(TIDY);
    expect(await read(dir, 'ro/voxform.yaml')).toBe(MESSY);
    expect(await readdir(path.join(dir, 'ro'))).toEqual(['voxform.yaml']);
  });

  test('no manifest here: a clear error', async () => {
    const result = await runCliInProcess(['fmt'], { cwd: await tree({ 'notes.txt': 'x' }) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[manifest_not_found]: No manifest found: neither voxform.yaml nor agents.yaml exists in');
    expect(result.stderr).toContain('hint: Name a manifest: `voxform fmt PATH` (a file or a folder), or start one with `voxform init`.');
  });

  test('a multi-document manifest: every document formatted, the separators kept', async () => {
    const dir = await tree({ 'voxform.yaml': `${MESSY}---\n${MESSY.replace('a:', 'b:')}` });
    const result = await runCliInProcess(['fmt'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('voxform.yaml\n');
    expect(await read(dir, 'voxform.yaml')).toBe(`${TIDY}---\n${TIDY.replace('a:', 'b:')}`);
  });

  test('a folder: a multi-document manifest is recognised as one', async () => {
    const dir = await tree({ 'manifests/two.yaml': `${MESSY}---\n${MESSY.replace('a:', 'b:')}` });
    const result = await runCliInProcess(['fmt', 'manifests'], { cwd: dir });
    expect(result.stdout).toBe('manifests/two.yaml\n');
  });

  test('a folder: a manifest holding an empty document (a last `---`, a `---` and a comment) is checked like the others', async () => {
    const dir = await tree({
      'manifests/agents.yaml': `${MESSY}---\n`,
      'manifests/commented.yaml': `${MESSY}---\n# more agents later\n`,
      'manifests/booking.yaml': MESSY.replace('a:', 'b:'),
      'manifests/only-separators.yaml': '---\n---\n',
    });
    const result = await runCliInProcess(['fmt', '--check', 'manifests'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('manifests/agents.yaml\nmanifests/booking.yaml\nmanifests/commented.yaml\n');
  });

  test("the loader's guards: a symbolic link leading out of the project is refused, never read or written", async () => {
    const outside = await tree({ 'victim.yaml': MESSY });
    const dir = await tree({ 'manifests/ok.yaml': TIDY });
    await symlink(path.join(outside, 'victim.yaml'), path.join(dir, 'manifests/link.yaml'));
    const result = await runCliInProcess(['fmt', 'manifests/link.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[file_unreadable]: Cannot read manifests/link.yaml: it is a symbolic link leading outside the project.');
    expect(await read(outside, 'victim.yaml')).toBe(MESSY);
  });

  test('a manifest of the project read through a folder linked out of it: not rewritten there (nothing written outside)', async () => {
    const dir = await tree({ '.git/HEAD': 'ref: refs/heads/main\n', 'real.yaml': MESSY });
    const outside = await tree({});
    await symlink(path.join(dir, 'real.yaml'), path.join(outside, 'm.yaml'));
    await symlink(outside, path.join(dir, 'manifests'));
    const result = await runCliInProcess(['fmt', 'manifests/m.yaml'], { cwd: dir });
    expect(result.stderr).toContain(`error[file_unwritable]: Cannot rewrite manifests/m.yaml: manifests is a symbolic link leading outside the project (${dir}); it was left as it was.`);
    expect(result.code).toBe(1);
    expect((await lstat(path.join(outside, 'm.yaml'))).isSymbolicLink()).toBe(true);
    expect(await read(dir, 'real.yaml')).toBe(MESSY);
  });

  test('a path that does not exist: a clear error', async () => {
    const result = await runCliInProcess(['fmt', 'nope.yaml'], { cwd: await tree({}) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[manifest_not_found]: nope.yaml does not exist.\n  hint: Name a manifest: `voxform fmt PATH`, or start one with `voxform init`.');
    const empty = await runCliInProcess(['fmt', 'empty'], { cwd: await tree({ 'empty/notes.txt': 'x' }) });
    expect(empty.stderr).toContain('error[manifest_not_found]: The folder empty holds no .yaml or .yml files.\n  hint: Name a manifest file or a folder of manifests: `voxform fmt PATH`.');
  });
});

describe('voxform fmt stopped midway', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)('%s while a manifest is being written leaves no temporary file beside it, and the manifest as it was', async (signal) => {
    const dir = await tree({ 'm/a.yaml': MESSY });
    // Every write of a temporary file announces itself and never completes: the write ends only by the signal.
    const { child, output, exited, stderrShows } = spawnCli(dir, {}, ['fmt', 'm'], { preload: path.join(repoRoot, 'test/helpers/stall-temp-writes.mjs') });
    await stderrShows('stalled writing');
    expect(output.stderr).toMatch(/stalled writing .*\/m\/\.a\.yaml\.\d+\.[0-9a-f]+\.tmp\n/);
    child.kill(signal);
    expect(await exited, output.stderr).toBe(130);
    expect(await readdir(path.join(dir, 'm'))).toEqual(['a.yaml']);
    expect(await read(dir, 'm/a.yaml')).toBe(MESSY);
  });

  test('SIGINT after some files were rewritten: their paths are on stdout, each printed as it was replaced', async () => {
    const dir = await tree({ 'm/a.yaml': MESSY, 'm/b.yaml': MESSY, 'm/c.yaml': MESSY });
    // a.yaml and b.yaml are rewritten; the write of c.yaml's new text never completes.
    const env = { STALL_TEMP_WRITES_AFTER: '2' };
    const { child, output, exited, stderrShows } = spawnCli(dir, env, ['fmt', 'm'], { preload: path.join(repoRoot, 'test/helpers/stall-temp-writes.mjs') });
    await stderrShows('stalled writing');
    child.kill('SIGINT');
    expect(await exited, output.stderr).toBe(130);
    expect(output.stdout).toBe(`${path.join('m', 'a.yaml')}\n${path.join('m', 'b.yaml')}\n`);
    expect(await read(dir, 'm/a.yaml')).toBe(TIDY);
    expect(await read(dir, 'm/b.yaml')).toBe(TIDY);
    expect(await read(dir, 'm/c.yaml')).toBe(MESSY);
    expect(output.stderr).toContain('error[interrupted]: voxform stopped at your request.');
  });
});
