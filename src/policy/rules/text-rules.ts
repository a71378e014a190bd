/** Rules made of one search over texts: the first match in each text is reported, with how many there are. */
import type { TextPlace } from '../places.js';
import type { RuleHit } from '../types.js';
import { inSlice } from '../../util/sync-slices.js';

/**
 * A hit for every text that `find` finds something in, at the first match. Each text is searched in
 * a slice of its own (sync-slices.ts): a pull request's texts may be many and long, and Ctrl-C is
 * served between them.
 */
export async function textHits(places: readonly TextPlace[], find: (text: string) => number[], describe: (count: number, place: TextPlace) => string): Promise<RuleHit[]> {
  const found = await Promise.all(places.map((place) => inSlice(() => find(place.text))));
  const hits: RuleHit[] = [];
  places.forEach((place, index) => {
    const offsets = found[index] as number[];
    if (offsets.length === 0) return;
    hits.push({ resource: place.resource, message: describe(offsets.length, place), location: place.at(offsets[0] as number) });
  });
  return hits;
}

/** Offsets of every match of a global pattern whose match `accept` takes. */
export function matchOffsets(pattern: RegExp, accept: (match: string) => boolean = () => true): (text: string) => number[] {
  return (text) => {
    const offsets: number[] = [];
    for (const match of text.matchAll(pattern)) if (accept(match[0])) offsets.push(match.index);
    return offsets;
  };
}
