/** `voxform schema`: the manifest JSON Schema, self-contained, for editors and other tools. */
import { bundleManifestSchema } from '../../schema/load.js';
import type { CommandContext } from '../context.js';

/** `voxform schema` takes no options of its own. */
type SchemaCommandOptions = Record<string, never>;

export async function run(_options: SchemaCommandOptions, ctx: CommandContext): Promise<number> {
  ctx.stdout.write(`${JSON.stringify(bundleManifestSchema(), null, 2)}\n`);
  return 0;
}
