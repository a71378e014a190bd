import { VoxformError } from '../../errors.js';
import type { CreateApiKeyRequest } from '../../schema/types.gen.js';
import { resolveConnection } from '../connection.js';
import { printable } from '../../util/printable.js';
import type { CommandContext, ConnectionOptions } from '../context.js';

interface KeysCreateOptions extends ConnectionOptions {
  type: 'private' | 'public';
  name?: string;
}

/** The longest name a key may have, in characters: the service's (`CreateApiKeyRequest.name` in schemas/service.schema.json). */
export const MAX_KEY_NAME_LENGTH = 100;

/**
 * `voxform keys create`: the key alone goes to stdout (`> key.txt` captures it), its id to stderr. It is
 * never registered as a secret of this run, which would redact it from stdout.
 */
export async function run(options: KeysCreateOptions, ctx: CommandContext): Promise<number> {
  const length = options.name === undefined ? 0 : [...options.name].length;
  if (length > MAX_KEY_NAME_LENGTH) {
    throw new VoxformError('invalid_option', `--name is ${length} characters long; a key's name has at most ${MAX_KEY_NAME_LENGTH}.`, { hint: 'Give a shorter --name.' });
  }
  const { client } = await resolveConnection(options, ctx);
  const body: CreateApiKeyRequest = { type: options.type };
  if (options.name !== undefined) body.name = options.name;
  const created = await client.createApiKey(body);
  ctx.stdout.write(`${created.key}\n`);
  const named = created.name ? ` "${created.name}"` : '';
  // One line: the name (anyone's text, as the service answers it) shows its line breaks escaped, not as a line of their own.
  ctx.stderr.write(`${printable(`Created ${created.type} key${named}: id ${created.id}, prefix ${created.prefix}.`)}\n`);
  ctx.stderr.write(
    created.type === 'private'
      ? 'It is shown only this once: store it now (e.g. as VOXFORM_API_KEY in your CI secrets).\n'
      : "It is shown only this once: store it now. A public key only starts sessions from a browser or an app (chat, SIP); voxform itself needs a private key as VOXFORM_API_KEY.\n",
  );
  return 0;
}
