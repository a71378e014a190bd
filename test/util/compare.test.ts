import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { byCodeUnits } from '../../src/util/compare.js';
import { repoRoot, runCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

describe('byCodeUnits', () => {
  it('orders as sort() does, upper case before lower and whatever the locale', () => {
    const names = ['b', 'a', 'B', 'é', 'e', '😀', '\uFFFF', 'a'];
    expect([...names].sort(byCodeUnits)).toEqual([...names].sort());
    expect([...names].sort(byCodeUnits)).toEqual(['B', 'a', 'a', 'b', 'e', 'é', '😀', '\uFFFF']);
  });

  it('is the only order of text in src/: nothing sorts by the locale, which differs between machines', async () => {
    const files = (await readdir(path.join(repoRoot, 'src'), { recursive: true })).filter((file) => file.endsWith('.ts'));
    const byLocale: string[] = [];
    for (const file of files) if (/localeCompare|Intl\.Collator/.test(await readFile(path.join(repoRoot, 'src', file), 'utf8'))) byLocale.push(file);
    expect(byLocale).toEqual(['util/compare.ts']); // its comment names localeCompare
  });

  it('a plan lists its resources in one order under a Turkish and an English locale (dotless i folds otherwise)', async () => {
    const dir = await tempDir({
      'voxform.yaml': 'version: 1\nagents:\n  ia: { id: -OKdqbqetEcM4ak369ym, config: { prompt: You help. } }\n  Iz: { id: -OKdqbqetEcM4ak369yn, config: { prompt: You help too. } }\n',
    });
    const tokens = async (locale: string) => {
      const result = await runCli(['plan', '--local', '--format', 'json'], { cwd: dir, env: { LC_ALL: locale, LANG: locale } });
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { policy: { prompt_tokens: Array<{ address: string }> } }).policy.prompt_tokens.map((entry) => entry.address);
    };
    expect(await tokens('tr_TR.UTF-8')).toEqual(['agent.Iz', 'agent.ia']);
    expect(await tokens('en_US.UTF-8')).toEqual(['agent.Iz', 'agent.ia']);
  }, 60_000);
});
