/**
 * Deep merge, the one rule behind defaults, templates and environments: objects merge key by key,
 * anything else in the overlay replaces what was under it. Lists replace, since each is one value on
 * the service; an explicit `null` wins ("clear this field"). Spans follow the values; inputs are
 * never modified, unchanged subtrees shared.
 */
import { attachSpans, LayeredEntries, spansOf } from './positions.js';
import { isPlainObject, setOwn } from '../util/json-object.js';

export function deepMerge(base: unknown, overlay: unknown): unknown {
  if (overlay === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(overlay)) return overlay;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(base)) setOwn(out, key, base[key]);
  for (const key of Object.keys(overlay)) setOwn(out, key, Object.hasOwn(base, key) ? deepMerge(base[key], overlay[key]) : overlay[key]);
  const baseSpans = spansOf(base);
  const overlaySpans = spansOf(overlay);
  const self = overlaySpans?.self ?? baseSpans?.self;
  if (self) attachSpans(out, { self, entries: new LayeredEntries(baseSpans?.entries, overlaySpans?.entries) });
  return out;
}
