/**
 * The hidden lines that make a comment voxform's: the first names what it reports on (kind and
 * environment), the second its outcome. A comment is voxform's only when the token's own user wrote
 * it and its first line is the marker exactly: a marker quoted or pasted by someone else is text.
 */
import { VoxformError } from '../errors.js';
import { isLocalName } from '../manifest/names.js';

export type ReportKind = 'plan' | 'apply' | 'test' | 'promote' | 'drift';

/** The outcome a comment records, read back to set the review's labels. */
export type ReportStatus = 'changes' | 'no-changes' | 'passing' | 'failing' | 'applied' | 'failed' | 'error';

const STATUSES: readonly ReportStatus[] = ['changes', 'no-changes', 'passing', 'failing', 'applied', 'failed', 'error'];

export function checkEnvironmentName(name: string): string {
  // A marker carries an environment's name as the manifests write it.
  if (!isLocalName(name)) {
    throw new VoxformError('invalid_option', 'The value given to --env is not an environment name (letters, digits, `_`, `.`, `-`).', { hint: 'Name an environment the manifests define under `environments:`.' });
  }
  return name;
}

/** `<!-- voxform:plan:env=production -->`; without an environment, `<!-- voxform:plan -->`. */
export function markerFor(kind: ReportKind, environment: string | undefined): string {
  return `<!-- voxform:${kind}${environment ? `:env=${environment}` : ''} -->`;
}

export function statusLine(status: ReportStatus): string {
  return `<!-- voxform:status=${status} -->`;
}

/** The hidden lines a comment starts with: its marker and its status. */
export function commentHead(kind: ReportKind, environment: string | undefined, status: ReportStatus): string {
  return `${markerFor(kind, environment)}\n${statusLine(status)}\n`;
}

/** Whether `body` is the comment `marker` names. */
export function hasMarker(body: string, marker: string): boolean {
  return body.split('\n', 1)[0]?.trim() === marker;
}

/** The kind of a voxform comment (any environment), or undefined for any other comment. */
export function kindOf(body: string): ReportKind | undefined {
  return /^<!-- voxform:(plan|apply|test|promote|drift)(?::env=[A-Za-z0-9_.-]+)? -->$/.exec(body.split('\n', 1)[0]?.trim() ?? '')?.[1] as ReportKind | undefined;
}

/** The status a voxform comment records on its second line. */
export function statusOf(body: string): ReportStatus | undefined {
  const status = /^<!-- voxform:status=([a-z-]+) -->$/.exec(body.split('\n', 2)[1]?.trim() ?? '')?.[1];
  return STATUSES.find((known) => known === status);
}
