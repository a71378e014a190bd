/**
 * An `ignore:` entry is checked by walking the agent's config one step per part: an entry of
 * thousands of parts walked from the root at each part cost their square. The work is counted as
 * the path segments handed to `valueAtPath`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENT, loadTree, summarize } from './helpers.js';

let segments = 0;
vi.mock('../../src/util/field-path.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/util/field-path.js')>();
  return {
    ...actual,
    valueAtPath: (value: unknown, path: Parameters<typeof actual.valueAtPath>[1]) => {
      segments += path.length;
      return actual.valueAtPath(value, path);
    },
  };
});

afterEach(() => {
  segments = 0;
});

const PARTS = 5_000;

describe('ignore entries are walked once', () => {
  it(`an entry of ${PARTS} parts is walked in as many steps, with the findings of a short one`, async () => {
    const deep = (head: string) => `${head}${'.a'.repeat(PARTS)}`;
    const entries = [deep('config'), deep('config.voice'), deep('config.llm.temperature')];
    const line = `    ignore: [${entries.join(', ')}]`;
    const result = await loadTree({ 'voxform.yaml': `${AGENT}    config: { voice: null, llm: { temperature: 0.5 } }\n${line}\n` });
    const column = (index: number) => line.indexOf(entries[index] as string) + 1;
    expect(summarize(result)).toEqual([
      `voxform.yaml:6:${column(0)} unknown_field ignore: ${deep('config')} is not a field of the agent: config has no "a"`,
      `voxform.yaml:6:${column(1)} ignore_conflict ignore: ${deep('config.voice')} lies under config.voice, which this agent sets whole (to null): sending it would clear what ignore keeps; set the fields of config.voice it manages instead, or ignore config.voice`,
      `voxform.yaml:6:${column(2)} ignore_conflict ignore: ${deep('config.llm.temperature')} lies under config.llm.temperature, which this agent sets whole (to a value): sending it would clear what ignore keeps; set the fields of config.llm.temperature it manages instead, or ignore config.llm.temperature`,
    ]);
    // Walked from the root at each part, the first entry alone hands over about PARTS² / 2 segments.
    expect(segments).toBeLessThan(50 * PARTS);
  });
});
