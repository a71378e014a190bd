/** docs/testing.md stays true: its test file example loads without a problem, and its flag table lists every flag of the command. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { loadTestFiles } from '../../src/conversations/load-tests.js';
import { repoRoot, useTempDirs } from '../helpers/cli.js';

const doc = readFileSync(path.join(repoRoot, 'docs/testing.md'), 'utf8');
const tempDir = useTempDirs();

describe('docs/testing.md', () => {
  it('its example test file is valid', async () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    expect(example).toContain('agent: front-desk');
    const dir = await tempDir({ 'tests/doc.test.yaml': example });
    const result = await loadTestFiles({ files: [path.join(dir, 'tests/doc.test.yaml')], cwd: dir, agents: new Set(['front-desk']) });
    expect(result.diagnostics).toEqual([]);
    expect(result.files?.[0]?.tests.map((t) => t.name)).toEqual(['gives opening hours', 'books a cleaning']);
  });

  it('documents every flag of voxform test', () => {
    const test = buildProgram(async () => undefined).commands.find((c) => c.name() === 'test');
    const flags = (test?.options ?? []).map((o) => o.long as string).filter((flag) => flag !== '--file');
    expect(flags.length).toBeGreaterThan(10);
    for (const flag of flags) expect(doc, flag).toContain(`\`${flag}`);
  });

  it('the example tests load against agents.example.yaml', async () => {
    const dir = path.join(repoRoot, 'example/tests');
    const files = ['front-desk.test.yaml', 'booking.test.yaml'].map((f) => path.join(dir, f));
    const result = await loadTestFiles({ files, cwd: repoRoot, agents: new Set(['front-desk', 'booking']) });
    expect(result.diagnostics).toEqual([]);
  });
});
