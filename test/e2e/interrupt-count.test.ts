/**
 * A signal that comes while validate or plan counts tokens stops the run at once: exit 130, the
 * interrupted error and nothing else, no findings and no plan. The count runs in slices that serve
 * the event loop; before, it ran to its end (hours for one long word) with the signal waiting, and
 * the result was printed before the signal was seen. The long count comes from an operator pack
 * (VOXFORM_POLICY_PACKS) that says on stderr when it starts counting, so the signal always falls
 * during the count.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnCli, useTempDirs } from '../helpers/cli.js';
import { useExampleProjects } from '../helpers/project.js';

const tempDir = useTempDirs();
const startProject = useExampleProjects();

/** Counts one word of 400,000 letters (pseudo-random, so no piece repeats) once the tokenizer is loaded. */
const COUNTING_PACK = `
let seed = 7;
const letter = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), String.fromCharCode(97 + ((seed >>> 16) % 26)));
const word = Array.from({ length: 400_000 }, letter).join('');
export const rules = [{
  id: 'counts-a-long-word', level: 'advisory', summary: 'Counts a long word.', hint: 'None.',
  async check({ tokens }) {
    await tokens.count('the tokenizer loads before the count starts');
    process.stderr.write('counting\\n');
    const count = await tokens.count(word);
    return [{ resource: 'pack', message: 'the word is ' + count + ' tokens', location: { file: 'voxform.yaml', line: 1, col: 1 } }];
  },
}];
`;

/** Holds the thread, without a turn of the event loop, until the test says it has sent its signal. */
const HOLDING_PACK = `
import { existsSync } from 'node:fs';
export const rules = [{
  id: 'holds-the-thread', level: 'advisory', summary: 'Holds the thread.', hint: 'None.',
  check() {
    process.stderr.write('holding\\n');
    while (!existsSync(process.env.SIGNAL_SENT));
    return [{ resource: 'pack', message: 'held', location: { file: 'voxform.yaml', line: 1, col: 1 } }];
  },
}];
`;

const INTERRUPTED = 'error[interrupted]: voxform stopped at your request.\n  hint: Run the command again to finish its work.\n';

/** Runs the command in `cwd` with the pack, sends `signal` once the count has started, and resolves to what it printed. */
async function interruptCount(cwd: string, env: Record<string, string>, args: string[], signal: NodeJS.Signals) {
  const packDir = await tempDir({ 'counting-pack.mjs': COUNTING_PACK });
  const { child, output, exited, stderrShows } = spawnCli(cwd, { ...env, VOXFORM_POLICY_PACKS: path.join(packDir, 'counting-pack.mjs') }, args);
  // A count that serves no signal would run for hours: it must not outlive a failed test.
  onTestFinished(() => void child.kill('SIGKILL'));
  await stderrShows('counting\n');
  child.kill(signal);
  return { code: await exited, ...output };
}

describe('a signal during a token count', () => {
  it('validate: SIGTERM stops it with exit 130 and only the interrupted error, no findings', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'agents:\n  front-desk:\n    id: agent-1\n    config:\n      prompt: Be brief.\n' });
    const result = await interruptCount(dir, {}, ['validate'], 'SIGTERM');
    expect(result).toEqual({ code: 130, stdout: '', stderr: `counting\n${INTERRUPTED}` });
  });

  it('plan --format markdown: Ctrl-C stops it with exit 130 and no plan on stdout', async () => {
    const project = await startProject();
    const result = await interruptCount(project.dir, project.env, ['plan', '--format', 'markdown'], 'SIGINT');
    expect(result).toEqual({ code: 130, stdout: '', stderr: `counting\n${INTERRUPTED}` });
  });

  it('validate: a signal that came while a check held the thread stops the run before it reports', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'agents:\n  front-desk:\n    id: agent-1\n    config:\n      prompt: Be brief.\n' });
    const packDir = await tempDir({ 'holding-pack.mjs': HOLDING_PACK });
    const signalSent = path.join(packDir, 'signal-sent');
    const { child, output, exited, stderrShows } = spawnCli(dir, { VOXFORM_POLICY_PACKS: path.join(packDir, 'holding-pack.mjs'), SIGNAL_SENT: signalSent }, ['validate']);
    onTestFinished(() => void child.kill('SIGKILL'));
    await stderrShows('holding\n');
    child.kill('SIGTERM');
    writeFileSync(signalSent, '');
    expect({ code: await exited, ...output }).toEqual({ code: 130, stdout: '', stderr: `holding\n${INTERRUPTED}` });
  });
});
