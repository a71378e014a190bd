import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without type declarations
import { generateTypes } from '../../scripts/gen-types.mjs';
// @ts-expect-error: a plain .mjs build script without type declarations
import { generateValidators } from '../../scripts/gen-validators.mjs';
// @ts-expect-error: a plain .mjs build script without type declarations
import { generateManifestSchemaText } from '../../scripts/gen-manifest-schema.mjs';

async function onDisk(file: string): Promise<string> {
  return readFile(new URL(`../../src/schema/${file}`, import.meta.url), 'utf8');
}

describe('generated from schemas/ (run `npm run gen` after editing a schema)', () => {
  it('the agent-config definitions of schemas/manifest.schema.json are up to date', async () => {
    const onDiskSchema = await readFile(new URL('../../schemas/manifest.schema.json', import.meta.url), 'utf8');
    expect(onDiskSchema).toBe(await (generateManifestSchemaText as () => Promise<string>)());
  });

  it('src/schema/types.gen.ts is up to date', async () => {
    expect(await onDisk('types.gen.ts')).toBe(await (generateTypes as () => Promise<string>)());
  });

  it('src/schema/validators/ holds the generated validators, each up to date', async () => {
    const generated = await (generateValidators as () => Promise<Record<string, string>>)();
    expect((await readdir(new URL('../../src/schema/validators/', import.meta.url))).sort()).toEqual(Object.keys(generated).sort());
    for (const [file, text] of Object.entries(generated)) expect(await onDisk(`validators/${file}`), file).toBe(text);
  });
});
