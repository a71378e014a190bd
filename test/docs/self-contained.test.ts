/**
 * The repository stands alone: no tracked file reads or names a path outside it, or a document the
 * repository does not contain. Its own description of the service is docs/service-api.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

/** Every tracked file; `git ls-files` failing fails the test (a run outside a checkout checks nothing). */
const trackedFiles = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && existsSync(path.join(repoRoot, file)));

const textFiles = trackedFiles.filter((file) => file !== 'package-lock.json' && !/\.(png|jpe?g|gif|ico|pdf|wav|zip|gz)$/i.test(file));

function readText(file: string): string {
  return readFileSync(path.join(repoRoot, file), 'utf8');
}

/**
 * Names of things that live beside the repository, not in it. Written so that this file does not
 * match them itself.
 */
const OUTSIDE_REFERENCES: Array<[string, RegExp]> = [
  ['a path into the folder beside the repository', /\.\.[/\\]shared\b|\bshared[/\\]spec\b/],
  ['the design notes kept outside the repository', /\bDESIGN\.md\b/],
  ['the service notes kept outside the repository', /\bservice-notes\.md\b/],
  ['the published interface text kept outside the repository', /\bvoice-agent[-]api\b/],
  ['a path built from the repository root upwards', /\b(?:repoRoot|root|ROOT)\s*,\s*['"]\.\.['"]/],
];

/** Markdown links `[text](target)` to files, relative to the file that holds them. */
function localLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => (match[1] as string).split('#')[0] as string)
    .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the repository is self-contained', () => {
  it('tracks files to check', () => {
    expect(textFiles.length).toBeGreaterThan(50);
    expect(textFiles).toContain('docs/service-api.md');
  });

  it('names no path outside it and no document it does not hold', () => {
    const hits: string[] = [];
    for (const file of textFiles) {
      readText(file)
        .split('\n')
        .forEach((line, index) => {
          for (const [what, pattern] of OUTSIDE_REFERENCES) if (pattern.test(line)) hits.push(`${file}:${index + 1}: ${what}: ${line.trim()}`);
        });
    }
    expect(hits).toEqual([]);
  });

  it('links, in its Markdown, only to files it holds', () => {
    const broken: string[] = [];
    for (const file of textFiles.filter((f) => f.endsWith('.md'))) {
      for (const target of localLinks(readText(file))) {
        const resolved = path.resolve(repoRoot, path.dirname(file), decodeURIComponent(target));
        const inside = !path.relative(repoRoot, resolved).startsWith('..');
        if (!inside || !existsSync(resolved)) broken.push(`${file}: ${target}${inside ? ' (missing)' : ' (outside the repository)'}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('links to its own files on GitHub only where they exist (the README, read on the registry, links so)', () => {
    const own = /\]\(https:\/\/github\.com\/voxform\/voxform\/blob\/main\/([^)#\s]+)/g;
    const broken: string[] = [];
    let found = 0;
    for (const file of textFiles.filter((f) => f.endsWith('.md'))) {
      for (const match of readText(file).matchAll(own)) {
        found++;
        if (!trackedFiles.includes(decodeURIComponent(match[1] as string))) broken.push(`${file}: ${match[1]}`);
      }
    }
    expect(found).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it('links docs/service-api.md from the README and the other docs that rely on the interface', () => {
    for (const file of ['README.md', 'docs/emulator.md', 'docs/client.md']) expect(readText(file), file).toMatch(/service-api\.md/);
  });
});
