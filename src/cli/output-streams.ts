/**
 * The process's stdout and stderr as commands and the parser write to them: every write redacted and
 * made printable (`streamPrinter`), a stream that fails written to no more, and a failure that lost
 * output the user asked for said at the end (`lostOutput`).
 */
import { VoxformError } from '../errors.js';
import type { SecretRegistry } from '../secrets/redact.js';
import { printableKeepingLines } from '../util/printable.js';
import { inChunks } from '../util/json-pieces.js';
import { streamPrinter, type Output } from './context.js';

/**
 * Output streams that failed: written to no more (one entry per stream: main may run more than once).
 * `lost`: why, when the reason was not a reader going away (a full disk): then the output the user
 * asked for is incomplete, and the run fails.
 */
const failedStreams = new WeakMap<NodeJS.WriteStream, StreamStatus>();

interface StreamStatus {
  failed: boolean;
  lost?: string;
}

/** An output that knows whether any text was written through it: whether stdout holds output yet. */
export type TrackedOutput = Output & { written: () => boolean };

/**
 * `output`, and whether any text was written through it, which decides where an error goes
 * (report-error.ts, `printsAsJson`), in a process (main) and in a command line run inside another
 * (run-command.ts, `runCommandLine`) alike.
 */
export function trackingWrites(output: Output): TrackedOutput {
  let written = false;
  return {
    ...output,
    write: (text) => {
      if (text !== '') written = true;
      output.write(text);
    },
    written: () => written,
  };
}

/**
 * Output in pieces written a chunk at a time (`inChunks`), as fast as `output` takes it: a
 * document too large to be one string (a plan's JSON, a test report) is never made whole. Each
 * chunk is redacted on its own: a renderer never cuts a value in two, so no secret spans two chunks.
 */
export async function writeInChunks(output: Output, pieces: Iterable<string>): Promise<void> {
  for (const chunk of inChunks(pieces)) {
    output.write(chunk);
    await output.drained?.();
  }
}

/** `silenced`: once it says so, nothing more is written (a run stopped by a signal has said its last line). */
export function makeOutput(stream: NodeJS.WriteStream, secrets: SecretRegistry, silenced: () => boolean): Output {
  // A closed pipe (`voxform schema | head -1`) does not cut an apply short: the rest of that output
  // is dropped. Unwatched, the stream's error would end the process with Node's trace.
  const status = failedStreams.get(stream) ?? watchForFailure(stream);
  const printed = streamPrinter(secrets, stream, process.env);
  return {
    write: (text: string) => {
      if (!status.failed && !stream.destroyed && !silenced()) stream.write(printed(text));
    },
    drained: async () => {
      if (status.failed || stream.destroyed || !stream.writableNeedDrain) return;
      // A stream that fails or closes instead drains no more: the rest of its output is dropped anyway.
      await new Promise<void>((resolve) => {
        const settle = () => {
          for (const event of ['drain', 'error', 'close']) stream.off(event, settle);
          resolve();
        };
        for (const event of ['drain', 'error', 'close']) stream.on(event, settle);
      });
    },
    isTTY: Boolean(stream.isTTY),
    columns: stream.isTTY ? stream.columns : undefined,
  };
}

function watchForFailure(stream: NodeJS.WriteStream): StreamStatus {
  const status: StreamStatus = { failed: false };
  stream.on('error', (error: NodeJS.ErrnoException) => {
    status.failed = true;
    // EPIPE: the reader went away (`voxform schema | head -1`), which is no failure of the command.
    if (error.code !== 'EPIPE') status.lost ??= error.code ?? error.message;
  });
  failedStreams.set(stream, status);
  return status;
}

/**
 * The error for standard output that could not be written (a full disk behind `> plan.md`), once
 * the errors of the writes made have arrived; undefined when it took all it was given.
 */
export async function lostOutput(): Promise<VoxformError | undefined> {
  await new Promise((resolve) => setImmediate(resolve));
  const lost = failedStreams.get(process.stdout)?.lost;
  if (lost === undefined) return undefined;
  return new VoxformError('output_failed', `voxform could not write to standard output (${printableKeepingLines(lost)}): what it printed there is incomplete.`, {
    hint: 'Make room where the output goes (a full disk), or send it somewhere that takes it; then run the command again.',
  });
}
