import type { VoxformError } from '../errors.js';
import { terminalPrinter } from '../util/printable.js';
import { ownSequencesPass } from '../util/terminal-colors.js';
import type { SecretRegistry } from '../secrets/redact.js';
import type { ProjectManifests } from '../manifest/index.js';
import type { DesiredAgent } from '../manifest/types.js';

/** A writable stream as commands see it: what a command writes is redacted and made printable (`streamPrinter`). */
export interface Output {
  write(text: string): void;
  /**
   * Resolves once what was written has been handed on. A pipe takes writes only as fast as its
   * reader reads, and the rest waits in memory: output written in many pieces (a test report)
   * awaits this between pieces, so it never waits whole. A stream that writes at once needs none.
   */
  drained?(): Promise<void>;
  /** Whether this is a terminal (colour, progress, prompts). */
  readonly isTTY: boolean;
  /** Columns of the terminal, when it is one. */
  readonly columns: number | undefined;
}

/**
 * The agents the manifests loaded in this run hold, by id (the first load's, when two name one id), so
 * that an error about one names it (manifest-agent-missing.ts), at the place of its id.
 */
export type ManifestAgentsById = Map<string, Pick<DesiredAgent, 'address' | 'source'>>;

/** Everything a command may touch of the outside world (commands never use `process`: tests build fakes). */
export interface CommandContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  stdout: Output;
  stderr: Output;
  /** Standard input, for `voxform chat` and prompts. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Colour on stdout/stderr (colorOn: a terminal, or FORCE_COLOR; never with NO_COLOR / --no-color). */
  color: boolean;
  /** Secrets met during this run; every write to stdout/stderr is scrubbed of them. */
  secrets: SecretRegistry;
  /** A yes/no question on the terminal (undefined without one); Ctrl-C, Ctrl-D or `signal` reject as `interrupted`. */
  confirm: ((question: string, options?: { signal?: AbortSignal | undefined }) => Promise<boolean>) | undefined;
  /** Called with cleanup work (close the embedded emulator, release a lock) when the run ends or is interrupted. */
  onExit(cleanup: () => Promise<void> | void): void;
  /**
   * Resolves on Ctrl-C or SIGTERM, for a command that stops gracefully by itself (the emulator); without
   * it, or on a second signal, the cleanups run and the process exits 130 with `error[interrupted]`.
   * The first signal is answered at once with a line on stderr (`GracefulStop.stopping`), however
   * long the stop then takes. Resolves with what stops it at once, for a command that says its own line.
   */
  interrupted(stop?: GracefulStop): Promise<StopAgain>;
  /**
   * What a stop from now on leaves undone (a command past the point where rerunning it is the way
   * on: an export whose files are in place): the `interrupted` error says it, and its hint, instead
   * of "Run the command again". Undefined where nothing stops by signal (a library caller's context).
   */
  stopLeaves?(atOnce: StopAtOnce): void;
  /**
   * The command is past what it stops gracefully (`interrupted`): a signal from now on stops it at
   * once, and the files it is still writing are not put in place (`voxform test`, once its
   * conversations ended, writes its recordings and report: all of them, or none once stopped).
   * Undefined where nothing stops by signal (a library caller's context).
   */
  stopsAtOnceFromNow?(): void;
  /**
   * Marks a request not safe to repeat (one that creates something) as sent, until the returned
   * function says it ended. A run a signal stops meanwhile prints `ifInterrupted()` after its
   * `interrupted` error (in JSON, in its `details.unknown_outcomes`): the service may have acted on
   * it (`api_outcome_unknown`), and the hint says where to look before running again.
   */
  writeSent(ifInterrupted: () => VoxformError): () => void;
  /**
   * The pull or merge request `voxform ci run` found for this run's commit, when the runner's variables
   * name none (an apply on the push of a merge): a deploy records it as its source's.
   */
  review?: number | undefined;
  /** The agents of the manifests this run loaded, by id, so an error about one names it (manifest-agent-missing.ts). */
  manifestAgents?: ManifestAgentsById | undefined;
  /** The manifests read to check the command's --env before it ran, for its first load (see `refuseUnknownEnvironment`). */
  readBeforeRun?: ReadBeforeRun | undefined;
}

/** A project read handed on once: `take` answers it for the files it was read for, the first time only. */
export interface ReadBeforeRun {
  take(file: readonly string[]): ProjectManifests | undefined;
}

/**
 * What reaches stdout or stderr for each text written to it: the run's secrets redacted, then control
 * characters and workflow commands escaped (`terminalPrinter`, one per stream). The CLI's streams
 * apply it to every write, so a new command inherits it.
 */
export function streamPrinter(secrets: SecretRegistry, stream: { readonly isTTY?: boolean | undefined }, env: Readonly<Record<string, string | undefined>>): (text: string) => string {
  const print = terminalPrinter(ownSequencesPass(stream, env));
  return (text) => print(secrets.redact(text));
}

/**
 * What stops a graceful stop at once, as its line offers it: after Ctrl-C, Ctrl-C again; after a
 * SIGTERM (a CI job cancelled, a supervisor stopping the process), which no key sent, a second signal;
 * after an error began it, no key was pressed yet: Ctrl-C.
 */
export type StopAgain = 'Ctrl-C again' | 'a second signal' | 'Ctrl-C';

/** How a command stops gracefully (`CommandContext.interrupted`). */
export interface GracefulStop {
  /**
   * What the stop does, said on stderr the moment the first signal arrives:
   * `Stopping: ${stopping} (Ctrl-C again stops at once).`, or without it `Stopping… (Ctrl-C again
   * stops at once).` (after SIGTERM, `a second signal stops at once`). `false`: the command says it
   * itself (apply counts the writes it waits for).
   */
  stopping?: string | false;
  /** What stopping at once, on a second signal, leaves undone, which that error then says. */
  atOnce?: StopAtOnce;
}

/** The line a graceful stop is answered with (`GracefulStop.stopping`); undefined when the command says its own. */
export function stoppingLine(stop: GracefulStop | undefined, again: StopAgain): string | undefined {
  if (stop?.stopping === false) return undefined;
  return `Stopping${stop?.stopping ? `: ${stop.stopping}` : '…'} (${again} stops at once).\n`;
}

/**
 * What a run stopped at once (a second signal, during a graceful stop) leaves undone: `leftUndone`
 * ends the sentence of its `interrupted` error (`…; writes in flight may have reached the service`),
 * `hint` says what to do about it.
 */
export interface StopAtOnce {
  leftUndone: string;
  hint: string;
}

/** Options every command that talks to the service accepts (README.md, Commands). */
export interface ConnectionOptions {
  baseUrl?: string;
  region?: string;
  local?: boolean;
  timeout?: string;
}

/** The exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT's number, as shells report it). */
export const EXIT_INTERRUPTED = 130;
