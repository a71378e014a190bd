/**
 * The state file's bytes: exactly `${JSON.stringify(state, null, 2)}\n` in UTF-8, built from the
 * bytes kept for each resource entry (`agents`, `phones`, … of every workspace). Apply writes the
 * state after its changes, several times a second; at 5,000 agents it is 5 MB, and serializing and
 * encoding it whole took 60–100 ms each time (1.4 s of a 5,000-agent apply's profile, with the
 * event loop held while answers waited). Between two writes only the entries of the changes that
 * succeeded are new objects (an entry is always replaced, never changed in place: see
 * src/apply/record-state.ts), so a write encodes those and copies the rest.
 *
 * An entry is frozen once its bytes are kept: code changing one in place would otherwise write a
 * stale state file without a word; frozen, it fails at once.
 */
import type { StateFile } from './types.js';

/** The maps of a workspace whose values are resource entries. */
const ENTRY_MAPS = new Set(['agents', 'phones', 'campaigns', 'knowledge', 'credentials']);

/** Where a value sits in the state, for which objects are written member by member and which are entries. */
type Role = 'state' | 'workspaces' | 'workspace' | 'entries' | 'value';

function roleOf(parent: Role, key: string): Role {
  if (parent === 'state') return key === 'workspaces' ? 'workspaces' : 'value';
  if (parent === 'workspaces') return 'workspace';
  if (parent === 'workspace') return ENTRY_MAPS.has(key) ? 'entries' : 'value';
  return 'value';
}

const kept = new WeakMap<object, { key: string; indent: string; bytes: Buffer }>();

export function stateFileBytes(state: StateFile): Buffer {
  const out = new Output();
  write(out, state, '', 'state');
  out.text('\n');
  return out.bytes();
}

/** Text and kept bytes, in order. */
class Output {
  private readonly parts: Buffer[] = [];
  private pending = '';

  text(text: string): void {
    this.pending += text;
  }

  buffer(bytes: Buffer): void {
    this.flush();
    this.parts.push(bytes);
  }

  bytes(): Buffer {
    this.flush();
    return Buffer.concat(this.parts);
  }

  private flush(): void {
    if (this.pending !== '') this.parts.push(Buffer.from(this.pending));
    this.pending = '';
  }
}

function write(out: Output, value: unknown, indent: string, role: Role): void {
  if (role === 'value' || !isWrittenMemberwise(value)) {
    out.text(indented(JSON.stringify(value, null, 2), indent));
    return;
  }
  const keys = Object.keys(value).filter((key) => !isLeftOut(value[key]));
  if (keys.length === 0) {
    out.text('{}');
    return;
  }
  const inner = `${indent}  `;
  out.text('{');
  if (role === 'entries') {
    const separator = Buffer.from(`,\n${inner}`);
    keys.forEach((key, i) => {
      if (i === 0) out.text(`\n${inner}`);
      else out.buffer(separator);
      out.buffer(memberBytes(key, value[key], inner));
    });
  } else {
    keys.forEach((key, i) => {
      out.text(`${i > 0 ? ',' : ''}\n${inner}${JSON.stringify(key)}: `);
      write(out, value[key], inner, roleOf(role, key));
    });
  }
  out.text(`\n${indent}}`);
}

/** A plain object JSON.stringify writes member by member (not an array, nothing with its own toJSON). */
function isWrittenMemberwise(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** What JSON.stringify leaves out of an object: undefined, functions, symbols, and what a toJSON turns into one. */
function isLeftOut(value: unknown): boolean {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return true;
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function' && JSON.stringify(value) === undefined;
}

/** JSON.stringify's lines after the first, moved right by `indent` (a string's own line breaks are escaped, so every break is layout). */
function indented(json: string, indent: string): string {
  return indent === '' ? json : json.replaceAll('\n', `\n${indent}`);
}

/** `"key": value` of an entry map's member, as JSON.stringify lays it out at `indent`: kept with the entry. */
function memberBytes(key: string, entry: unknown, indent: string): Buffer {
  if (!isWrittenMemberwise(entry)) return Buffer.from(`${JSON.stringify(key)}: ${indented(JSON.stringify(entry, null, 2), indent)}`);
  const known = kept.get(entry);
  if (known && known.key === key && known.indent === indent) return known.bytes;
  const bytes = Buffer.from(`${JSON.stringify(key)}: ${indented(JSON.stringify(entry, null, 2), indent)}`);
  deepFreeze(entry);
  kept.set(entry, { key, indent, bytes });
  return bytes;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
