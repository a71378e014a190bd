/** Rules made of one search over texts: the first match in each text is reported, with how many there are. */
import type { TextPlace } from '../places.js';
import type { RuleHit } from '../types.js';

/** A hit for every text that `find` finds something in, at the first match. */
export function textHits(places: readonly TextPlace[], find: (text: string) => number[], describe: (count: number, place: TextPlace) => string): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const place of places) {
    const offsets = find(place.text);
    if (offsets.length === 0) continue;
    hits.push({ resource: place.resource, message: describe(offsets.length, place), location: place.at(offsets[0] as number) });
  }
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
