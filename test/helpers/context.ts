import { PassThrough } from 'node:stream';
import type { CommandContext, Output } from '../../src/cli/context.js';
import { SecretRegistry } from '../../src/secrets/redact.js';

/** A command context for running a command in-process: output captured, cleanups kept to run later. */
export function makeContext(options: {
  cwd: string;
  env?: Record<string, string>;
  confirm?: (question: string) => Promise<boolean>;
  tty?: boolean;
}) {
  const captured = { stdout: '', stderr: '' };
  const secrets = new SecretRegistry();
  const output = (key: 'stdout' | 'stderr'): Output => ({
    write: (text) => void (captured[key] += secrets.redact(text)),
    isTTY: options.tty ?? false,
    columns: options.tty ? 100 : undefined,
  });
  const cleanups: Array<() => Promise<void> | void> = [];
  const ctx: CommandContext = {
    cwd: options.cwd,
    env: options.env ?? {},
    stdout: output('stdout'),
    stderr: output('stderr'),
    stdin: new PassThrough(),
    color: false,
    secrets,
    confirm: options.confirm,
    onExit: (cleanup) => void cleanups.push(cleanup),
    interrupted: () => new Promise<never>(() => undefined),
    writeSent: () => () => undefined,
  };
  const close = async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  };
  return { ctx, captured, close };
}
