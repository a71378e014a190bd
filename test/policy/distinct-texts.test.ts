/**
 * A text many places share (a YAML alias, a prompt file every agent names) is searched by each
 * built-in rule once, however many agents share it: a pull request of thousands of agents with one
 * long prompt made validate (and the plan on every pull request) search it thousands of times.
 * Each agent still gets its own finding, at its own place. The work is counted, not timed.
 */
import { describe, expect, it, vi } from 'vitest';
import { useTempDirs } from '../helpers/cli.js';
import { policyOf } from './helpers.js';
import { perDistinctText } from '../../src/policy/distinct-texts.js';

const tempDir = useTempDirs();

/** A prompt with a phone number, an e-mail address, a card number and talk of a transfer, `lines` lines long. */
function promptOf(lines: number): string {
  const filler = 'Greet callers warmly and confirm the booking dates back to them.\n'.repeat(lines);
  return `${filler}Call +1 555 123 4567 or mail desk@example.com, card 4111 1111 1111 1111; transfer when asked.`;
}

/** A manifest of `agents` agents that all share one prompt, as a prompt file or as an alias. */
function project(agents: number, shape: 'file' | 'alias', prompt: string): Record<string, string> {
  const lines = ['version: 1', 'agents:'];
  for (let i = 0; i < agents; i++) {
    lines.push(`  a${i}:`, `    id: ag_${i}`, '    config:');
    if (shape === 'file') lines.push('      prompt: { file: prompt.md }');
    else if (i === 0) lines.push('      prompt: &shared |', ...prompt.split('\n').map((line) => `        ${line}`));
    else lines.push('      prompt: *shared');
  }
  return { 'voxform.yaml': `${lines.join('\n')}\n`, 'prompt.md': `${prompt}\n` };
}

/** How many times a pattern searched `text` (matchAll, exec) while the policy was checked, and the findings. */
async function searchesOf(files: Record<string, string>, text: string) {
  const dir = await tempDir(files);
  const matchAll = vi.spyOn(String.prototype, 'matchAll');
  const exec = vi.spyOn(RegExp.prototype, 'exec');
  try {
    const report = await policyOf(dir);
    const searches = matchAll.mock.contexts.filter((subject) => String(subject) === text).length + exec.mock.calls.filter(([subject]) => subject === text).length;
    return { searches, report };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('a text shared by many agents', () => {
  // Below and above the length past which a string's hash is its length (distinct-texts.ts).
  for (const [size, lines] of [['short', 4], ['long', 400]] as const) {
    for (const shape of ['file', 'alias'] as const) {
      it(`is searched as often for 30 agents as for one (${size} prompt, shared as a ${shape}), and each agent has its own findings`, async () => {
        const prompt = promptOf(lines);
        // A literal block keeps its final line break; a prompt file's is dropped.
        const text = shape === 'alias' ? `${prompt}\n` : prompt;
        const one = await searchesOf(project(1, shape, prompt), text);
        const many = await searchesOf(project(30, shape, prompt), text);
        expect(one.searches).toBeGreaterThan(0);
        expect(many.searches).toBe(one.searches);
        for (const rule of ['pii-phone-number', 'pii-email-address', 'pii-card-number', 'behaviour-transfer-target']) {
          const findings = many.report.findings.filter((finding) => finding.rule === rule);
          expect(findings.map((finding) => finding.resource).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `agent.a${i}`).sort());
          const [first] = one.report.findings.filter((finding) => finding.rule === rule);
          if (shape === 'file') for (const finding of findings) expect(finding.location).toEqual(first?.location);
          else expect(new Set(findings.map((finding) => `${finding.location.line}:${finding.location.col}`)).size).toBe(30);
        }
      });
    }
  }
});

describe('perDistinctText', () => {
  it('computes once per distinct text, long texts of one length included, and again for a text that took its place', () => {
    const computed: string[] = [];
    const lengthOf = perDistinctText((text: string) => (computed.push(text.slice(0, 1)), text.length));
    const [a, b] = ['a', 'b'].map((letter) => letter.repeat(20_000));
    for (const text of [a, a, 'short', b, b, 'short', a]) lengthOf(text as string);
    expect(computed).toEqual(['a', 's', 'b', 'a']);
  });
});
