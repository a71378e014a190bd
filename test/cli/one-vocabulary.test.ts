/** One way of saying things: the same `--format` words, the same `--agent`, addresses suggested whole. */
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { useEmulator } from '../helpers/project.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const MANIFEST = `version: 1\nagents:\n  receptionist:\n    id: "${FRONT_DESK}"\n`;

const tempDir = useTempDirs();
const service = useEmulator({ quiet: true });

function formatWords(command: Command, path: string, into: Map<string, string[]>): Map<string, string[]> {
  const format = command.options.find((option) => option.long === '--format');
  if (format?.argChoices) into.set(path, format.argChoices);
  for (const sub of command.commands) formatWords(sub, `${path} ${sub.name()}`.trim(), into);
  return into;
}

describe('every --format speaks the same words', () => {
  it('the human form is `text` wherever there is one, and no command has a word of its own', () => {
    const words = formatWords(buildProgram(async () => undefined), '', new Map());
    expect(words.get('logs')).toEqual(['text', 'json', 'ndjson']);
    for (const [command, choices] of words) {
      for (const choice of choices) expect(['text', 'json', 'ndjson', 'markdown', 'html', 'junit', 'sarif'], `${command} --format ${choice}`).toContain(choice);
    }
  });

  it('`logs --format text` prints the table; `table` is refused with the choices', async () => {
    const dir = await tempDir({});
    const text = await runCliInProcess(['logs', '--format', 'text'], { cwd: dir, env: service.env });
    expect(text.code, text.stderr).toBe(0);
    const refused = await runCliInProcess(['logs', '--format', 'table'], { cwd: dir, env: service.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The value given to --format is not one it takes: choose text, json or ndjson.');
  });
});

describe('--target suggests the whole address', () => {
  it('a bare agent name suggests agent.NAME', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    const result = await runCliInProcess(['plan', '--local', '--target', 'receptionist'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--target receptionist names no resource of the manifests; did you mean agent.receptionist?');
  });

  it('a misspelt bare name suggests the address of the closest name', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    const result = await runCliInProcess(['plan', '--local', '--target', 'receptionst'], { cwd: dir });
    expect(result.stderr).toContain('did you mean agent.receptionist?');
  });
});

describe('chat --agent takes a manifest name, as logs, report and traffic do', () => {
  it('talks to the agent a manifest name stands for', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    const result = await runCliInProcess(['chat', '--agent', 'receptionist'], { cwd: dir, env: service.env, input: 'Hello\n' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('[Front desk] You said: Hello\n');
  });

  it('a misspelt name is agent_unknown with the closest name, before any message is sent', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    const before = service.emulator.control.requestLog().filter((e) => e.path === '/chat/completions').length;
    const result = await runCliInProcess(['chat', '--agent', 'receptionst'], { cwd: dir, env: service.env, input: 'Hello\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--agent "receptionst" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.');
    expect(result.stderr).toContain('hint: Did you mean receptionist?');
    expect(service.emulator.control.requestLog().filter((e) => e.path === '/chat/completions')).toHaveLength(before);
  });
});
