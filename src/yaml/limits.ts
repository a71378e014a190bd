/**
 * What a YAML file from the repository may make voxform spend, for every reader of YAML. This
 * module loads nothing, so the fast reader can use it without loading the yaml library.
 */

/** Collections inside collections, aliases expanded (`yaml_too_deep`): later steps walk values recursively. */
export const MAX_NESTING_DEPTH = 64;

/**
 * Tokens a YAML file may have (`yaml_too_large`): each key, value and mark (`:`, `-`, `,`, brackets,
 * `|`, `---`, anchors, tags) and each line. Both readers count the same tokens (documents.ts
 * yamlTokenCount; parse-yaml-subset.ts), so a file's verdict never depends on which read it. The count
 * bounds the general parser, which keeps a full document model, a few hundred bytes per token: the
 * rest of what it reads (spaces, comments, line ends) is at most a few per token.
 */
export const MAX_YAML_TOKENS = 500_000;

/**
 * Tokens the manifest files of one load may have together (`yaml_too_large`): every file's values are
 * kept until all are combined, so without it memory would grow with the number of files, each within
 * MAX_YAML_TOKENS. Twice what ten thousand agents (the most of a kind a manifest holds) take.
 */
export const MAX_YAML_TOKENS_PER_LOAD = 4_000_000;

/** Aliases (`*name`) expanded per document (`yaml_alias_limit`), as the yaml library's `maxAliasCount`. */
export const MAX_ALIAS_EXPANSIONS = 10_000;

/**
 * Values produced by alias expansion per document (`yaml_alias_limit`): a few aliases of a large
 * anchor ("billion laughs") are as costly as many aliases of a small one.
 */
export const MAX_ALIAS_EXPANDED_VALUES = 100_000;

/**
 * Characters of text produced by alias expansion per document (`yaml_alias_limit`): an alias of a
 * long text costs one value but is that text again wherever the value is sent or printed, so 1,200
 * aliases of a 500,000-character text in a 0.5 MB file would be 600 million characters in every
 * request that carries them. As much as the longest text a manifest may fill in, and a test file.
 */
export const MAX_ALIAS_EXPANDED_CHARACTERS = 1_048_576;

/**
 * Where block nesting first passes MAX_NESTING_DEPTH, told by indentation alone: the offset of that
 * line's first character. The general parser runs out of stack further in, wherever its stack happens
 * to end, so its place is not the one to show. Undefined where no block nests so deep: a flow
 * collection nests within a line, where the parser's place is right.
 */
export function blockNestingPastLimitAt(text: string): number | undefined {
  const indents: number[] = [];
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    let at = start;
    while (text.charCodeAt(at) === 32) at++;
    if (at < end && text[at] !== '#' && text[at] !== '\r') {
      const indent = at - start;
      while (indents.length > 0 && (indents[indents.length - 1] as number) >= indent) indents.pop();
      indents.push(indent);
      if (indents.length > MAX_NESTING_DEPTH) return at;
    }
    start = end + 1;
  }
  return undefined;
}
