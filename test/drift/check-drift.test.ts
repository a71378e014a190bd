import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDrift, type DriftCheckOptions } from '../../src/index.js';
import { apply } from '../../src/apply/apply.js';
import { SPARE_AGENT_IDS } from '../../src/emulator/spare-agents.js';
import type { DesiredAgent } from '../../src/manifest/types.js';
import { startLibraryService } from '../helpers/library-service.js';

describe('checkDrift of the library', () => {
  it('checks the whole workspace: `targets` (not in its options) from a plain JS caller is not read, as `voxform drift` has no --target', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const options: DriftCheckOptions = { desired, client, stateFile: path.join(dir, 'state.json'), serviceId: 'local', fingerprintKey: key };
    const whole = await checkDrift(options);
    expect(whole.resources.length).toBeGreaterThan(1);
    const first = whole.resources[0]?.address as string;
    const heard: string[] = [];
    const untyped = { ...options, targets: [first], onChange: (change: { address: string }) => heard.push(change.address) };
    const report = await checkDrift(untyped as DriftCheckOptions);
    expect(report.resources.map((resource) => resource.address)).toEqual(whole.resources.map((resource) => resource.address));
    expect(report.summary).toEqual(whole.summary);
    expect(heard).toEqual([]);
  });

  it('reports an agent whose key now names another id as not applied yet, not as changed outside voxform', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const options: DriftCheckOptions = { desired, client, stateFile: path.join(dir, 'state.json'), serviceId: 'local', fingerprintKey: key };
    await apply({ ...options, client, autoApprove: true });
    const frontDesk = desired.agents.get('front-desk') as DesiredAgent;
    const agents = new Map(desired.agents).set('front-desk', { ...frontDesk, id: SPARE_AGENT_IDS[0] });
    const report = await checkDrift({ ...options, desired: { ...desired, agents, phones: new Map() } });
    expect(report.resources.find((resource) => resource.address === 'agent.front-desk')?.class).toBe('pending');
    expect(report.summary).toMatchObject({ outside: 0 });
  });
});
