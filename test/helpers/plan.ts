import type { DesiredAgent } from '../../src/manifest/types.js';
import { createPlan } from '../../src/plan/create-plan.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredState } from './desired.js';

/**
 * A plan around `changes` for renderer tests: fixed metadata, a summary counting every change as
 * an update unless `extra` says otherwise.
 */
export function planOf(changes: ResourceChange[], extra: Partial<Plan> = {}): Plan {
  return {
    formatVersion: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    manifestHash: 'sha256:m',
    files: ['voxform.yaml'],
    environment: undefined,
    baseUrl: 'local',
    targets: [],
    changes,
    summary: { create: 0, update: changes.length, unchanged: 0, drifted: 0 },
    ...extra,
  };
}

/**
 * `createPlan` of `agents` against a service holding `livePrompts` (by agent id; an agent without one
 * is not on the service), no state and no files; each change made early is pushed to `made`.
 */
export function planAgainstPrompts(agents: DesiredAgent[], livePrompts: ReadonlyMap<string, string>, made: ResourceChange[]) {
  const live = new Map([...livePrompts].map(([id, prompt]) => [id, { id, name: id, config: { prompt }, created_at: 1 }]));
  return createPlan({
    desired: desiredState({ agents }),
    client: { getAgent: async (id) => live.get(id)!, listPhones: async () => [] },
    workspace: emptyWorkspace(),
    salt: 'salt',
    baseUrl: 'local',
    files: [],
    targets: [],
    onChange: (change) => made.push(change),
  });
}
