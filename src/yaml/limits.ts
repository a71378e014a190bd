/**
 * What a YAML file from the repository may make voxform spend, for every reader of YAML: the
 * manifest loader (both of its parsers), conversation test files, templates, `fmt` and traffic
 * profiles. Each limit has a diagnostic of its own (docs/manifest.md, "Limits"). This module loads
 * nothing, so the fast reader can use it without loading the yaml library.
 */

/**
 * Collections inside collections, aliases expanded (`yaml_too_deep`). Real manifests nest about 10
 * deep; every later step (merging, interpolation, schema checks) walks values recursively.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * Tokens (keys, values, punctuation) a YAML file may have, `yaml_too_large`. The general parser
 * (anchors, aliases, tags, multi-line flow, errors) keeps a full document model: about 400 bytes
 * of memory per token, 200 MB at this limit; the fast reader stops at as many values. The
 * thousand-agent manifest of bench/validate.mjs (1.5 MB) has 388,000 tokens.
 */
export const MAX_YAML_TOKENS = 500_000;

/**
 * Aliases (`*name`) expanded per document (`yaml_alias_limit`), as the yaml library's own
 * `maxAliasCount` guards its `toJS` (the loader converts nodes itself, to keep their positions).
 */
export const MAX_ALIAS_EXPANSIONS = 10_000;

/**
 * Values produced by alias expansion per document (`yaml_alias_limit`): a few aliases of a large
 * anchor ("billion laughs") are as costly as many aliases of a small one.
 */
export const MAX_ALIAS_EXPANDED_VALUES = 100_000;
