/**
 * Deep merge, the one rule behind defaults, templates and environments: objects merge key by key,
 * anything else (strings, numbers, lists, null) in the overlay replaces what was under it. Lists
 * replace rather than concatenate because each list (tools, phrases, …) is one value on the
 * service. An explicit `null` in the overlay wins: it means "clear this field".
 *
 * Spans follow the values: a key set by the overlay points at the overlay's file, a key only the
 * base has points at the base's. Inputs are never modified; unchanged subtrees are shared.
 */
import { attachSpans, setOwn, spansOf, type EntrySpans, type PathPart } from './positions.js';
import { isPlainObject } from '../util/json-object.js';

export function deepMerge(base: unknown, overlay: unknown): unknown {
  if (overlay === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(overlay)) return overlay;
  const out: Record<string, unknown> = {};
  const baseSpans = spansOf(base);
  const overlaySpans = spansOf(overlay);
  const entries = new Map<PathPart, EntrySpans>();
  for (const key of Object.keys(base)) {
    setOwn(out, key, base[key]);
    const entry = baseSpans?.entries.get(key);
    if (entry) entries.set(key, entry);
  }
  for (const key of Object.keys(overlay)) {
    setOwn(out, key, Object.hasOwn(base, key) ? deepMerge(base[key], overlay[key]) : overlay[key]);
    const entry = overlaySpans?.entries.get(key);
    if (entry) entries.set(key, entry);
  }
  const self = overlaySpans?.self ?? baseSpans?.self;
  if (self) attachSpans(out, { self, entries });
  return out;
}
