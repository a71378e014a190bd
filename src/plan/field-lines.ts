/** How one field change reads in any format: `before → after` on one line, or a line diff for long values. */
import { structuredPatch } from 'diff';
import { LINE_DIFF_SHOWN_PER_OUTPUT, LINE_DIFF_WORK, LINE_DIFF_WORK_PER_OUTPUT, LINE_SHOWN_COST } from '../project-files/limits.js';
import { REDACTED } from '../secrets/redact.js';
import { plural, wordList } from '../util/plural.js';
import { withSortedKeys } from '../util/hash.js';
import { serializeAlike } from './compare.js';
import { liveSidePatterns, markChangedSecrets, redactValue, SECRET_CHANGED } from './redact.js';
import { environmentInProse } from '../state/types.js';
import { UNKNOWN_AFTER_APPLY, type FieldChange, type Plan, type ResourceChange } from './types.js';

type FieldMarker = '+' | '-' | '~';

export interface DiffLine {
  /** ' ' context, '-' removed, '+' added, '@' hunk header, '\' a note on what no line shows (as git's `\ No newline at end of file`), printed as the others: kind, then text. */
  kind: ' ' | '-' | '+' | '@' | '\\';
  text: string;
}

/**
 * How a drifting field is marked: in the words `voxform drift` uses for the same class (`outside`),
 * and saying nothing of the manifests, since a heal or a rollback plans a recorded configuration,
 * not theirs; there a field the manifests changed too is marked as well.
 */
export const DRIFT_NOTE = 'changed outside voxform';

export interface FieldView {
  path: string;
  /** '+' the field is newly set, '-' it is cleared, '~' it changes. */
  marker: FieldMarker;
  drift: boolean;
  /** One line: `"old" → "new"`, `(sensitive value changed)`; absent when `diff` says it. A field shown as written (`FieldChange.shown`) reads as any other value. */
  summary: string | undefined;
  /** Line diff for multi-line and structured values. */
  diff: DiffLine[] | undefined;
}

const INLINE_LIMIT = 80;

/** How a side that holds no value reads. */
export const UNSET_VALUE = '(unset)';

/** A structured value as JSON, keys in the one order both sides of a change are written in. */
function structureJson(value: unknown, indent?: number): string {
  // Keys sorted at every level: the two sides of a change come from different writers (the service's
  // read-back, a manifest in its author's order), and in their own orders the same fields would read
  // as removed on one side and added on the other.
  return JSON.stringify(value, withSortedKeys, indent);
}

function formatScalar(value: unknown): string {
  if (value === undefined) return UNSET_VALUE;
  if (value === null) return 'null';
  if (value === REDACTED || (typeof value === 'string' && value.startsWith(UNKNOWN_AFTER_APPLY))) return String(value);
  return structureJson(value);
}

/** Multi-line text of a value for a line diff: strings as they are, structures as indented JSON. */
function diffText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.endsWith('\n') ? value : `${value}\n`;
  return `${structureJson(value, 2)}\n`;
}

function needsLineDiff(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.includes('\n') || value.length > INLINE_LIMIT;
  return typeof value === 'object' && JSON.stringify(value).length > INLINE_LIMIT;
}

/** The most lines added and removed a line diff of texts of `lines` lines in all looks for. */
export function maxEditLines(lines: number): number {
  return Math.floor(LINE_DIFF_WORK / lines);
}

/** What showing `lines` lines of `characters` characters in all counts against `LINE_DIFF_SHOWN_PER_OUTPUT`. */
function shownSize(lines: number, characters: number): number {
  return characters + LINE_SHOWN_COST * lines;
}

/** What a field's diff may do within its output's budget (`LineDiffBudget.allowance`). */
interface DiffAllowance {
  /** The most lines added and removed it may look for. */
  maxEditLength: number;
  /** The output's budget, not the field's own, set `maxEditLength`. */
  cutByOutput: boolean;
  /** Its search gave up when the field was made before: made again, it reads as replaced whole at once, the dearest search not run twice for the same answer. */
  gaveUp: boolean;
  /** Charges what it found changed (its allowance when it gave up: `undefined`) and what it shows (`shownSize`): the first time only. */
  charge: (changed: number | undefined, shown: number) => void;
}

/**
 * What is left of an output's line diffs (`LINE_DIFF_WORK_PER_OUTPUT`, `LINE_DIFF_SHOWN_PER_OUTPUT`):
 * one for each output, shared by every field it shows. Past it a field reads as replaced whole, as
 * past its own budget. A field is given its allowance once, so an output that makes a field's view
 * again (a comment measures a section, then shows it) reads it the same and is not charged again,
 * nor searched again where its search gave up.
 */
export class LineDiffBudget {
  #work: number;
  #shown: number;
  /** What each field's diff was given; null: nothing, its texts were more than the output had left to show. */
  readonly #given = new WeakMap<FieldChange, Omit<DiffAllowance, 'charge'> | null>();

  constructor(total: { work?: number; shown?: number } = {}) {
    this.#work = total.work ?? LINE_DIFF_WORK_PER_OUTPUT;
    this.#shown = total.shown ?? LINE_DIFF_SHOWN_PER_OUTPUT;
  }

  /**
   * What the diff of `field`, of texts of `lines` lines and `characters` characters in all, may do;
   * undefined when the output has less left to show than both texts. `search`: it searches, within
   * its work; else it finds every line in one pass.
   */
  allowance(field: FieldChange, texts: { lines: number; characters: number }, search: boolean): DiffAllowance | undefined {
    const given = this.#given.get(field);
    if (given !== undefined) return given === null ? undefined : { ...given, charge: () => {} };
    const { lines } = texts;
    if (shownSize(lines, texts.characters) > this.#shown) {
      this.#given.set(field, null);
      return undefined;
    }
    const own = search ? maxEditLines(lines) : lines;
    const maxEditLength = search ? Math.min(own, Math.floor(this.#work / lines)) : own;
    const allowed = { maxEditLength, cutByOutput: maxEditLength < own, gaveUp: false };
    this.#given.set(field, allowed);
    return {
      ...allowed,
      charge: (changed, shown) => {
        if (changed === undefined) allowed.gaveUp = true;
        if (search) this.#work = Math.max(0, this.#work - lines * (changed ?? maxEditLength));
        this.#shown = Math.max(0, this.#shown - shown);
      },
    };
  }
}

function lineCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** A side of a line diff: its text, and how many lines it has. */
interface DiffSide {
  text: string;
  lines: number;
}

function diffSide(value: unknown): DiffSide {
  const text = diffText(value);
  return { text, lines: lineCount(text) };
}

/** A side's size as the replaced-whole line says it: `1,204 lines, 48,310 characters` (the line break `diffText` ends a text with not counted). */
function sideSize(side: DiffSide, value: unknown): string {
  const characters = typeof value === 'string' ? value.length : side.text.length;
  return `${plural(side.lines, 'line')}, ${plural(characters, 'character')}`;
}

/** Why a field is not shown line by line: its diff would take more than `LINE_DIFF_WORK`, or more than its output has left. */
type ReplacedWhole = 'differ too much' | 'output spent';

/** The line of a field that is not shown line by line (`ReplacedWhole`): what happened, how large, and where to see it. */
function replacedWhole(why: ReplacedWhole, before: { side: DiffSide; value: unknown }, after: { side: DiffSide; value: unknown }): string {
  const reason = why === 'differ too much' ? 'the texts differ too much to show line by line' : 'this output has shown as many line diffs as it may';
  return `(replaced whole: ${reason}, ${sideSize(before.side, before.value)} → ${sideSize(after.side, after.value)}; --format json holds both, to compare with a diff tool)`;
}

/** The line diff of `field`'s two sides, within its own budget and what is left of the output's `budget`; else why not. */
function lineDiff(field: FieldChange, before: DiffSide, after: DiffSide, budget: LineDiffBudget): DiffLine[] | ReplacedWhole {
  const lines = before.lines + after.lines;
  // Against a side of one line at most there is nothing to search (the other side's lines are
  // added around it, found in one pass): such a diff is cut short only by the lines it shows.
  const allowance = budget.allowance(field, { lines, characters: before.text.length + after.text.length }, Math.min(before.lines, after.lines) > 1);
  if (allowance === undefined) return 'output spent';
  const { maxEditLength, cutByOutput } = allowance;
  if (allowance.gaveUp) return cutByOutput ? 'output spent' : 'differ too much';
  const patch = structuredPatch('before', 'after', before.text, after.text, undefined, undefined, { context: 2, maxEditLength });
  const diff: DiffLine[] = [];
  let changed = 0;
  let shown = 0;
  for (const hunk of patch?.hunks ?? []) {
    diff.push({ kind: '@', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      const kind = line[0] as DiffLine['kind'];
      if (kind !== ' ') changed++;
      shown += shownSize(1, line.length);
      diff.push({ kind, text: line.slice(1) });
    }
  }
  allowance.charge(patch === undefined ? undefined : changed, shown);
  if (patch !== undefined) return diff;
  return cutByOutput ? 'output spent' : 'differ too much';
}

/**
 * The views of a change's field changes, secrets redacted, made anew on each call: a renderer keeps
 * what it prints of them, never the views, whose line diffs hold a prompt several times over. Their
 * line diffs are made within `budget`, the output's.
 */
export function fieldViews(change: ResourceChange, budget: LineDiffBudget): FieldView[] {
  return change.fieldChanges.map((field) => makeView(field, change, budget));
}

/** The view of one of `change`'s field changes, secrets redacted (`fieldViews`, for a renderer that shows some of them). */
export function fieldViewOf(field: FieldChange, change: ResourceChange, budget: LineDiffBudget): FieldView {
  return makeView(field, change, budget);
}

/** Written out whole: a spread per view is many times dearer, and a plan makes one per changed field. */
function fieldView(field: FieldChange, marker: FieldMarker, summary: string | undefined, diff: DiffLine[] | undefined): FieldView {
  return { path: field.path, marker, drift: field.drift, summary, diff };
}

function makeView(field: FieldChange, resource: ResourceChange, budget: LineDiffBudget): FieldView {
  const marker: FieldMarker = field.before === undefined ? '+' : field.after === null ? '-' : '~';
  // Shown as written (references unresolved) beside the live value: ready to print as any value is.
  if (field.shown) return valueView(field, marker, field.shown.before, markChangedSecrets(field.shown.after, field, resource.sensitivePaths), budget);
  if (field.sensitive) {
    return fieldView(field, marker, sensitiveSummary(field, marker), undefined);
  }
  const before = redactValue(field.before, field.path, liveSidePatterns(resource));
  const after = redactValue(field.after, field.path, resource.sensitivePaths);
  const redacted = before !== field.before || after !== field.after;
  if (!redacted) return valueView(field, marker, before, after, budget);
  if (serializeAlike(before, after)) {
    // The only difference is inside a redacted part (a tool's header token, say).
    return fieldView(field, marker, SECRET_CHANGED, undefined);
  }
  // Other parts differ too: a redacted part that changed must not read as unchanged beside them.
  return valueView(field, marker, before, markChangedSecrets(after, field, resource.sensitivePaths), budget);
}

/**
 * How a secret field's change reads, never its value: set, cleared, changed, or — where one side
 * holds no value at all (`voxform diff` between environments, one without the field) — the side
 * that holds it against `(unset)`, as any other field reads there.
 */
function sensitiveSummary(field: FieldChange, marker: FieldMarker): string {
  if (marker === '-') return '(sensitive value cleared)';
  if (marker === '+') return SECRET_SET;
  return field.after === undefined ? `${SECRET_SET} → ${UNSET_VALUE}` : SECRET_CHANGED;
}

/** How a secret that is set reads. */
const SECRET_SET = '(sensitive value)';

/**
 * A field's one-line values with both sides, the earlier first (drift: the service's; diff: the first
 * environment's): a field unset there (the plan marks it `+` and shows the value alone) reads
 * `(unset) → "value"`, or `absent` where that side is not known rather than unset. Undefined when the
 * field is shown as a line diff.
 */
export function bothSides(view: FieldView, absent = UNSET_VALUE): string | undefined {
  if (view.summary === undefined) return undefined;
  return view.marker === '+' ? `${absent} → ${view.summary}` : view.summary;
}

/** The view of a field's values as they are to be shown (secrets already out of them). */
function valueView(field: FieldChange, marker: FieldMarker, before: unknown, after: unknown, budget: LineDiffBudget): FieldView {
  if (marker === '-') return fieldView(field, marker, `${formatScalar(before)} → null (cleared)`, undefined);
  if (needsLineDiff(before) || needsLineDiff(after)) {
    const sides = { before: diffSide(before), after: diffSide(after) };
    const diff = lineDiff(field, sides.before, sides.after, budget);
    if (typeof diff === 'string') return fieldView(field, marker, replacedWhole(diff, { side: sides.before, value: before }, { side: sides.after, value: after }), undefined);
    // A line diff does not show the line break at the end: a change of it is said in words, alone
    // when the lines are the same, else after the lines that changed.
    const lineBreak = finalLineBreakChange(before, after);
    if (lineBreak === undefined) return fieldView(field, marker, undefined, diff);
    if (diff.length === 0) return fieldView(field, marker, `(the same lines; ${lineBreak})`, undefined);
    diff.push({ kind: '\\', text: ` (${lineBreak})` });
    return fieldView(field, marker, undefined, diff);
  }
  const named = (value: unknown, name: string | undefined) => (name === undefined ? formatScalar(value) : `${name} (${formatScalar(value)})`);
  const [beforeName, afterName] = [field.names?.before, field.names?.after];
  return fieldView(field, marker, marker === '+' ? named(after, afterName) : `${named(before, beforeName)} → ${named(after, afterName)}`, undefined);
}

/** How the line break at the end changes between two texts; undefined when both end alike (or either is no text). */
function finalLineBreakChange(before: unknown, after: unknown): string | undefined {
  if (typeof before !== 'string' || typeof after !== 'string' || before.endsWith('\n') === after.endsWith('\n')) return undefined;
  return after.endsWith('\n') ? 'a line break added at the end' : 'the line break at the end removed';
}

/** A sentence for what will happen to a resource, for headers in text and Markdown; what it takes from another environment said after it. */
export function describeAction(change: ResourceChange): string {
  return `${actionSentence(change)}${takenOver(change)}`;
}

/** ` (takes it over from staging)`: the environments whose last apply a `--take-over` lets this change undo (`takesOverFrom`). */
export function takenOver(change: ResourceChange): string {
  const names = (change.takesOverFrom ?? []).map((environment) => environmentInProse(environment));
  if (names.length === 0) return '';
  return ` (takes it over from ${wordList(names, 'and')})`;
}

function actionSentence(change: ResourceChange): string {
  if (change.action === 'no-op') return 'unchanged';
  switch (change.kind) {
    case 'phone':
      return change.action === 'create'
        ? change.after?.agent_id ? `will be imported, then bound to agent ${String(change.after.agent_id)}` : 'will be imported'
        : 'will be bound to another agent';
    case 'knowledge':
      if (change.reason === 'gone') return 'gone from the service; will be uploaded again';
      return change.action === 'create' ? 'will be uploaded' : change.reason === 'content_changed' ? 'will be uploaded again (content changed)' : 'will be uploaded again';
    case 'credential':
      return change.reason === 'live_unknown' ? 'will be set (live state unknown: credentials cannot be read back)' : 'will be set';
    case 'campaign':
      if (change.earlierId !== undefined && change.reason === 'live_unknown') {
        return `will be updated (live state unknown: the key named campaign ${change.earlierId} at the last apply, so nothing is recorded of this one, and campaigns cannot be read back, so voxform applies every field)`;
      }
      return change.reason === 'live_unknown' ? 'will be updated (live state unknown: campaigns cannot be read back, so voxform applies every field)' : `will be updated${earlierKey(change)}`;
    default:
      return `will be updated in place${earlierKey(change)}`;
  }
}

/** What a key that now names another agent or campaign named at the last apply (`ResourceChange.earlierId`). */
function earlierKey(change: ResourceChange): string {
  return change.earlierId === undefined ? '' : ` (the key named ${change.kind} ${change.earlierId} at the last apply)`;
}

/**
 * The changes whose key takes a state entry kept under another key (`movedFrom`), told apart: keys
 * renamed (the old key is none of the plan's resources: gone from the manifests) and keys swapped,
 * whose old key the plan keeps, naming another resource.
 */
function keyMoves(changes: readonly ResourceChange[]): { renamed: ResourceChange[]; swapped: ResourceChange[] } {
  const addresses = new Set(changes.map((change) => change.address));
  const moved = changes.filter((change) => change.movedFrom !== undefined);
  return { renamed: moved.filter((change) => !addresses.has(change.movedFrom!)), swapped: moved.filter((change) => addresses.has(change.movedFrom!)) };
}

/**
 * Whether applying the plan changes anything: a request for the service, or a state entry moved to a
 * renamed or swapped key. A plan of moves alone is one with changes (as Terraform counts a moved
 * resource): were it not, a job applying only plans with changes would never record the moves.
 */
export function planHasChanges(plan: Pick<Plan, 'changes'>): boolean {
  return plan.changes.some((change) => change.action !== 'no-op' || change.movedFrom !== undefined);
}

/**
 * The moves of a plan told apart (`keyMoves`) as lines. A swap is no rename: the resource gets the
 * configuration of the key that names it now, so it is never said to be the same resource as
 * before. Two keys that swapped their resources make one line, `A ↔ B`.
 */
export function movedKeyLines(plan: Plan): { renamed: string[]; swapped: string[] } {
  const moves = keyMoves(plan.changes);
  const movedFrom = new Map(moves.swapped.map((change) => [change.address, change.movedFrom]));
  const renamed = moves.renamed.map((change) => `${change.movedFrom} → ${change.address}`);
  const swapped: string[] = [];
  for (const { movedFrom: from, address } of moves.swapped) {
    if (movedFrom.get(from!) !== address) swapped.push(`${from} → ${address}`);
    else if (!swapped.includes(`${address} ↔ ${from}`)) swapped.push(`${from} ↔ ${address}`);
  }
  return { renamed, swapped };
}

/** What a move does, said once after the moves it explains. */
export const MOVED_NOTE = "the same resources under new keys, an agent or campaign by its id, a knowledge file by its content: apply moves what the state keeps of each to its new key, and an agent's history follows it";

/** What applying a plan of moves alone does, after the line saying the service needs nothing. */
export const MOVES_ONLY = 'Apply moves what the state keeps of the keys below.';

/** What a swap of keys does, said once after the swaps it explains. */
export const SWAPPED_NOTE = "each key now names the resource another key named at the last apply, an agent or campaign by its id, a knowledge file by its content, and that resource gets the key's configuration: apply moves what the state keeps of each to the key that names it now";

/** The keys renamed and swapped, counted as the summary shows them (`summary` of the JSON plan, format 1.7). */
export function keyMoveCounts(changes: readonly ResourceChange[]): { renamed: number; swapped: number } {
  const { renamed, swapped } = keyMoves(changes);
  return { renamed: renamed.length, swapped: swapped.length };
}

/**
 * `Plan: 1 to create, 3 to update, 1 renamed, 12 unchanged (1 drifted)`: the keys renamed or swapped
 * named when there are any. A renamed resource is counted by its action too, as a drifted one is.
 */
export function summaryLine(plan: Pick<Plan, 'summary' | 'changes'>): string {
  const { summary } = plan;
  const { renamed, swapped } = keyMoveCounts(plan.changes);
  const moved = [...(renamed > 0 ? [`${renamed} renamed`] : []), ...(swapped > 0 ? [`${plural(swapped, 'key')} swapped`] : [])].map((part) => `${part}, `).join('');
  const drift = summary.drifted > 0 ? ` (${summary.drifted} drifted)` : '';
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${moved}${summary.unchanged} unchanged${drift}`;
}
