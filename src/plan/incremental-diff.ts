/**
 * The diff of `diffStates`, made while the live state is still being read: each agent as its read
 * arrives (or, when a knowledge file it attaches waits for other agents' answers to tell whether the
 * service still has it, once they are in), each phone once the phone list and its agent's change are
 * in, the rest at `finish`. The order of the reads changes nothing: `finish` keeps a change made
 * early only if made from the very answers the plan ends with.
 */
import type { DesiredAgent, DesiredPhone } from '../manifest/types.js';
import type { Agent, Phone } from '../schema/types.gen.js';
import { diffStates, ResourceDiffer, type DiffContext, type PlanProblem } from './diff.js';
import { planSizes, PlanSizeCounter } from './plan-size.js';
import type { LiveState } from './read-live.js';
import type { ResourceChange } from './types.js';

export class IncrementalDiff {
  private readonly differ: ResourceDiffer;
  /** Agent changes made as their reads arrived, by local name, with the live agent each was made from. */
  private readonly agentsDone = new Map<string, { live: Agent; change: ResourceChange }>();
  /** Agents read whose knowledge files are not all compared yet, by local name, with their answer. */
  private readonly agentsWaiting = new Map<string, { agent: DesiredAgent; live: Agent }>();
  /** The phone list once it is read, by number. */
  private livePhones: { list: Phone[]; byNumber: Map<string, Phone> } | undefined;
  /** Phones waiting for the change of the manifest agent they are bound to, by its local name. */
  private readonly phonesWaiting = new Map<string, DesiredPhone[]>();
  /** Phone changes made early, by address, with the phone list and agent change each was made from. */
  private readonly phonesDone = new Map<string, { list: Phone[]; agentChange: ResourceChange | undefined; change: ResourceChange }>();
  /** What the plan prints of the agent changes made so far (`planSizes`): past MAX_PLAN_UPDATE_BYTES the plan is refused (`diffStates`), and no more are made. */
  private readonly planned = new PlanSizeCounter();

  constructor(
    context: DiffContext,
    private readonly onChange?: (change: ResourceChange) => void,
  ) {
    this.differ = new ResourceDiffer(context);
  }

  /** Takes the answer for one agent of the manifests: compares it, and any agent read before that waited for it. */
  agentRead(agent: DesiredAgent, live: Agent): void {
    const settledFiles = this.differ.agentRead(agent, live);
    this.agentsWaiting.set(agent.localName, { agent, live });
    // Agents read before wait only for files: none settled, none of them can be compared yet.
    this.compareWaitingAgents(settledFiles ? this.agentsWaiting.keys() : [agent.localName]);
  }

  /** Compares each of these agents read whose knowledge files are all compared. */
  private compareWaitingAgents(localNames: Iterable<string> = this.agentsWaiting.keys()): void {
    for (const localName of [...localNames]) {
      if (this.planned.full) return;
      const waiting = this.agentsWaiting.get(localName);
      if (!waiting) continue;
      const { agent, live } = waiting;
      if (!this.differ.filesCompared(agent)) continue;
      this.agentsWaiting.delete(localName);
      const change = this.differ.agent(agent, live);
      this.agentsDone.set(localName, { live, change });
      // An update the service would refuse, or one past what a plan sends, is a plan problem (`diffStates`): no block is made of it, nor its prompt's line diff.
      if (this.planned.add(planSizes(change)) === undefined) this.onChange?.(change);
      const phones = this.phonesWaiting.get(localName);
      this.phonesWaiting.delete(localName);
      for (const phone of phones ?? []) this.phoneNow(phone);
    }
  }

  /**
   * Compares each phone whose agent's change is known now; the others wait for it. A phone neither
   * on the account nor importable is left to `finish`, which reports it.
   */
  phonesRead(phones: Phone[]): void {
    this.livePhones = { list: phones, byNumber: new Map(phones.map((phone) => [phone.id, phone])) };
    for (const phone of this.differ.context.desired.phones.values()) {
      const localName = phone.agent?.localName;
      if (localName === undefined || this.agentsDone.has(localName)) {
        this.phoneNow(phone);
        continue;
      }
      const waiting = this.phonesWaiting.get(localName);
      if (waiting) waiting.push(phone);
      else this.phonesWaiting.set(localName, [phone]);
    }
  }

  /** The whole diff against `live`, reusing each change made early from these very answers. */
  finish(live: LiveState): { changes: ResourceChange[]; problems: PlanProblem[] } {
    // An agent attaching a file with an agent that went unread: compared now, still told of.
    this.differ.endFileChecks();
    this.compareWaitingAgents();
    return diffStates({ ...this.differ.context, live }, this.differ, {
      agent: (agent, answer) => {
        const done = this.agentsDone.get(agent.localName);
        return done?.live === answer ? done.change : undefined;
      },
      phone: (phone, list, agentChange) => {
        const done = this.phonesDone.get(phone.address);
        return done && done.list === list && done.agentChange === agentChange ? done.change : undefined;
      },
    });
  }

  private phoneNow(phone: DesiredPhone): void {
    const phones = this.livePhones;
    if (!phones) return;
    const live = phones.byNumber.get(phone.number);
    if (!live && !phone.import) return;
    const localName = phone.agent?.localName;
    const agentChange = localName === undefined ? undefined : this.agentsDone.get(localName)?.change;
    const change = this.differ.phone(phone, live, agentChange);
    this.phonesDone.set(phone.address, { list: phones.list, agentChange, change });
    this.onChange?.(change);
  }
}
