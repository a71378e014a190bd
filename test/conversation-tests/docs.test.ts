/**
 * docs/testing.md stays true: its test file example loads without a problem, its `mock_tools`
 * example runs with `--local` as it says, and its flag table lists every flag of the command.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { loadTestFiles } from '../../src/conversations/load-tests.js';
import { repoRoot, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';

const doc = readFileSync(path.join(repoRoot, 'docs/testing.md'), 'utf8');
const tempDir = useTempDirs();
let model: FakeModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** The `mock_tools:` example, as pasted into a test file of an agent with the tool it mocks. */
async function mockToolsProject(): Promise<string> {
  const example = /```yaml\n(  - name: offers the calendar's slots\n[\s\S]*?)```/.exec(doc)?.[1] ?? '';
  expect(example).toContain('mock_tools:');
  const manifest = ['version: 1', 'agents:', '  desk:', '    id: "-OKdqbqetEcM4ak369ym"', '    config:', '      tools:', '        - name: find_slots', '          description: Finds free slots.', '          webhook: https://calendar.example.com/slots', ''];
  const tests = `agent: desk\ntests:\n${example.replace(/^ {2}/gm, '')}`;
  return tempDir({ 'voxform.yaml': manifest.join('\n'), 'tests/slots.test.yaml': tests });
}

describe('docs/testing.md', () => {
  it('its example test file is valid', async () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    expect(example).toContain('agent: front-desk');
    const dir = await tempDir({ 'tests/doc.test.yaml': example });
    const result = await loadTestFiles({ files: [path.join(dir, 'tests/doc.test.yaml')], cwd: dir, agents: new Set(['front-desk']) });
    expect(result.diagnostics).toEqual([]);
    expect(result.files?.[0]?.tests.map((t) => t.name)).toEqual(['gives opening hours', 'books a cleaning']);
  });

  it('its mock_tools example passes with --local when the emulator plays the agent with a model, and fails with its echoing agent, as it says', async () => {
    const dir = await mockToolsProject();
    model = await startFakeModel();
    const played = await runCliInProcess(['test', '--local'], { cwd: dir, env: { VOXFORM_EMULATOR_LLM: model.url } });
    expect(played.stdout).toContain("PASS  offers the calendar's slots");
    expect(played.code, played.stdout + played.stderr).toBe(0);
    expect(doc).toMatch(/its default agent\s+only echoes/);
    const echoed = await runCliInProcess(['test', '--local'], { cwd: dir, env: {} });
    expect(echoed.stdout).toContain("FAIL  offers the calendar's slots");
    expect(echoed.code).toBe(1);
  });

  it('documents every flag of voxform test', () => {
    const test = buildProgram(async () => undefined).commands.find((c) => c.name() === 'test');
    const flags = (test?.options ?? []).map((o) => o.long as string).filter((flag) => flag !== '--file');
    expect(flags.length).toBeGreaterThan(10);
    for (const flag of flags) expect(doc, flag).toContain(`\`${flag}`);
  });

  it('its synopses name every flag of voxform test and voxform test capture', () => {
    const test = buildProgram(async () => undefined).commands.find((c) => c.name() === 'test');
    const capture = test?.commands.find((c) => c.name() === 'capture');
    const synopses = /## The command\n\n```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const capturePlace = synopses.indexOf('voxform test capture');
    expect(capturePlace).toBeGreaterThan(0);
    for (const [command, synopsis] of [[test, synopses.slice(0, capturePlace)], [capture, synopses.slice(capturePlace)]] as const) {
      const flags = (command?.options ?? []).map((o) => (o.long === '--file' ? '-f' : (o.long as string)));
      expect(flags.length).toBeGreaterThan(5);
      for (const flag of flags) expect(synopsis, `${command?.name()} ${flag}`).toMatch(new RegExp(`[[ ]${flag}[ \\]\n]`));
    }
  });

  it('the example tests load against agents.example.yaml', async () => {
    const dir = path.join(repoRoot, 'example/tests');
    const files = ['front-desk.test.yaml', 'booking.test.yaml'].map((f) => path.join(dir, f));
    const result = await loadTestFiles({ files, cwd: repoRoot, agents: new Set(['front-desk', 'booking']) });
    expect(result.diagnostics).toEqual([]);
  });
});
