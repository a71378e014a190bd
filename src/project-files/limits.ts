/**
 * What the repository's files may make voxform spend: `voxform plan` reads a pull request's manifest
 * in CI before review, so every resource it can make voxform spend is capped, each cap with its own
 * diagnostic (docs/manifest.md, "Limits"). The caps leave a wide margin over real manifests while
 * keeping the worst input within seconds and a few hundred MB.
 */
/** A manifest or template YAML file, bytes (`file_too_large`). */
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/**
 * All the manifest files of one load together, bytes (`file_too_large`): each file's text is kept
 * until the load ends (code frames), and the YAML token total does not see comments, so files each
 * within the cap above and parsing to little would otherwise grow memory with their number. Several
 * times what ten thousand agents (the most of a kind a manifest holds) take.
 */
export const MAX_MANIFEST_BYTES_PER_LOAD = 128 * 1024 * 1024;

/** A prompt file, bytes (`file_too_large`). A prompt is read into memory and sent in every agent update. */
export const MAX_PROMPT_FILE_BYTES = 2 * 1024 * 1024;

/** All prompt files of one environment together, bytes (`file_too_large`): they are held in memory until the plan is made. */
export const MAX_PROMPT_BYTES_TOTAL = 32 * 1024 * 1024;

/**
 * A knowledge file, bytes (`file_too_large`): also the largest the upload sends (checked first, rather
 * than a cryptic refusal from the storage), so plan fails where apply would.
 */
export const MAX_KNOWLEDGE_FILE_BYTES = 50 * 1024 * 1024;

/**
 * One text as voxform fills it in — a string of a manifest or template, or a template's prompt, once its
 * `{{variables}}` and `${env:…}` references are replaced — characters (`text_too_long`). A few bytes of
 * `{{name}}` can stand for a long value, so the length is counted from the pieces before the text is
 * built. No longer text fits in the update that sends it (MAX_REQUEST_BODY_BYTES in api/http.ts).
 */
export const MAX_FILLED_TEXT_CHARS = 1024 * 1024;

/**
 * All the texts one load fills in, together, characters (`text_too_long`): each agent may stay under
 * the cap above and ten thousand of them would not. Twice the prompt files' budget: a template's
 * prompt is filled in once for every agent that uses it (a thousand 20 KB prompts are 20 million).
 */
export const MAX_FILLED_TEXT_CHARS_TOTAL = 64 * 1024 * 1024;

/**
 * What the agents' updates of one plan and the live values they replace come to together, bytes of
 * JSON as a plan prints it (`plan_too_large`, a plan problem; a character printed escaped counts as
 * its escape, `\u0085` six). A prompt file is read once however many agents use it, but each agent's
 * update sends it, and the plan diffs, holds and prints each: one file named by thousands of agents
 * would need gigabytes. Twice the prompt files' budget, as a rewrite of every agent's own prompt
 * counts its new text and the live text it replaces.
 */
export const MAX_PLAN_UPDATE_BYTES = 64 * 1024 * 1024;

/**
 * The work a line diff may take, as the lines of both texts times the lines it may find added or
 * removed: the diff's time grows with both, so two long texts with little in common (a prompt
 * rewritten whole) held a plan, and Ctrl-C, for minutes. Texts of 2,000 lines in all always get
 * their line diff, however much they differ; longer ones while their lines times the lines changed
 * stay within it. Past it the field reads as replaced whole (`replacedWhole`,
 * src/plan/field-lines.ts).
 */
export const LINE_DIFF_WORK = 4_000_000;

/**
 * The work the line diffs of one output may take together (a plan as printed or posted, a drift
 * report, an environment diff; `LineDiffBudget`, src/plan/field-lines.ts), counted as
 * `LINE_DIFF_WORK` is: a field within its own budget is quick, but a pull request gives a plan as
 * many such fields as it has agents. Ten fields at their own budget; a field's diff is charged for
 * the lines it found changed, so the small edits of thousands of agents stay far within it.
 */
export const LINE_DIFF_WORK_PER_OUTPUT = 10 * LINE_DIFF_WORK;

/**
 * What the line diffs of one output may show together, characters, each line counting
 * `LINE_SHOWN_COST` more: a million empty lines, or 64 million characters. A text set from one line
 * needs no search, so no work budget cuts it, and each line it shows is an object and a printed
 * line many times the two bytes (`\n` in JSON) it costs an update; the live side of a change (a
 * committed `.voxform/local.json` under `--local`) costs the update nothing at all. Far more than
 * anyone reads.
 */
export const LINE_DIFF_SHOWN_PER_OUTPUT = 64_000_000;

/** What a line shown counts for beyond its characters: the object and the printed line's indent and marker. */
export const LINE_SHOWN_COST = 64;

/**
 * What a filled-in `${env:…}` value counts for against the two limits above, at least, characters: so
 * whether a text is refused depends on how many references it holds, never on the length of a secret
 * of this length or less, which the pull request that writes the text would otherwise read off the
 * verdict; a longer value counts as the least power of two times this that holds it (interpolate.ts).
 */
export const MIN_FILLED_ENV_VALUE_CHARS = 1024;

/** Resources of one kind (agents, phones, campaigns, knowledge files) in a manifest (`too_many_resources`). */
export const MAX_RESOURCES_PER_KIND = 10_000;

/**
 * Environments the manifests may define (`too_many_environments`): `validate` checks each one in a
 * load of its own, every resource and overlay again. Real projects have a handful, a few dozen at most.
 */
export const MAX_ENVIRONMENTS = 100;

/**
 * Environments × resources of the manifests (`too_many_environments`): what `validate`'s loads of
 * every environment resolve together, ten loads of the largest manifest (10,000 resources).
 */
export const MAX_ENVIRONMENT_RESOURCE_LOADS = 100_000;

/**
 * The state file and the embedded emulator's data file, bytes (kept-files.ts): a committed
 * `.voxform/` is the pull request's. V8 cannot hold a string of twice this cap.
 */
export const MAX_KEPT_FILE_BYTES = 256 * 1024 * 1024;

/**
 * One history record (`.voxform/history/*.json`, or a row), bytes; a larger file is skipped like any
 * foreign one, and voxform never writes one (src/history/stored-record.ts). A record holds every agent
 * of the manifests with its configuration and prompt: the state file's cap.
 */
export const MAX_HISTORY_RECORD_BYTES = MAX_KEPT_FILE_BYTES;

/** A lock's holder file, bytes: who holds it, a few hundred bytes as voxform writes it. */
const MAX_LOCK_HOLDER_BYTES = 64 * 1024;

/* What a kept file's JSON may make voxform build, by kind: the size caps do not bound memory (`{}` is 3 bytes of text). */

/** Objects and arrays inside one another in any kept file (the emulator's data holds request bodies up to 64 deep). */
export const MAX_KEPT_JSON_DEPTH = 128;

/**
 * Values in the state (file or database row): an agent's entry holds one per managed field and three
 * more. voxform never writes a state past it (state-file.ts).
 */
export const MAX_STATE_JSON_VALUES = 2_000_000;

/**
 * Values in one history record: the resources a manifest may hold, each recorded with up to 400 (an
 * agent with six tools of five parameters each records about 250). voxform never writes a record past
 * it (src/history/stored-record.ts): an apply of larger configurations says it was not recorded.
 */
export const MAX_HISTORY_RECORD_JSON_VALUES = MAX_RESOURCES_PER_KIND * 400;

/**
 * JSON values all the history records one store reads may hold together (src/history/file-store.ts,
 * docs/history.md#where-records-are-kept): each record has its own budget, and a pull request can
 * commit any number of them. Twice a record's, so the largest record can be walked and then read again whole.
 */
export const MAX_HISTORY_JSON_VALUES_PER_RUN = 2 * MAX_HISTORY_RECORD_JSON_VALUES;

/** Values in a lock's holder file: voxform writes seven. */
const MAX_LOCK_HOLDER_JSON_VALUES = 1_000;

/**
 * What readKeptJson may read of a lock's holder file (src/state/lock.ts), and of an emulator data
 * file's user entry, which names its process the same way (src/emulator/data-file-users.ts).
 */
export const LOCK_HOLDER_JSON_LIMITS = { maxBytes: MAX_LOCK_HOLDER_BYTES, maxValues: MAX_LOCK_HOLDER_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH };

/** Values in a saved plan (`voxform plan --out`): each change carries its before, after and requests. */
export const MAX_PLAN_JSON_VALUES = 4_000_000;

/** Values in the embedded emulator's data file: a synthetic call holds about 37. */
export const MAX_EMULATOR_DATA_JSON_VALUES = 10_000_000;

/** Diagnostics kept per load; past it they are only counted. */
export const MAX_DIAGNOSTICS_KEPT = 1_000;

/**
 * Policy findings kept per run (and waived findings apart); past it they are only counted, so a
 * summary still counts every one. Team rules with a wildcard path find rules × values.
 */
export const MAX_FINDINGS_KEPT = 1_000;

/**
 * Checks every team rule of one run may make together (src/policy/check-budget.ts): 10,000 agents
 * with fifty rules of exact paths make about two million per manifest or environment checked, far below it.
 */
export const RULE_CHECK_BUDGET = 10_000_000;

/**
 * How long one check of an operator pack's rule may take, ms, and loading a pack's module too: a
 * check reads the manifests a pull request wrote, and a check or a module whose promise never
 * settles (a request sent without a time-out, a forgotten `resolve`, a top-level `await` on a long
 * timer) would otherwise hold `validate` and `plan` forever. Past it the run stops with
 * `policy_pack_invalid` naming the pack (and the rule), as for a check that throws. Far above what a
 * check over the largest manifest takes (a rule of the built-in pack takes milliseconds).
 */
export const PACK_CHECK_TIME_LIMIT_MS = 60_000;

/** Diagnostics printed per run; the rest are summed up in one line ("…and 4,950 more"). */
export const MAX_DIAGNOSTICS_SHOWN = 50;
