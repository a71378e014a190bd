import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without type declarations
import { generateTypes } from '../../scripts/gen-types.mjs';

describe('src/schema/types.gen.ts', () => {
  it('is what `npm run gen` makes from schemas/ (run it after editing a schema)', async () => {
    const onDisk = await readFile(new URL('../../src/schema/types.gen.ts', import.meta.url), 'utf8');
    expect(onDisk).toBe(await (generateTypes as () => Promise<string>)());
  });
});
