/**
 * How voxform's own process ends (bin/voxform.js): at once, as soon as the command has returned and
 * its output is flushed. By then everything the command does is done — `main` awaits the state and
 * history writes, the lock's release and every cleanup — and what an exit left to Node would still
 * do is free memory the operating system takes back anyway: V8 takes down its heap and the wire
 * thread's piece by piece. After a 5,000-agent apply (0.4 GB) that took 98–139 ms from the exit
 * event to the process's end, against 72–94 ms (mostly the kernel's, freeing the memory) when the
 * process exits at once (four pairs; docs/plan.md, "Speed").
 */

/** Exits with `code` once everything written to `streams` has been handed to the operating system. */
export async function exitWhenFlushed(code: number, streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr]): Promise<never> {
  await Promise.all(streams.map(flushed));
  return process.exit(code);
}

/**
 * Resolves once the writes queued on `stream` are done (or failed: a reader that went away). A
 * terminal, a file and, on Linux, a pipe are written synchronously, so this is one turn of the
 * loop; an asynchronous pipe (macOS) is waited for rather than cut short.
 */
function flushed(stream: NodeJS.WritableStream): Promise<void> {
  const writable = stream as NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean };
  if (writable.destroyed || writable.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}
