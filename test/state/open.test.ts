import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateBackend, openStateSpec } from '../../src/state/open.js';
import { stateSpec } from '../../src/state/choice.js';
import { pastableStateSpec } from '../../src/state/postgres/url.js';
import { advisoryKey } from '../../src/state/postgres/lock.js';
import { isPostgresUrl, parseStateUrl } from '../../src/state/postgres/url.js';

describe('choosing the state backend', () => {
  it('takes --state, then VOXFORM_STATE, then .voxform/state.json; never anything else', () => {
    expect(stateSpec({ state: 'a.json', env: { VOXFORM_STATE: 'b.json' } })).toBe('a.json');
    expect(stateSpec({ state: undefined, env: { VOXFORM_STATE: 'postgres://h/db' } })).toBe('postgres://h/db');
    expect(stateSpec({ state: undefined, env: {} })).toBe('.voxform/state.json');
    expect(stateSpec({ state: 'a.json', env: { VOXFORM_STATE: '' } })).toBe('a.json');
  });

  it('refuses a choice made empty (--state "", VOXFORM_STATE set to "") rather than take it for the default file', () => {
    expect(() => stateSpec({ state: undefined, env: { VOXFORM_STATE: '' } })).toThrow(expect.objectContaining({
      code: 'state_location_empty',
      message: 'VOXFORM_STATE is set but empty: it names no state, and voxform does not take it for the default file .voxform/state.json.',
      hint: expect.stringContaining('unset VOXFORM_STATE'),
    }));
    expect(() => stateSpec({ state: '  ', env: { VOXFORM_STATE: 'b.json' } })).toThrow(expect.objectContaining({
      code: 'state_location_empty',
      message: expect.stringMatching(/^--state is empty: /),
      hint: expect.stringContaining('leave --state out'),
    }));
  });

  it('tells database URLs from paths', () => {
    expect(['postgres://h/db', 'postgresql://h/db', 'POSTGRES://h/db'].map(isPostgresUrl)).toEqual([true, true, true]);
    expect(['state.json', 'postgres.json', 'mysql://h/db', './postgres://x'].map(isPostgresUrl)).toEqual([false, false, false, false]);
  });

  it('refuses a URL of another scheme (a misspelt postgres://) instead of taking it for a file name, and registers it all as a secret', async () => {
    for (const spec of ['postgress://u:planted-pw-77@127.0.0.1:5432/db', 'pg://u:planted-pw-77@h/db', 'postgres:/u:planted-pw-77@h/db', 'postgres//u:planted-pw-77@h/db', 'PostgreSQL//u:planted-pw-77@h/db', 'postgres:u:planted-pw-77@h/db', 'postgresql:planted-pw-77@h', 'pg:u:planted-pw-77@h/db']) {
      const secrets: string[] = [];
      await expect(openStateSpec(spec, { env: process.env, cwd: tmpdir(), registerSecret: (value) => secrets.push(value) })).rejects.toMatchObject({
        code: 'state_url_invalid',
        message: expect.not.stringContaining('planted-pw-77'),
      });
      expect(secrets).toContain(spec);
    }
    // A path with a drive letter or a colon is a path.
    for (const spec of ['C:/state.json', 'state:v1.json']) {
      const backend = await openStateSpec(spec, { env: process.env, cwd: tmpdir(), registerSecret: () => undefined });
      expect(backend.kind).toBe('file');
      await backend.close();
    }
  });

  it('says what a PostgreSQL URL lacks when its slashes or its colon are mistyped, rather than that its scheme is not PostgreSQL\'s', async () => {
    const open = (spec: string) => openStateSpec(spec, { env: process.env, cwd: tmpdir(), registerSecret: () => undefined }).catch((e: unknown) => e);
    expect(await open('postgres:/voxform:planted-pw-77@127.0.0.1:5432/voxform')).toMatchObject({
      code: 'state_url_invalid',
      message: 'The state given with --state or VOXFORM_STATE starts with postgres:/, which needs two slashes: postgres://USER:PASSWORD@HOST:PORT/DATABASE.',
      hint: 'Write postgres:// at the start of the URL, or give a file path.',
    });
    expect(await open('postgresql//u:planted-pw-77@h/db')).toMatchObject({ message: expect.stringContaining('starts with postgresql//, which needs a colon: postgresql://USER:PASSWORD@HOST:PORT/DATABASE.') });
    expect(await open('pg://u:planted-pw-77@h/db')).toMatchObject({ message: expect.stringContaining('is a URL with the scheme "pg"') });
    expect(await open('pg:u:planted-pw-77@h/db')).toMatchObject({ message: expect.stringContaining('is a URL with the scheme "pg"') });
    expect(await open('postgres:u:planted-pw-77@h/db')).toMatchObject({ message: expect.stringContaining('starts with postgres:, which needs two slashes: postgres://USER:PASSWORD@HOST:PORT/DATABASE.') });
  });

  it('names in a refusal of the URL the one of --state and VOXFORM_STATE it was given with, not both', async () => {
    const open = (state: string | undefined, env: Record<string, string>) => openStateBackend({ state, env, cwd: tmpdir(), registerSecret: () => undefined }).catch((e: unknown) => e);
    expect(await open('pg://u:planted-pw-77@h/db', { VOXFORM_STATE: 'state.json' })).toMatchObject({ code: 'state_url_invalid', message: expect.stringMatching(/^The state given with --state is a URL with the scheme "pg"/) });
    expect(await open(undefined, { VOXFORM_STATE: 'postgres:/u@h/db' })).toMatchObject({ code: 'state_url_invalid', message: expect.stringMatching(/^The state given with VOXFORM_STATE starts with postgres:\//) });
    expect(await open(undefined, { VOXFORM_STATE: 'postgres://u@h/db?connect_timeout=5s' })).toMatchObject({ code: 'state_url_invalid', message: expect.stringContaining(' given with VOXFORM_STATE sets connect_timeout') });
    expect(await open('postgres://u@h/db?sslmode=requir', {})).toMatchObject({ code: 'state_url_invalid', message: expect.stringContaining(' given with --state sets sslmode') });
  });

  it('opens a path as the file backend, relative to the working folder', async () => {
    const backend = await openStateSpec('state/s.json', { env: process.env, cwd: '/work/project', registerSecret: () => undefined });
    expect(backend.kind).toBe('file');
    expect((backend as unknown as { file: string }).file).toBe(path.resolve('/work/project', 'state/s.json'));
    expect(backend.display).toBe(path.join('state', 's.json'));
  });

  it('names in its hint the option that named a state file that is a folder: --to for a migration\'s target', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-open-'));
    await mkdir(path.join(dir, '.voxform'));
    const target = await openStateSpec('.voxform', { env: process.env, cwd: dir, registerSecret: () => undefined, source: '--to' });
    await expect(target.readWorkspace('default@local')).rejects.toMatchObject({ code: 'state_unreadable', hint: 'Name the state file itself with --to, such as .voxform/state.json.' });
    const chosen = await openStateSpec('.voxform', { env: process.env, cwd: dir, registerSecret: () => undefined });
    await expect(chosen.readWorkspace('default@local')).rejects.toMatchObject({ hint: expect.stringContaining('with --state (or VOXFORM_STATE)') });
    await rm(dir, { recursive: true, force: true });
  });

  it('registers the password (as written and decoded) before anything can print it, and shows the URL without it', async () => {
    const secrets: string[] = [];
    const backend = await openStateSpec('postgres://ops:p%40ss%3Aword@db.internal:6543/voxform?sslmode=verify-full&sslpassword=keypass', { env: process.env, cwd: '/', registerSecret: (value) => secrets.push(value) });
    expect(backend.kind).toBe('postgres');
    expect(backend.display).toBe('postgres://ops@db.internal:6543/voxform?sslmode=verify-full');
    expect(secrets).toEqual(expect.arrayContaining(['p%40ss%3Aword', 'p@ss:word', 'keypass']));
    await backend.close();
  });

  it('shows a URL without a password as given (the password may come from PGPASSWORD or .pgpass)', async () => {
    const secrets: string[] = [];
    const backend = await openStateSpec('postgres://ops@db.internal/voxform', { env: process.env, cwd: '/', registerSecret: (value) => secrets.push(value) });
    expect(backend.display).toBe('postgres://ops@db.internal/voxform');
    expect(secrets).toEqual([]);
    await backend.close();
  });

  it('refuses a URL it cannot parse without repeating it (it may hold the password)', () => {
    expect(() => parseStateUrl('postgres://user:hunter2@[broken/db')).toThrow(expect.objectContaining({ code: 'state_url_invalid', message: expect.not.stringContaining('hunter2') }));
    expect(() => parseStateUrl('postgres://user:hunter2@/db')).toThrow(expect.objectContaining({ code: 'state_url_invalid', message: expect.not.stringContaining('hunter2') }));
  });

  it('names where the URL came from', () => {
    expect(() => parseStateUrl('postgres://u:pw@host:notaport/db', '--to')).toThrow('The PostgreSQL URL given with --to cannot be parsed.');
    expect(() => parseStateUrl('postgres://u:pw@host:notaport/db')).toThrow('The PostgreSQL URL given with --state or VOXFORM_STATE cannot be parsed.');
  });

  it.each([
    ['an unknown sslmode', 'sslmode=bogus', 'sets sslmode to "bogus", which is none of disable, prefer, require, verify-ca, verify-full, no-verify.'],
    ['a misspelt TLS option', 'sslmod=require', 'has the TLS option "sslmod", which the driver does not know.'],
    ['a TLS option in capitals', 'SSLMODE=require', 'has the TLS option "SSLMODE", which the driver does not know.'],
    ['ssl=yes', 'ssl=yes', 'sets ssl to "yes", which is none of true, false, 1, 0.'],
  ])('refuses %s, without the password: the driver would ignore it', (_, query, message) => {
    let caught: unknown;
    try {
      parseStateUrl(`postgres://u:secretpw@db.internal/db?${query}`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'state_url_invalid', message: `The PostgreSQL URL postgres://u@db.internal/db?${query} given with --state or VOXFORM_STATE ${message}` });
    expect(String((caught as Error).message)).not.toContain('secretpw');
  });

  it('refuses a connect_timeout that is not a whole number of seconds, and keeps one that is', () => {
    expect(() => parseStateUrl('postgres://u:planted-pw-77@h/db?connect_timeout=5s')).toThrow(expect.objectContaining({
      code: 'state_url_invalid',
      message: 'The PostgreSQL URL postgres://u@h/db?connect_timeout=5s given with --state or VOXFORM_STATE sets connect_timeout to "5s", which is not a whole number of seconds.',
    }));
    expect(parseStateUrl('postgres://u@h/db?connect_timeout=5').connectTimeoutSeconds).toBe(5);
    expect(parseStateUrl('postgres://u@h/db').connectTimeoutSeconds).toBeUndefined();
  });

  it.each([['sslmode=verify-full'], ['sslmode=no-verify&sslrootcert=ca.pem'], ['ssl=true'], ['uselibpqcompat=true&sslmode=require'], ['connect_timeout=5']])('accepts %s', (query) => {
    expect(parseStateUrl(`postgres://u:pw@db.internal/db?${query}`).display).toBe(`postgres://u@db.internal/db?${query}`);
  });
});

describe('the advisory lock key', () => {
  it('is a signed 64-bit integer, the same for the same workspace and generation, different otherwise', () => {
    const key = advisoryKey('default@local', 0);
    expect(BigInt(key)).toBeGreaterThanOrEqual(-(2n ** 63n));
    expect(BigInt(key)).toBeLessThan(2n ** 63n);
    expect(advisoryKey('default@local', 0)).toBe(key);
    expect(new Set([key, advisoryKey('default@local', 1), advisoryKey('staging@local', 0)]).size).toBe(3);
  });

  it.each([['passwd'], ['pwd'], ['pass'], ['Password'], ['PGPASSWORD']])('keeps the value of a parameter named %s secret, and refuses it: the driver does not know it', async (name) => {
    const secrets: string[] = [];
    const spec = `postgres://voxform@db.internal/voxform?sslmode=disable&${name}=planted-pw-91`;
    let caught: unknown;
    await openStateSpec(spec, { env: process.env, cwd: '/', registerSecret: (value) => secrets.push(value) }).catch((error: unknown) => (caught = error));
    expect(caught).toMatchObject({ code: 'state_url_invalid', message: `The PostgreSQL URL postgres://voxform@db.internal/voxform?sslmode=disable given with --state or VOXFORM_STATE has the parameter "${name}", which the driver does not know (its value is kept secret).` });
    expect(JSON.stringify(caught)).not.toContain('planted-pw-91');
    expect(secrets).toContain('planted-pw-91');
  });

  it.each([
    ['?', 'postgres://voxform:4242?planted-pw@127.0.0.1:5432/voxform'],
    ['/', 'postgres://voxform:4242/planted-pw@127.0.0.1:5432/voxform'],
    ['# after digits', 'postgres://voxform:4242#planted-pw@127.0.0.1:5432/voxform'],
  ])('refuses a password with a %s not percent-encoded without printing the URL, and says to encode it', (_, spec) => {
    let caught: unknown;
    try {
      parseStateUrl(spec);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'state_url_invalid', message: 'The PostgreSQL URL given with --state or VOXFORM_STATE has an @ after its host: a character of the password (such as ?, #, / or @) is probably not percent-encoded.', hint: expect.stringContaining('Percent-encode special characters in the password') });
    expect(`${(caught as Error).message} ${(caught as { hint: string }).hint}`).not.toContain('planted');
  });

  it('prints a URL for pasting with PASSWORD where its password was, and a file path or a URL without a password as given', () => {
    expect(pastableStateSpec('postgres://ops:p%40ss@db.internal:6543/voxform?sslmode=require')).toBe('postgres://ops:PASSWORD@db.internal:6543/voxform?sslmode=require');
    expect(pastableStateSpec('postgres://ops@db.internal/voxform?password=hunter22')).toBe('postgres://ops@db.internal/voxform?password=PASSWORD');
    expect(pastableStateSpec('postgres://ops@db.internal/voxform')).toBe('postgres://ops@db.internal/voxform');
    expect(pastableStateSpec('shared/state.json')).toBe('shared/state.json');
  });
});
