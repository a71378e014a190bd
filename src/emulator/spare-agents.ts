/**
 * The agents the emulator's default seed has spare, for a new project (`voxform init`) to adopt one
 * and try things with --local. A module of its own that imports nothing: init, templates and the
 * help name them without loading the emulator.
 */
export const SPARE_AGENT_IDS = ['-OKspareAgent0000001', '-OKspareAgent0000002', '-OKspareAgent0000003', '-OKspareAgent0000004', '-OKspareAgent0000005'] as const;

/** All of them at once, as help and hints write it. */
export const SPARE_AGENT_RANGE = `${SPARE_AGENT_IDS[0]} to ${SPARE_AGENT_IDS[SPARE_AGENT_IDS.length - 1]}`;

export function isSpareAgentId(agentId: string): boolean {
  return (SPARE_AGENT_IDS as readonly string[]).includes(agentId);
}
