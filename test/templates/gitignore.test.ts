import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { GITIGNORE_HEADER, mergeGitignore } from '../../src/templates/gitignore.js';

const block = `${GITIGNORE_HEADER}\n**/.voxform/local.json\n**/.voxform/*.lock\n**/.voxform/*.tmp\n`;

describe('mergeGitignore', () => {
  const cases: Array<{ name: string; existing: string | undefined; expected: string | undefined }> = [
    { name: 'no .gitignore yet', existing: undefined, expected: block },
    { name: 'an empty .gitignore', existing: '', expected: block },
    { name: 'appends after a blank line', existing: 'node_modules/\n', expected: `node_modules/\n\n${block}` },
    { name: 'adds the missing final newline first', existing: 'node_modules/', expected: `node_modules/\n\n${block}` },
    {
      name: 'adds only the entries it lacks, without repeating the header',
      existing: `${GITIGNORE_HEADER}\n**/.voxform/local.json\n`,
      expected: `${GITIGNORE_HEADER}\n**/.voxform/local.json\n\n**/.voxform/*.lock\n**/.voxform/*.tmp\n`,
    },
    { name: 'nothing when every entry is there', existing: `dist/\n**/.voxform/*.tmp\n**/.voxform/local.json\n**/.voxform/*.lock\n`, expected: undefined },
    {
      name: 'the entries of the top folder only are widened to every depth',
      existing: `${GITIGNORE_HEADER}\n.voxform/local.json\n.voxform/*.lock\n.voxform/*.tmp\n`,
      expected: `${GITIGNORE_HEADER}\n.voxform/local.json\n.voxform/*.lock\n.voxform/*.tmp\n\n**/.voxform/local.json\n**/.voxform/*.lock\n**/.voxform/*.tmp\n`,
    },
    { name: 'nothing when the whole folder is ignored already', existing: '.voxform/\n', expected: undefined },
    { name: 'Windows line endings are read as lines', existing: '**/.voxform/local.json\r\n**/.voxform/*.lock\r\n**/.voxform/*.tmp\r\n', expected: undefined },
  ];
  test.each(cases)('$name', ({ existing, expected }) => {
    expect(mergeGitignore(existing)).toBe(expected);
  });

  test('never lists the state file: teams commit it', () => {
    expect(mergeGitignore(undefined)).not.toContain('state.json');
  });

  test('git ignores the local-only files of a .voxform folder at any depth, and never the state file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-gitignore-'));
    try {
      execFileSync('git', ['init', '-q'], { cwd: dir });
      await writeFile(path.join(dir, '.gitignore'), mergeGitignore(undefined) as string);
      const ignored = (file: string): boolean => {
        try {
          execFileSync('git', ['check-ignore', '-q', '--no-index', file], { cwd: dir, stdio: 'pipe' });
          return true;
        } catch {
          return false;
        }
      };
      await mkdir(path.join(dir, 'team/agents/.voxform'), { recursive: true });
      for (const folder of ['.voxform', 'team/agents/.voxform']) {
        expect(ignored(`${folder}/local.json`), folder).toBe(true);
        expect(ignored(`${folder}/state.json.lock`), folder).toBe(true);
        expect(ignored(`${folder}/state.json.4242.tmp`), folder).toBe(true);
        expect(ignored(`${folder}/state.json`), folder).toBe(false);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('is idempotent', () => {
    const once = mergeGitignore('node_modules/\n') as string;
    expect(mergeGitignore(once)).toBeUndefined();
  });
});
