/**
 * `validate --format sarif`: SARIF 2.1.0, which GitHub code scanning reads to annotate the lines
 * of a pull request. Policy findings are results of their rule; manifest problems are results too
 * (their code is the rule id), so a broken manifest is annotated as well. A waived finding is a
 * result with an external suppression holding the waiver's reason. A run holds at most
 * SARIF_RESULT_LIMIT results, the most severe kept.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from '../manifest/types.js';
import { gitWorkTreeRoot, pathFromRoot } from '../project-files/git.js';
import { formatCount, plural } from '../util/plural.js';
import type { Finding, PolicyLevel, PolicyReport, RuleStatus } from './types.js';
import { unwrittenHint } from './custom-rules.js';
import { formatSourceLocation } from '../errors.js';
import { inEnvironments } from './render.js';
import { findingsOmitted, waivedOmitted } from './kept-findings.js';
import { MAX_FINDINGS_KEPT } from '../project-files/limits.js';
import { requireOptions } from '../util/required-options.js';
import { canonicalJson, sha256Hex } from '../util/hash.js';

const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

/**
 * The most results a run holds. Code scanning shows at most this many of a run, chosen by its own
 * order, and rejects the upload of a run with more than 25,000: voxform chooses them itself.
 */
export const SARIF_RESULT_LIMIT = 5_000;

type SarifLevel = 'error' | 'warning' | 'note' | 'none';

/** The key of a result's `partialFingerprints`: the version says how the value is made, so a change of it is a new key. */
const FINDING_FINGERPRINT = 'voxformFinding/v1';

/**
 * Where a manifest problem's message names a place (`at voxform.yaml:12:5`, `on line 12`): left out
 * of its fingerprint, which must not change when lines move.
 */
const POSITION_IN_MESSAGE = /(\bline |\bcolumn |:)\d+/g;

/**
 * Fingerprints that stay the same when lines move, so code scanning keeps one alert for one
 * finding across commits (by line, it would close and open one whenever a line is added above): a
 * hash of what the result is (a finding's rule, resource and message, which names its field; a
 * manifest problem's code, file and message, its positions left out) and how many results before it
 * are that too. The count is over every result, before any is left out.
 */
function fingerprints(): (what: readonly string[]) => Record<string, string> {
  const seen = new Map<string, number>();
  return (what) => {
    const key = canonicalJson(what);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return { [FINDING_FINGERPRINT]: sha256Hex(canonicalJson([...what, occurrence])) };
  };
}

function sarifLevel(level: PolicyLevel): SarifLevel {
  return level === 'mandatory' ? 'error' : level === 'advisory' ? 'warning' : 'none';
}

/** The folder artifact URIs are relative to (%SRCROOT%). */
interface SarifSourceRoot {
  /** The folder, a real path. */
  root: string;
  /** The working directory, a real path: the files the report names are relative to it. */
  cwd: string;
  /** What the folder is, in the document. */
  description: string;
}

/**
 * Code scanning places a result by its path from the repository's root, wherever in the repository
 * voxform ran (a CI step's working-directory): the root of the git work tree holding `cwd`, else of
 * the one holding the first manifest (`-f ../app/voxform.yaml` run from outside it), else `cwd`.
 */
export async function sarifSourceRoot(cwd: string, firstManifest?: string): Promise<SarifSourceRoot> {
  const real = await realpath(cwd);
  const root = (await gitWorkTreeRoot(cwd)) ?? (firstManifest === undefined ? undefined : await gitWorkTreeRoot(path.dirname(path.resolve(real, firstManifest))));
  if (root === undefined) return { root: real, cwd: real, description: 'The folder voxform ran in (it is in no git work tree).' };
  return { root, cwd: real, description: 'The root of the git repository of the manifests.' };
}

/**
 * The working directory as %SRCROOT%: what a library caller that gives no source root gets. Code
 * scanning refuses or misplaces a URI that climbs out of its base, so a file outside the working
 * directory is named by an absolute file: URI there too, never with `../`.
 */
function workingDirectoryRoot(): SarifSourceRoot {
  const cwd = process.cwd();
  return { root: cwd, cwd, description: 'The folder voxform ran in.' };
}

/**
 * A relative path as a relative URI reference: `#` would start a fragment, `?` a query, and a `:` in
 * the first segment would read as a scheme, so they are escaped too (encodeURI keeps them).
 */
function relativeUri(relative: string): string {
  return encodeURI(relative).replace(/[#?:]/g, encodeURIComponent);
}

/** Where `file` (relative to the working directory) is: from %SRCROOT% when it is under it, else as an absolute file: URI, so no URI leaves its base. */
function artifactLocation(file: string, sourceRoot: SarifSourceRoot): { uri: string; uriBaseId?: string } {
  const absolute = path.resolve(sourceRoot.cwd, file);
  const relative = pathFromRoot(sourceRoot.root, absolute);
  return relative === undefined ? { uri: pathToFileURL(absolute).href } : { uri: relativeUri(relative), uriBaseId: '%SRCROOT%' };
}

/** `file` (relative to the working directory) as the log's results name it: from %SRCROOT%, else absolute. */
function fileName(file: string, sourceRoot: SarifSourceRoot): string {
  const absolute = path.resolve(sourceRoot.cwd, file);
  return pathFromRoot(sourceRoot.root, absolute) ?? absolute;
}

/** A message as a sentence before its hint: a full stop unless it already ends in one, `?` or `!`. */
function asSentence(message: string): string {
  return /[.?!]$/.test(message) ? message : `${message}.`;
}

/**
 * A rule's help: a built-in rule's points at its section of docs/policy.md; a team rule's at its
 * definition in the manifest, and an operator rule's at its pack, which no page of the docs describes.
 */
function helpText(rule: RuleStatus, sourceRoot: SarifSourceRoot): string {
  const { origin } = rule;
  if (origin.kind === 'operator') return `${rule.hint} (rule of operator policy pack ${origin.pack})`;
  if (origin.kind !== 'manifest') return `${rule.hint} (docs/policy.md#${rule.id})`;
  const definedAt = { ...origin.location, file: fileName(origin.location.file, sourceRoot) };
  if (rule.hint === unwrittenHint(rule.id, origin.location)) return unwrittenHint(rule.id, definedAt);
  return `${rule.hint} (team rule ${rule.id}, defined at ${formatSourceLocation(definedAt)}, in the manifest's policy section)`;
}

export function renderSarif(input: { report: PolicyReport | undefined; diagnostics: readonly Diagnostic[]; version: string; sourceRoot?: SarifSourceRoot }): Record<string, unknown> {
  requireOptions('renderSarif', input, { diagnostics: 'list', version: 'text' });
  const { report } = input;
  const sourceRoot = input.sourceRoot ?? workingDirectoryRoot();
  const location = (file: string, line: number, col: number) => ({
    physicalLocation: {
      artifactLocation: artifactLocation(file, sourceRoot),
      region: { startLine: Math.max(1, line), startColumn: Math.max(1, col) },
    },
  });
  const rules: Array<Record<string, unknown>> = (report?.rules ?? []).map((rule) => ({
    id: rule.id,
    shortDescription: { text: rule.summary },
    help: { text: helpText(rule, sourceRoot) },
    defaultConfiguration: { level: sarifLevel(rule.level), enabled: rule.level !== 'off' },
    properties: { area: rule.area },
  }));
  // Each rule's index in `rules`, which a result's ruleIndex gives.
  const ruleIndexes = new Map(rules.map((rule, index) => [rule.id as string, index]));
  /** The rule's index, the rule added first when the report lists none of that id. */
  const ruleIndex = (id: string, text: string, level: SarifLevel): number => {
    const known = ruleIndexes.get(id);
    if (known !== undefined) return known;
    ruleIndexes.set(id, rules.length);
    rules.push({ id, shortDescription: { text }, defaultConfiguration: { level } });
    return rules.length - 1;
  };
  const fingerprintOf = fingerprints();
  const waiverOf = (finding: Finding) => report?.waivers.find((w) => w.rule === finding.rule && w.resource === finding.resource && w.state !== 'expired');
  const findingResult = (finding: Finding, waived: boolean) => {
    const index = ruleIndex(finding.rule, finding.hint, sarifLevel(finding.level));
    const waiver = waived ? waiverOf(finding) : undefined;
    return {
      ruleId: finding.rule,
      ruleIndex: index,
      level: sarifLevel(finding.level),
      message: { text: `${asSentence(`${finding.message}${inEnvironments(finding)}`)} ${finding.hint}` },
      locations: [location(finding.location.file, finding.location.line, finding.location.col)],
      partialFingerprints: fingerprintOf(['finding', finding.rule, finding.resource, finding.message]),
      properties: { resource: finding.resource, ...(finding.environments ? { environments: finding.environments } : {}) },
      ...(waived ? { suppressions: [{ kind: 'external', status: 'accepted', justification: waiver ? `${waiver.reason} (until ${waiver.expires})` : 'waived' }] } : {}),
    };
  };
  const diagnosticResults = input.diagnostics.map((d) => {
    const level: SarifLevel = d.severity === 'error' ? 'error' : 'warning';
    const index = ruleIndex(d.code, `manifest problem: ${d.code}`, level);
    const partialFingerprints = fingerprintOf(['manifest', d.code, fileName(d.file, sourceRoot), d.message.replace(POSITION_IN_MESSAGE, '$1#')]);
    return { ruleId: d.code, ruleIndex: index, level, message: { text: d.message }, locations: [location(d.file, d.line, d.col)], partialFingerprints };
  });
  const all = [...diagnosticResults, ...(report?.findings ?? []).map((f) => findingResult(f, false)), ...(report?.waived ?? []).map((f) => findingResult(f, true))];
  const results = mostSevere(all, SARIF_RESULT_LIMIT);
  // Findings past the run's cap were only counted (kept-findings.ts): they are left out too.
  const notKept = report ? findingsOmitted(report) + waivedOmitted(report) : 0;
  const total = all.length + notKept;
  const leftOut = total - results.length;
  return sarifLog(input.version, rules, {
    ...(leftOut > 0 ? { invocations: [{ executionSuccessful: true, toolExecutionNotifications: [{ level: 'warning', message: { text: leftOutText(total, leftOut, notKept) } }] }] } : {}),
    originalUriBaseIds: { '%SRCROOT%': { description: { text: sourceRoot.description } } },
    results,
    properties: { tokenizer: report?.tokenizer ?? null, resultsLeftOut: leftOut },
  });
}

/** How a result ranks when the run is cut: errors (mandatory findings, manifest errors), then warnings, then waived findings. */
function severityRank(result: { level: SarifLevel; suppressions?: unknown }): number {
  if (result.suppressions !== undefined) return 3;
  return result.level === 'error' ? 0 : result.level === 'warning' ? 1 : 2;
}

/** At most `limit` of `results`, the most severe, in the order they came. */
function mostSevere<T extends { level: SarifLevel; suppressions?: unknown }>(results: readonly T[], limit: number): T[] {
  if (results.length <= limit) return [...results];
  const kept = results
    .map((result, index) => ({ rank: severityRank(result), index }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .slice(0, limit)
    .map(({ index }) => index)
    .sort((a, b) => a - b);
  return kept.map((index) => results[index] as T);
}

function leftOutText(total: number, leftOut: number, notKept: number): string {
  if (leftOut === notKept) {
    return (
      `voxform found ${plural(total, 'result')}; this run holds ${formatCount(total - leftOut)} and leaves out ${formatCount(leftOut)} policy findings past the ` +
      `${formatCount(MAX_FINDINGS_KEPT)} a run keeps (mandatory findings first), which are counted only. Fix these and run again.`
    );
  }
  return (
    `voxform found ${plural(total, 'result')}; this run holds the ${formatCount(total - leftOut)} most severe (errors first, waived findings last) ` +
    `and leaves out ${formatCount(leftOut)}, as code scanning takes at most ${formatCount(SARIF_RESULT_LIMIT)} of a run. ` +
    '`voxform validate` without --format sarif lists every one.'
  );
}

/** A SARIF 2.1.0 log of one run of voxform, with its rules and what else the run holds. */
function sarifLog(version: string, rules: readonly unknown[], run: Record<string, unknown>): Record<string, unknown> {
  return { $schema: SARIF_SCHEMA_URI, version: '2.1.0', runs: [{ tool: { driver: { name: 'voxform', version, semanticVersion: version, rules } }, ...run }] };
}

/** What stopped a run before it checked anything: its error code (docs/errors.md), what happened and how to fix it. */
export interface SarifFailure {
  code: string;
  message: string;
  hint: string | undefined;
}

/**
 * The SARIF log of a run that failed as a whole (no manifest found, an unknown environment, an
 * operator pack that does not load): no results, and the failure as the invocation's error
 * notification, so the upload step reads a valid file that says the check did not run.
 */
export function renderSarifFailure(failure: SarifFailure, version: string): Record<string, unknown> {
  const text = failure.hint ? `${failure.message} ${failure.hint}` : failure.message;
  return sarifLog(version, [], {
    invocations: [
      {
        executionSuccessful: false,
        exitCode: 1,
        toolExecutionNotifications: [{ level: 'error', message: { text }, descriptor: { id: failure.code } }],
      },
    ],
    // Code scanning refuses a run without a results list; the invocation says these are not a check's.
    results: [],
  });
}
