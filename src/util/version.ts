import { readFileSync } from 'node:fs';

let version: string | undefined;

/** voxform's version, as its package.json gives it; read at the first call, so that importing this reads no file. */
export function voxformVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
