/**
 * Every option a command's --help lists is named on the page that documents the command, so a
 * reader of the page learns of it. The options README's "Common options" paragraph describes for
 * every command that talks to the service are left to it, and it names each command --parallelism
 * is given to.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { repoRoot } from '../helpers/cli.js';

/** The page that documents each command that takes options of its own (plan's policy options: policy.md). */
const PAGE_OF: Record<string, string | string[]> = {
  validate: 'docs/policy.md',
  'policy list': 'docs/policy.md',
  plan: ['docs/plan.md', 'docs/policy.md'],
  'plan show': 'docs/plan.md',
  apply: 'docs/plan.md',
  status: 'docs/plan.md',
  history: 'docs/history.md',
  rollback: 'docs/history.md',
  drift: 'docs/drift.md',
  promote: 'docs/promotion.md',
  diff: 'docs/promotion.md',
  export: 'docs/export.md',
  init: 'docs/templates.md',
  fmt: 'docs/fmt.md',
  emulator: 'docs/emulator.md',
  'emulator traffic': 'docs/traffic.md',
  logs: 'docs/client.md',
  'keys create': 'docs/client.md',
  chat: 'docs/client.md',
  report: 'docs/report.md',
  test: 'docs/testing.md',
  'test capture': 'docs/testing.md',
  get: 'docs/get.md',
  completion: 'docs/completion.md',
  'webhook send': 'docs/webhooks.md',
  'webhook serve': 'docs/webhooks.md',
  'state list': 'docs/state.md',
  'state show': 'docs/state.md',
  'state rm': 'docs/state.md',
  'state unlock': 'docs/state.md',
  'state migrate': 'docs/state.md',
  'state upgrade': 'docs/state.md',
  'ci run': 'docs/ci.md',
};

/** README's "Common options" of the commands that talk to the service, and the two every command has. */
const COMMON = new Set(['--base-url', '--region', '--local', '--timeout', '--parallelism', '--no-color', '--help']);

/** Every command with options of its own, by its full name (`keys create`). */
function commandsWithOptions(): Array<{ name: string; command: Command }> {
  const found: Array<{ name: string; command: Command }> = [];
  const visit = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      const name = [...prefix, sub.name()];
      if (sub.options.length > 0) found.push({ name: name.join(' '), command: sub });
      visit(sub, name);
    }
  };
  visit(buildProgram(async () => undefined), []);
  return found;
}

const read = (file: string): string => readFileSync(path.join(repoRoot, file), 'utf8');

/** Whether `text` names `flag` as a whole option (`--env`, not the start of `--envelope`). */
function names(text: string, flag: string): boolean {
  return new RegExp(`${flag}(?![a-z-])`).test(text);
}

describe('the options of each command', () => {
  const commands = commandsWithOptions();

  it('have a page for every command that takes any', () => {
    expect(commands.map(({ name }) => name).filter((name) => !(name in PAGE_OF))).toEqual([]);
  });

  it('are each named on the command\'s page (the short or the long flag), README\'s common options aside', () => {
    const unnamed: string[] = [];
    for (const { name, command } of commands) {
      const page = PAGE_OF[name];
      if (page === undefined) continue;
      const text = [page].flat().map(read).join('\n');
      for (const option of command.options) {
        if (option.long && COMMON.has(option.long)) continue;
        const flags = [option.long, option.short].filter((flag): flag is string => flag !== undefined);
        if (!flags.some((flag) => names(text, flag))) unnamed.push(`${name} ${flags.join('/')} (${[page].flat().join(', ')})`);
      }
    }
    expect(unnamed).toEqual([]);
  });

  it('--parallelism: README names every command that takes it', () => {
    const sentence = /`--parallelism N` \(1 to 256\) for ([^;]+);/.exec(read('README.md'))?.[1] ?? '';
    const taking = commands.filter(({ command }) => command.options.some((option) => option.long === '--parallelism')).map(({ name }) => name);
    expect(taking.length).toBeGreaterThan(0);
    expect(taking.filter((name) => !new RegExp(`\\b${name}\\b`).test(sentence))).toEqual([]);
  });
});
