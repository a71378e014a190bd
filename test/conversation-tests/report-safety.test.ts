import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** The manifest of the audit: one agent whose greeting carries a secret read through `${env:…}`. */
function manifest(firstMessage: string): string {
  return ['version: 1', 'agents:', '  desk:', '    id: -OKdqbqetEcM4ak369ym', '    config:', '      prompt: "v1"', `      first_message: ${JSON.stringify(firstMessage)}`, ''].join('\n');
}

const SECRET = 'S3CRET-greeting-token-42';
const SECRET_ENV = { VOXFORM_ENV_ALLOW: 'GREET_SECRET', GREET_SECRET: SECRET };

describe('test reports never hold part of a secret', () => {
  // Eight runs of the CLI: room for them on a busy machine.
  it('redacts a reply before shortening it, in every format and in --out files', { timeout: 120_000 }, async () => {
    const dir = await tempDir({
      'voxform.yaml': manifest('Thanks for calling Acme Dental, your access code is ${env:GREET_SECRET}'),
      'tests/g.test.yaml': 'agent: desk\ntests:\n  - name: greeting\n    turns:\n      - expect: [{ equals: Hello }]\n',
    });
    // A cut-off secret is a leak too: its first characters, as a shortened reply would end.
    const pieces = [SECRET, SECRET.slice(0, 4)];
    // --with-secrets: the agent then holds the real value and says it (without it, voxform withholds
    // the value from the config it sends, and there would be nothing to scrub).
    for (const format of ['text', 'json', 'junit', 'markdown']) {
      const result = await runCliInProcess(['test', '--local', '--with-secrets', '--format', format], { cwd: dir, env: SECRET_ENV });
      expect(result.code, result.stderr).toBe(1);
      for (const piece of pieces) expect(`${result.stdout}${result.stderr}`, `${format}: ${piece}`).not.toContain(piece);
      if (format === 'text') expect(result.stdout).toContain('✗ turn 1: equals "Hello" — the reply differs at character 1: it has "Thanks for calling Acme Dental, your access code is (sensit…", expected "Hello"');
      const saved = await runCliInProcess(['test', '--local', '--with-secrets', '--format', format, '--out', `r.${format}`], { cwd: dir, env: SECRET_ENV });
      expect(saved.code, saved.stderr).toBe(1);
      const file = await readFile(path.join(dir, `r.${format}`), 'utf8');
      for (const piece of pieces) expect(file, `${format} file: ${piece}`).not.toContain(piece);
    }
  });
});

describe('test --out', () => {
  const files = () => ({ 'voxform.yaml': manifest('Hello'), 'tests/g.test.yaml': 'agent: desk\ntests:\n  - name: greeting\n    turns:\n      - expect: [{ equals: Hello }]\n' });

  it('refuses a file it cannot write before any conversation, like plan and report: a clear error, exit 1, nothing written', async () => {
    const dir = await tempDir(files());
    await writeFile(path.join(dir, 'afile'), 'keep me');
    for (const [out, why] of [
      ['afile/x.txt', `${path.join(dir, 'afile')} is a file, not a folder`],
      ['no-such-folder/x.txt', 'its folder does not exist'],
      ['tests', 'it is a folder'],
      // A folder that takes no new file, even for root (whom permissions do not stop).
      ['/proc/voxform-report.txt', process.getuid?.() === 0 ? 'no file can be created in its folder' : 'voxform may not write there'],
    ] as const) {
      const result = await runCliInProcess(['test', '--local', '--out', out], { cwd: dir });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toBe(
        `error[report_write_failed]: Cannot write the report to ${path.resolve(dir, out)}: ${why}; no test was run.\n  hint: Name a file in a folder that exists and is writable with --out.\n`,
      );
      expect(result.stdout).toBe('');
    }
    expect(await readFile(path.join(dir, 'afile'), 'utf8')).toBe('keep me');
    expect((await readdir(dir)).sort()).toEqual(['afile', 'tests', 'voxform.yaml']);
    const json = await runCliInProcess(['test', '--local', '--format', 'json', '--out', 'afile/x.json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'report_write_failed' } });
  });
});

describe('test reports are safe on a terminal', () => {
  // A test name and an agent reply that would retitle the terminal and recolour it.
  const files = () => ({
    'voxform.yaml': manifest('Hi \u001b[31mRED\u001b]0;TITLE\u0007 \u009b31m'),
    'tests/t.test.yaml': 'agent: desk\ntests:\n  - name: "x\\e]0;PWNED\\a"\n    turns:\n      - expect: [{ equals: Hello }]\n',
  });
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it('writes control characters of test files and replies escaped, in text, Markdown and JUnit', { timeout: 120_000 }, async () => {
    const dir = await tempDir(files());
    for (const format of ['text', 'markdown', 'junit']) {
      const result = await runCliInProcess(['test', '--local', '--format', format], { cwd: dir });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout, format).not.toMatch(CONTROL);
      expect(result.stdout, format).toContain('x\\u001b]0;PWNED\\u0007');
      expect(result.stdout, format).toContain('Hi \\u001b[31mRED\\u001b]0;TITLE\\u0007 \\u009b31m');
    }
  });

  it('writes them escaped in errors and code frames on stderr too', { timeout: 120_000 }, async () => {
    const dir = await tempDir({
      ...files(),
      // A raw ESC and BEL in the file itself, beside a mistake: the code frame shows that line.
      'tests/t.test.yaml': 'agent: desk\ntests:\n  - name: x\u001b]0;PWNED\u0007\n    turns:\n      - expect: [{ contians: Hello }]\n',
      'judged/j.test.yaml': 'agent: desk\ntests:\n  - name: "x\\e]0;PWNED\\a"\n    turns:\n      - expect: [{ judge: Is polite. }]\n',
    });
    const invalid = await runCliInProcess(['test', 'tests', '--local'], { cwd: dir });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).not.toMatch(CONTROL);
    expect(invalid.stderr).toContain('  3 |   - name: x\\u001b]0;PWNED\\u0007\n');
    const judged = await runCliInProcess(['test', 'judged', '--local'], { cwd: dir });
    expect(judged.code).toBe(1);
    expect(judged.stderr).not.toMatch(CONTROL);
    expect(judged.stderr).toContain('first: judged/j.test.yaml › x\\u001b]0;PWNED\\u0007.');
    await writeFile(path.join(dir, 'voxform.yaml'), 'version: 1\nagents:\n  desk\u001b]0;PWNED\u0007:\n    id: x\n');
    const manifestError = await runCliInProcess(['validate'], { cwd: dir });
    expect(manifestError.code).toBe(1);
    expect(manifestError.stdout + manifestError.stderr).not.toMatch(CONTROL);
    expect(manifestError.stdout + manifestError.stderr).toContain('agent name "desk\\u001b]0;PWNED\\u0007" is not a valid name');
  });

  it('still hides a secret that holds control characters or a line break', { timeout: 120_000 }, async () => {
    const secret = 'tok\u001b[0m-\u0085-line\nbreak-S3CRET';
    const dir = await tempDir({ ...files(), 'voxform.yaml': manifest('Your code is ${env:GREET_SECRET}') });
    for (const format of ['text', 'markdown', 'junit', 'json']) {
      const result = await runCliInProcess(['test', '--local', '--format', format], { cwd: dir, env: { VOXFORM_ENV_ALLOW: 'GREET_SECRET', GREET_SECRET: secret } });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout, format).not.toContain('S3CRET');
      expect(result.stdout, format).not.toContain('tok');
    }
  });
});
