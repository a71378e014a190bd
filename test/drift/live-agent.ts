/**
 * The example project's front desk as the service holds it, read and edited as a dashboard would:
 * what the drift tests change behind voxform's back.
 */
import type { Agent } from '../../src/schema/types.gen.js';
import { callService, type ExampleProject } from '../helpers/project.js';

type Json = Record<string, unknown>;

/** The example project's front desk (its id in agents.example.yaml). */
export const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

export async function getAgent(p: ExampleProject): Promise<Agent> {
  return (await callService(p, 'GET', `/agents/${encodeURIComponent(FRONT_DESK)}`)) as Agent;
}

/** Changes the live agent as a dashboard would: `change` edits a copy of its config in the update shape. */
export async function editLive(p: ExampleProject, change: (config: Json) => void): Promise<void> {
  const live = await getAgent(p);
  const config = structuredClone(live.config) as Json;
  // Read-only fields are not part of an update.
  delete (config.voice as Json | undefined)?.provider;
  delete ((config.flow as Json | undefined)?.voicemail as Json | undefined)?.action;
  delete (config.llm as Json | undefined)?.model;
  delete (config.speech_to_text as Json | undefined)?.provider;
  change(config);
  await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: live.name, config });
}
