import { VoxformError } from '../errors.js';

interface PromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Whether to drive the input as a terminal (raw keys: Ctrl-C arrives as a key, not a signal). */
  terminal: boolean;
  /** Ends the question as interrupted (a signal arrived while it was asked). */
  signal?: AbortSignal | undefined;
}

/** Asks a yes/no question (only "yes" is yes); Ctrl-C, Ctrl-D or the signal reject it as `interrupted`. */
export async function askYesNo(question: string, streams: PromptStreams): Promise<boolean> {
  const { createInterface } = await import('node:readline');
  return new Promise<boolean>((resolve, reject) => {
    const rl = createInterface({ input: streams.input, output: streams.output, terminal: streams.terminal });
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      streams.signal?.removeEventListener('abort', interrupted);
      rl.close();
      settle();
    };
    const interrupted = () => finish(() => reject(new VoxformError('interrupted', 'Interrupted at the prompt.', { hint: 'Run the command again to answer it.' })));
    // A terminal delivers Ctrl-C to readline as a key; without a listener readline would just close.
    rl.on('SIGINT', interrupted);
    rl.on('close', interrupted);
    if (streams.signal?.aborted) return interrupted();
    streams.signal?.addEventListener('abort', interrupted, { once: true });
    rl.question(`${question} (only "yes" is accepted) `, (answer) => finish(() => resolve(answer.trim() === 'yes')));
  });
}
