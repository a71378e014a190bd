import type { Plan, ResourceChange } from '../../src/plan/types.js';

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
