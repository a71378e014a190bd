/**
 * README.md's reference parts read as written: one row per command in the command table, the
 * environment sentence whole, and the editor modeline of the shipped example the one init writes,
 * so that it still finds the schema once the example is copied into a project.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { SCHEMA_MODELINE } from '../../src/schema/load.js';
import { repoRoot } from '../helpers/cli.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** Every command's full name (`keys create`), groups included. */
function commandNames(): Set<string> {
  const names = new Set<string>();
  const visit = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      const name = [...prefix, sub.name()];
      names.add(name.join(' '));
      visit(sub, name);
    }
  };
  visit(buildProgram(async () => undefined), []);
  return names;
}

/** The command a table row's synopsis starts with: its longest run of leading words that names one. */
function rowCommand(synopsis: string, names: ReadonlySet<string>): string | undefined {
  const words = synopsis.split(' ');
  for (let count = words.length; count > 0; count--) {
    const name = words.slice(0, count).join(' ');
    if (names.has(name)) return name;
  }
  return undefined;
}

describe('README.md', () => {
  it('gives each command one row of the command table, and only commands that exist', () => {
    const names = commandNames();
    const rows = [...readme.matchAll(/^\| `voxform ([^`]+)` \|/gm)].map((match) => match[1] as string);
    expect(rows.length).toBeGreaterThan(20);
    const commands = rows.map((synopsis) => rowCommand(synopsis, names) ?? `(no command) ${synopsis}`);
    expect(commands.filter((name, index) => commands.indexOf(name) !== index)).toEqual([]);
    expect(commands.filter((name) => name.startsWith('(no command)'))).toEqual([]);
  });

  it('names every command in the command table: a row of its own, or an alternative of its group\'s row (`state list \\| show`)', () => {
    const names = commandNames();
    const named = new Set<string>();
    for (const [, synopsis] of readme.matchAll(/^\| `voxform ([^`]+)`/gm)) {
      const [first, ...others] = (synopsis as string).split(' \\| ');
      const command = rowCommand(first as string, names);
      if (command === undefined) continue;
      named.add(command);
      const group = command.split(' ').slice(0, -1);
      for (const other of others) named.add([...group, other.split(' ')[0]].join(' '));
    }
    const leaves = [...names].filter((name) => ![...names].some((other) => other.startsWith(`${name} `)));
    expect(leaves.filter((name) => !named.has(name))).toEqual([]);
  });

  it('lists the environment in one whole sentence, its parentheses closed, before the exit codes', () => {
    const paragraph = readme.slice(readme.indexOf('\nEnvironment: ') + 1).split('\n\n')[0] as string;
    const lines = paragraph.split('\n');
    expect(lines.findIndex((line) => line.startsWith('Exit codes: '))).toBe(lines.length - 1);
    const environment = lines.slice(0, -1).join(' ');
    expect(environment.endsWith('.')).toBe(true);
    let depth = 0;
    for (const ch of environment.replace(/`[^`]*`/g, '')) {
      depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
      expect(depth, environment).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
  });
});

describe('editor modelines of manifests', () => {
  it('are the one init and export write, beside their schema copy, in the shipped example and the docs', () => {
    const files = ['agents.example.yaml', 'README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const modelines = files.flatMap((file) =>
      [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/^# (yaml-language-server: \$schema=\S*manifest\.schema\.json)/gm)].map((match) => [file, match[1]]),
    );
    expect(modelines.map(([file]) => file)).toContain('agents.example.yaml');
    expect(modelines.filter(([, modeline]) => modeline !== SCHEMA_MODELINE)).toEqual([]);
  });
});
