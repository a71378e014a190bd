/**
 * An agent's `timezone`, checked against the IANA time zones the runtime knows. The service says
 * nothing of what it does with a name it does not know, so an unknown one is a warning, not an error.
 */
import { didYouMean } from '../util/did-you-mean.js';

let zoneNames: string[] | undefined;

/**
 * Each zone's verdict, made once: a project's agents share a few zones, and making a formatter to
 * ask costs as much as checking a whole agent.
 */
const verdicts = new Map<string, boolean>();

/** Whether the runtime knows the zone: its canonical names and their aliases (`UTC`, `US/Eastern`). */
export function isKnownTimeZone(zone: string): boolean {
  let known = verdicts.get(zone);
  if (known === undefined) {
    known = formats(zone);
    verdicts.set(zone, known);
  }
  return known;
}

function formats(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The known zone `zone` is most likely a slip of (`America/New_York` for `America/NewYork`). */
export function closestTimeZone(zone: string): string | undefined {
  // The canonical names leave out UTC, which the runtime lists under Etc/.
  zoneNames ??= [...Intl.supportedValuesOf('timeZone'), 'UTC'];
  return didYouMean(zone, zoneNames);
}
