/**
 * Sensitive-path patterns (`tools[].header`, `session_data_webhook.headers`, `tools.0.webhook`)
 * split once, then matched against many paths: the ledger checks every node of every agent's
 * configuration, so splitting each pattern again for each node (as `pathMatchesPattern` does)
 * would cost more than the hashing itself on a thousand agents.
 */
type PathPart = string | number;

/** Whether a path is at or under one of `patterns` (the same rules as `pathMatchesPattern`). */
export function pathPatternMatcher(patterns: readonly string[]): (path: readonly PathPart[]) => boolean {
  const compiled = patterns.map((pattern) => pattern.match(/[^.[\]]+|\[\]/g) ?? []);
  return (path) =>
    compiled.some(
      (parts) =>
        parts.length <= path.length &&
        parts.every((part, i) => {
          const actual = path[i];
          if (part === '[]') return typeof actual === 'number';
          if (part === '*') return typeof actual === 'string';
          return String(actual) === part;
        }),
    );
}
