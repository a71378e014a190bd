/** Rules made of one search over texts: the first match in each text is reported, with how many there are. */
import type { TextPlace } from '../places.js';
import type { RuleHit } from '../types.js';
import { inSlice } from '../../util/sync-slices.js';
import { perDistinctText } from '../distinct-texts.js';

/** The characters of text one job searches, at most (a longer text is a job of its own). */
const JOB_CHARACTERS = 16 * 1024;

/**
 * A hit for every text that `find` finds something in, at the first match. The texts are searched
 * in jobs of a few kilobytes (sync-slices.ts): a pull request's texts may be many and long, and
 * Ctrl-C is served between jobs; a job per text would cost more in promises than the search.
 * A text at many places is searched once (distinct-texts.ts); each place still gets its own hit.
 */
export async function textHits(places: readonly TextPlace[], find: (text: string) => readonly number[], describe: (count: number, place: TextPlace) => string): Promise<RuleHit[]> {
  const findOnce = perDistinctText(find);
  const jobs = await Promise.all(jobsOf(places).map((job) => inSlice(() => jobHits(job, findOnce, describe))));
  return jobs.flat();
}

/** The hits of one job's texts, in order. */
function jobHits(job: readonly TextPlace[], find: (text: string) => readonly number[], describe: (count: number, place: TextPlace) => string): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const place of job) {
    const offsets = find(place.text);
    if (offsets.length > 0) hits.push({ resource: place.resource, message: describe(offsets.length, place), location: place.at(offsets[0] as number) });
  }
  return hits;
}

/** `places` in order, in runs of at most JOB_CHARACTERS characters of text. */
function jobsOf(places: readonly TextPlace[]): TextPlace[][] {
  const jobs: TextPlace[][] = [];
  let job: TextPlace[] = [];
  let characters = 0;
  for (const place of places) {
    if (job.length > 0 && characters + place.text.length > JOB_CHARACTERS) {
      jobs.push(job);
      job = [];
      characters = 0;
    }
    job.push(place);
    characters += place.text.length;
  }
  if (job.length > 0) jobs.push(job);
  return jobs;
}

/** Offsets of every match of a global pattern whose match `accept` takes. */
export function matchOffsets(pattern: RegExp, accept: (match: string) => boolean = () => true): (text: string) => readonly number[] {
  return (text) => {
    const offsets: number[] = [];
    for (const match of text.matchAll(pattern)) if (accept(match[0])) offsets.push(match.index);
    return offsets;
  };
}
