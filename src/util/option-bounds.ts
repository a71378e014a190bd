/**
 * The upper bounds of the whole-number options, one definition for the CLI's flags and the library's
 * options alike, as their docs give them. Requests in flight hold a socket each, an open file, and a
 * worker each: past these a run exhausts the host before it sends anything. A million calls is what
 * the emulator generates at once; a million records, repeats or conversations is past any run's need
 * (`voxform test`'s caps bound its run); a day's wait for the state lock is past any CI job's limit.
 */
export const MOST = { parallelism: 256, count: 1_000_000, lockTimeoutSeconds: 86_400 } as const;
