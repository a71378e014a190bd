/**
 * An agent's `timezone`, checked against the IANA time zones the runtime knows. The service says
 * nothing of what it does with a name it does not know, so an unknown one is a warning, not an error.
 */
import { didYouMean } from '../util/did-you-mean.js';

let zoneNames: string[] | undefined;

/** Whether the runtime knows the zone: its canonical names and their aliases (`UTC`, `US/Eastern`). */
export function isKnownTimeZone(zone: string): boolean {
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
