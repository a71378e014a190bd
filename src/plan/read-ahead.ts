/**
 * Live reads started before the plan asks for them: `plan` starts reading the agents as soon as the
 * manifest loader knows their ids, while it still resolves the resources and reads prompt files.
 * The plan then takes each answer from here (or reads what was not started), so the reads overlap
 * the loading instead of following it. Only reads: a manifest that turns out to be invalid has cost
 * a few GETs and nothing else. Nothing read here reaches the user before the plan takes it, which
 * is after the load has registered every secret of the manifests for redaction: a failed read is
 * held as a rejected promise, never printed on its own.
 */
import type { ReadTargets } from '../manifest/types.js';
import type { Agent, Phone } from '../schema/types.gen.js';
import type { LiveReader } from './read-live.js';

export class ReadAhead implements LiveReader {
  private readonly agents = new Map<string, Promise<Agent>>();
  private phones: Promise<Phone[]> | undefined;

  constructor(private readonly client: LiveReader) {}

  /** Starts the reads of `targets` not started yet. */
  start(targets: ReadTargets): void {
    // The phone list first: the phones are compared only once it is in, and behind hundreds of agent
    // reads it would come last, while the other slots idle.
    if (targets.phones) this.phones ??= settledLater(this.client.listPhones());
    for (const id of targets.agentIds) {
      if (this.agents.has(id)) continue;
      this.agents.set(id, settledLater(this.client.getAgent(id)));
    }
  }

  /** The agent's read: the one started ahead (taken once: a second plan reads afresh), else a new one. */
  getAgent(id: string): Promise<Agent> {
    const started = this.agents.get(id);
    if (!started) return this.client.getAgent(id);
    this.agents.delete(id);
    return started;
  }

  listPhones(): Promise<Phone[]> {
    const started = this.phones;
    this.phones = undefined;
    return started ?? this.client.listPhones();
  }
}

/** The promise, with its failure noted as handled until someone takes it (an unused read must not crash the run). */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
