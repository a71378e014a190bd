/**
 * `voxform diff --env A --env B`: what differs between two environments' live agents now, over the
 * fields the manifests manage, shown as the plan shows a change (src/plan/field-lines.ts: prompt
 * line by line, secrets redacted). A difference the overlays ask for (A's and B's manifests set the
 * field differently) is expected while each live value is what its own manifest sets; any other is
 * what a promotion would carry, or drift, and a side whose live value is not its manifest's is named:
 * drift in a field the overlays set differently is still drift.
 */
import type { Agent } from '../schema/types.gen.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import { comparableLiveAgent, desiredAgentFields } from '../plan/agent-fields.js';
import { isUnchanged, serializeAlike } from '../plan/compare.js';
import { bothSides, fieldViews, LineDiffBudget, type FieldView } from '../plan/field-lines.js';
import { redactValue } from '../plan/redact.js';
import { REDACTED } from '../secrets/redact.js';
import { agentSensitivePatterns, secretPatternSet } from '../secrets/schema-paths.js';
import type { FieldChange, ResourceChange } from '../plan/types.js';
import { parseDotted, valueAtPath } from '../util/field-path.js';
import { markdownCode, markdownFence, markdownText } from '../util/markdown-escape.js';
import { controlsAsQuestionMarks, printable, toJsonText } from '../util/printable.js';
import { plural } from '../util/plural.js';
import { formatSourceLocation, VoxformError } from '../errors.js';
import { MAX_PLAN_UPDATE_BYTES } from '../project-files/limits.js';
import { formatSize } from '../util/size.js';
import { byCodeUnits } from '../util/compare.js';

const ENVIRONMENT_DIFF_FORMAT_VERSION = '1';

interface FieldDifference {
  path: string;
  /** The overlays set the field differently, and each live value is its manifest's: the difference is meant. */
  expected: boolean;
  /** The environments (A, B or both) whose live value is not what their own manifest sets: drift. */
  drift: string[];
  sensitive: boolean;
  /** How it reads, A → B, as a plan shows a field change (secrets redacted). */
  view: FieldView;
  /** The values, redacted where secret; undefined where that environment holds none (JSON: null). */
  a: unknown;
  b: unknown;
}

interface AgentDifference {
  name: string;
  ids: { a: string; b: string };
  differences: FieldDifference[];
}

interface EnvironmentDiff {
  environments: { a: string; b: string };
  agents: AgentDifference[];
}

/** One agent's live fields in A and B, over the paths either manifest manages. */
function agentDifference(
  name: string,
  desired: { a: DesiredAgent; b: DesiredAgent },
  live: { a: Agent; b: Agent },
  environments: { a: string; b: string },
  liveSecrets: readonly string[],
  lineDiffs: LineDiffBudget,
): AgentDifference {
  const fieldsA = desiredAgentFields(desired.a);
  const fieldsB = desiredAgentFields(desired.b);
  const comparable = { a: comparableLiveAgent(live.a), b: comparableLiveAgent(live.b) };
  const sensitivePaths = [...new Set([...agentSensitivePatterns(desired.a), ...agentSensitivePatterns(desired.b), ...liveSecrets])];
  const secrets = secretPatternSet(sensitivePaths);
  const changes: Array<{ field: FieldChange; expected: boolean; drift: string[] }> = [];
  for (const path of [...new Set([...fieldsA.keys(), ...fieldsB.keys()])].sort()) {
    const segments = parseDotted(path);
    const valueA = valueAtPath(comparable.a, segments);
    const valueB = valueAtPath(comparable.b, segments);
    if (serializeAlike(valueA, valueB)) continue;
    const sensitive = secrets.cursorAt(path).covered;
    // Judged as a plan judges a field: a side whose manifest manages it and whose live value a plan would change.
    const drift = [
      ...(fieldsA.has(path) && !isUnchanged(fieldsA.get(path), valueA) ? [environments.a] : []),
      ...(fieldsB.has(path) && !isUnchanged(fieldsB.get(path), valueB) ? [environments.b] : []),
    ];
    const overlaysDiffer = !serializeAlike(fieldsA.get(path), fieldsB.get(path));
    changes.push({ field: { path, before: valueA, after: valueB, sensitive, drift: false }, expected: overlaysDiffer && drift.length === 0, drift });
  }
  // A change as the plan's renderers read it: `before` is A, `after` is B.
  const change = { address: `agent.${name}`, fieldChanges: changes.map((entry) => entry.field), sensitivePaths } as unknown as ResourceChange;
  const views = fieldViews(change, lineDiffs);
  return {
    name,
    ids: { a: desired.a.id, b: desired.b.id },
    differences: changes.map(({ field, expected, drift }, index) => ({
      path: field.path,
      expected,
      drift,
      sensitive: field.sensitive,
      view: views[index] as FieldView,
      a: sideValue(field.before, field, sensitivePaths),
      b: sideValue(field.after, field, sensitivePaths),
    })),
  };
}

/** One side's value, redacted where secret: a side that holds none stays unset, a secret too. */
function sideValue(value: unknown, field: FieldChange, sensitivePaths: readonly string[]): unknown {
  if (value === undefined) return undefined;
  return field.sensitive ? REDACTED : redactValue(value, field.path, sensitivePaths);
}

/**
 * The differences of every agent both manifests define (an overlay cannot add one), by local name.
 * `liveSecrets`: by local name, the places (dotted from the agent, `config.prompt`) trusted evidence
 * says hold a secret in either environment's live agent (src/secrets/trusted.ts).
 */
export function diffEnvironments(
  desired: { a: DesiredState; b: DesiredState },
  live: { a: ReadonlyMap<string, Agent>; b: ReadonlyMap<string, Agent> },
  liveSecrets: ReadonlyMap<string, readonly string[]> = new Map(),
): EnvironmentDiff {
  const agents: AgentDifference[] = [];
  // One output: every agent's line diffs share its budget, and what it holds of both sides the plan's.
  const lineDiffs = new LineDiffBudget();
  let held = 0;
  const environments = { a: desired.a.environment ?? '(none)', b: desired.b.environment ?? '(none)' };
  for (const [name, agentA] of [...desired.a.agents].sort(([x], [y]) => byCodeUnits(x, y))) {
    const agentB = desired.b.agents.get(name);
    const liveA = live.a.get(name);
    const liveB = live.b.get(name);
    if (!agentB || !liveA || !liveB) continue;
    const difference = agentDifference(name, { a: agentA, b: agentB }, { a: liveA, b: liveB }, environments, liveSecrets.get(name) ?? [], lineDiffs);
    // Nothing is sent, so no request's size counts: only what is held and printed, bounded as a plan's.
    held += heldSize(difference);
    if (held > MAX_PLAN_UPDATE_BYTES) throw diffTooLarge(agentA);
    agents.push(difference);
  }
  return { environments, agents };
}

/**
 * What a difference holds of both live agents, bytes as printed (`toJsonText`): nothing in the
 * manifests bounds a live value, and a committed `.voxform/local.json` (`--local`) may hold a
 * prompt of a million control characters, each printed as six.
 */
function heldSize(difference: AgentDifference): number {
  return difference.differences.reduce((total, field) => total + Buffer.byteLength(toJsonText(field.a ?? null)) + Buffer.byteLength(toJsonText(field.b ?? null)), 0);
}

/** The agent whose differences take what one diff holds past the plan's limit, MAX_PLAN_UPDATE_BYTES. */
function diffTooLarge(agent: DesiredAgent): VoxformError {
  return new VoxformError('diff_too_large', `${formatSourceLocation(agent.source)}: with ${agent.address}, the live values that differ between the two environments come to more than ${formatSize(MAX_PLAN_UPDATE_BYTES)}, the most one diff holds (as a plan); nothing was compared.`, {
    hint: 'Compare the agents in parts: give -f manifests that define some of them.',
  });
}

function counts(diff: EnvironmentDiff): { fields: number; unexpected: number } {
  const all = diff.agents.flatMap((agent) => agent.differences);
  return { fields: all.length, unexpected: all.filter((difference) => !difference.expected).length };
}

/** The first line of every format. */
function headline(diff: EnvironmentDiff): string {
  const { a, b } = diff.environments;
  const { fields, unexpected } = counts(diff);
  const agents = plural(diff.agents.length, 'agent');
  if (fields === 0) return `The live agents of ${a} and ${b} (${agents}) are alike in every managed field.`;
  const overlays = fields - unexpected;
  return `The live agents of ${a} and ${b} (${agents}) differ in ${plural(fields, 'field')}: ${unexpected} unexpected, ${overlays} set differently by the overlays.`;
}

/** What a difference is, said after its values: meant by the overlays, or drift on a named side; nothing for what a promotion would carry. */
function differenceNote(difference: FieldDifference): string | undefined {
  if (difference.expected) return 'expected: the overlays differ';
  const [one, other] = difference.drift;
  if (one === undefined) return undefined;
  if (other === undefined) return `drift: ${one}'s live value is not what its manifest sets`;
  return `drift: the live values of ${one} and ${other} are not what their manifests set`;
}

function viewLines(view: FieldView, indent: string): string[] {
  if (view.summary !== undefined) return [];
  return (view.diff ?? []).map((line) => `${indent}${line.kind === '@' ? line.text : `${line.kind}${line.text}`}`);
}

export function renderEnvironmentDiffText(diff: EnvironmentDiff): string {
  const { a, b } = diff.environments;
  const lines = [headline(diff)];
  for (const agent of diff.agents) {
    if (agent.differences.length === 0) continue;
    lines.push('', controlsAsQuestionMarks(`agent.${agent.name} (${a} ${agent.ids.a} → ${b} ${agent.ids.b})`));
    for (const difference of agent.differences) {
      const note = differenceNote(difference);
      const mark = note === undefined ? '' : ` (${note})`;
      const summary = difference.view.summary === undefined ? '' : ` ${bothSides(difference.view)}`;
      lines.push(printable(`  ${difference.view.marker} ${difference.path}:${summary}${mark}`));
      // One push per line: a field's diff may have a million lines, past what one call takes as arguments.
      for (const line of viewLines(difference.view, '      ')) lines.push(printable(line));
    }
  }
  return `${lines.join('\n')}\n`;
}

export function renderEnvironmentDiffJson(diff: EnvironmentDiff): string {
  const { fields, unexpected } = counts(diff);
  return `${toJsonText(
    {
      format_version: ENVIRONMENT_DIFF_FORMAT_VERSION,
      environments: [diff.environments.a, diff.environments.b],
      summary: { agents: diff.agents.length, differences: fields, unexpected },
      agents: diff.agents.map((agent) => ({
        name: agent.name,
        ids: { [diff.environments.a]: agent.ids.a, [diff.environments.b]: agent.ids.b },
        differences: agent.differences.map((difference) => ({
          path: difference.path,
          expected: difference.expected,
          drift: difference.drift,
          sensitive: difference.sensitive,
          a: difference.a ?? null,
          b: difference.b ?? null,
        })),
      })),
    },
    2,
  )}\n`;
}

export function renderEnvironmentDiffMarkdown(diff: EnvironmentDiff): string {
  const { a, b } = diff.environments;
  const lines = [`### voxform diff: ${markdownText(a)} → ${markdownText(b)}`, '', markdownText(headline(diff))];
  for (const agent of diff.agents) {
    if (agent.differences.length === 0) continue;
    lines.push('', `**${markdownCode(`agent.${agent.name}`)}** (${markdownCode(agent.ids.a)} → ${markdownCode(agent.ids.b)})`, '');
    for (const difference of agent.differences) {
      const note = differenceNote(difference);
      const mark = note === undefined ? '' : ` *(${markdownText(note)})*`;
      const summary = difference.view.summary === undefined ? '' : `: ${markdownText(bothSides(difference.view) ?? '')}`;
      lines.push(`- ${markdownCode(difference.path)}${summary}${mark}`);
      const diffLines = viewLines(difference.view, '');
      if (diffLines.length > 0) lines.push('', ...markdownFence(diffLines, 'diff').map((line) => `  ${line}`), '');
    }
  }
  return `${lines.join('\n')}\n`;
}
