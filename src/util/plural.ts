/**
 * Counted nouns, said one way everywhere: "1 agent", "2 agents", "1,000 calls". Irregular plurals
 * are given (`plural(n, 'reply', 'replies')`); never write "(s)".
 */

/** The noun alone, in the number `count` asks for. */
export function pluralNoun(count: number, one: string, many = `${one}s`): string {
  return count === 1 ? one : many;
}

/** The count and its noun: "1 agent", "2 agents", "1,000 calls". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${pluralNoun(count, one, many)}`;
}
