import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDrift, type DriftCheckOptions } from '../../src/index.js';
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
});
