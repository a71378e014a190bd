/**
 * `voxform test capture`: a logged call → a test file. The caller's turns become the script, the
 * agent's replies become `judge:` references ("answers like: …"), and personal data — phone
 * numbers, e-mail addresses, card and account numbers, and the values of the call's metadata —
 * is replaced by placeholders, in the script and the references alike.
 */
import { Document } from 'yaml';
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import { parseChat } from './call-record.js';
import { isPlainObject } from '../util/json-object.js';
import { keepText, type Redact } from '../secrets/redact.js';
import { TEST_TRAFFIC_KEY } from '../api/test-traffic.js';
import { shorten } from '../util/shorten.js';
import { requireOptions } from '../util/required-options.js';
import { VoxformError } from '../errors.js';
import { formatCount } from '../util/plural.js';
import type { SchemaIssue } from '../schema/issues.js';
import { validateAgainstTestsDef } from '../schema/validate-tests.js';
import { generatedManifestText } from '../format/format-manifest.js';

/** Longest agent reply quoted in a reference (longer ones are shortened). */
const REFERENCE_LIMIT = 600;

/**
 * Each pattern is linear-time (no nested quantifiers): these run over untrusted call text.
 * Order matters: e-mail addresses before phone numbers (digits inside addresses), cards before phones.
 */
const PERSONAL_DATA: Array<{ placeholder: string; pattern: RegExp; keep?: RegExp }> = [
  { placeholder: '<email>', pattern: /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}/g },
  { placeholder: '<iban>', pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g },
  { placeholder: '<card-number>', pattern: /\b\d{4}(?:[ -]?\d{4}){2}[ -]?\d{1,7}\b/g },
  { placeholder: '<ssn>', pattern: /\b\d{3}-\d{2}-\d{4}\b/g },
  // Dates are not phone numbers: 2026-03-03 stays.
  { placeholder: '<phone>', pattern: /(?:\+|\b)\d(?:[ .()-]{0,2}\d){6,14}\b/g, keep: /^\d{4}-\d{2}-\d{2}$/ },
];

interface CaptureInput {
  record: GlobalCallHistoryRecord;
  /** The manifest name of the call's agent. */
  agentName: string;
  /**
   * Hides secrets the call holds (a greeting filled from `${env:…}`). Applied to every message
   * first: before personal data is replaced (which could break a secret up so that it no longer
   * matches) and before a reply is shortened.
   */
  redact?: Redact | undefined;
  /** Where the test file's editor modeline finds the test schema, from the file's folder (default: a tests/ folder beside node_modules). */
  schemaPath?: string | undefined;
}

/** Replaces personal data in free text: metadata values first (exact strings), then the patterns. */
export function scrubPersonalData(text: string, metadata: Record<string, unknown>): string {
  let out = text;
  const values = Object.entries(metadata)
    .filter((entry): entry is [string, string | number] => (typeof entry[1] === 'string' && entry[1].trim().length >= 3) || typeof entry[1] === 'number')
    .map(([key, value]) => [key, String(value)] as const)
    .sort((a, b) => b[1].length - a[1].length);
  for (const [key, value] of values) out = out.split(value).join(`<${key}>`);
  for (const { placeholder, pattern, keep } of PERSONAL_DATA) out = out.replace(pattern, (found) => (keep?.test(found) ? found : placeholder));
  return out;
}

function metadataOf(record: GlobalCallHistoryRecord): Record<string, unknown> {
  const metadata = (record as { metadata?: unknown }).metadata;
  if (!isPlainObject(metadata)) return {};
  // voxform's own label of test traffic is no personal data: "test" and "chat" stay in the transcript.
  const { [TEST_TRAFFIC_KEY]: _label, ...personal } = metadata;
  return personal;
}

/** A call the test it makes would pass a test's caps (docs/testing.md, Budgets), most likely its turns or a caller's message. */
function callTooLong(callId: string, issue: SchemaIssue, turns: number): VoxformError {
  const limit = formatCount(Number(issue.params.limit));
  const why =
    issue.keyword === 'maxItems' ? `it has ${turns} turns, and a test holds at most ${limit}` : issue.keyword === 'maxLength' ? `a message of the caller is longer than the ${limit} characters a turn holds` : `the test it makes is not one voxform runs (${issue.message})`;
  return new VoxformError('call_too_long', `Call ${callId} cannot be captured as a test: ${why}. Nothing was written.`, {
    hint: 'Capture a shorter call, or write the test by hand from its transcript (`voxform logs --format json`): a test may script part of a call.',
  });
}

function reference(reply: string): string {
  return `Answers like: "${shorten(reply, REFERENCE_LIMIT)}" (the same substance; wording may differ).`;
}

/** The test file's YAML text, with the schema modeline and where it came from. */
export function captureTestFile(input: CaptureInput): string {
  requireOptions('captureTestFile', input, { record: 'object', agentName: 'text' });
  const metadata = metadataOf(input.record);
  const redact = input.redact ?? keepText;
  const scrub = (text: string) => scrubPersonalData(redact(text), metadata);
  const transcript = parseChat(input.record.chat);
  // Each turn is what the caller said (none for the greeting) and what the agent said back.
  const said: Array<{ user?: string; replies: string[] }> = [];
  for (const message of transcript) {
    const last = said.at(-1);
    if (message.role === 'user') said.push({ user: scrub(message.content), replies: [] });
    // Only the greeting has no caller line: the agent speaking twice in a row is one answer.
    else if (last) last.replies.push(scrub(message.content));
    else said.push({ replies: [scrub(message.content)] });
  }
  const turns = said.map(({ user, replies }) => ({
    ...(user === undefined ? {} : { user }),
    // Two caller messages in a row: the first had no answer, and is kept as a turn of its own.
    ...(replies.length === 0 ? {} : { expect: [{ judge: reference(replies.join(' ')) }] }),
  }));
  if (turns.length === 0) turns.push({ expect: [{ judge: 'Greets the caller.' }] });
  // The id goes into a comment and a name: only the characters ids are made of.
  const callId = String(input.record.call_id ?? 'unknown').replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 100) || 'unknown';
  const document = {
    agent: input.agentName,
    tests: [{ name: `replays call ${callId}`, turns }],
  };
  // A test file voxform would refuse to run is not written: a call may be longer than a test may be.
  const unfit = validateAgainstTestsDef('TestFile', document)[0];
  if (unfit) throw callTooLong(callId, unfit, turns.length);
  const header = [
    `# yaml-language-server: $schema=${input.schemaPath ?? '../node_modules/voxform/schemas/tests.schema.json'}`,
    `# Captured from call ${callId} by \`voxform test capture\`. Personal data is replaced by <placeholders>:`,
    '# review the script and the judge references before committing.',
  ].join('\n');
  // Printed as init and export print a manifest: a caller's hidden character is written escaped, never raw.
  return `${header}\n${generatedManifestText(new Document(document))}`;
}
