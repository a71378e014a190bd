import { describe, expect, it } from 'vitest';
import { madeElsewhere } from '../../src/plan/plan-file.js';

describe('a saved plan refused as made elsewhere', () => {
  it('names the plan command its caller passes (the CLI: the run\'s own manifests, environment and service)', () => {
    const refusal = madeElsewhere({ base_url: 'local', made_in: undefined }, { serviceId: 'https://api-west.millis.ai', planCommand: "voxform plan --out 'my plan.json' -f p.yaml" });
    expect(refusal?.hint).toBe("Apply it where it was made, or run `voxform plan --out 'my plan.json' -f p.yaml` here, review it, and apply the new plan.");
  });

  it('names `voxform plan --out FILE` by default (a library caller)', () => {
    const refusal = madeElsewhere({ base_url: 'local', made_in: undefined }, { serviceId: 'https://api-west.millis.ai' });
    expect(refusal?.hint).toBe('Apply it where it was made, or run `voxform plan --out FILE` here, review it, and apply the new plan.');
  });
});
