/**
 * Lists kept in a map by key (the agents that attach a file, the entries of one id). A value is
 * added in place: copying the list at every value made a key that many values share (a file every
 * agent attaches, a planted record of thousands of agents under one id) cost the square of their number.
 */

/** Adds `value` at the end of the list `lists` holds at `key`, starting it when there is none. */
export function addToList<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [value]);
  else list.push(value);
}
