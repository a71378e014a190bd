/**
 * Deep merge, the one rule behind defaults, templates and environments: objects merge key by key,
 * anything else in the overlay replaces what was under it. Lists replace, since each is one value on
 * the service; an explicit `null` wins ("clear this field"). Spans follow the values; inputs are
 * never modified, unchanged subtrees shared.
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
