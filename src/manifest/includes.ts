/**
 * Files the manifests point at: prompt includes (UTF-8 text) and knowledge files (hashed, never
 * decoded), relative to the file that names them. Read concurrently; sources and diagnostics are
 * made in request order afterwards, so output is the same from run to run.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { TemplateVars } from '../templates/substitute.js';
import { decodeUtf8 } from '../project-files/decode.js';
import { BlobMatch, DIFFERS, notCommitted, type CommittedBlob } from '../project-files/checkout-files.js';
import { failureOf, inspect, READ_FAILURE_CODES, type ReadPolicy } from '../project-files/guarded-read.js';
import { formatSize } from '../util/size.js';
import { addToList } from '../util/map-lists.js';
import { MAX_KNOWLEDGE_FILE_BYTES, MAX_PROMPT_BYTES_TOTAL, MAX_PROMPT_FILE_BYTES } from '../project-files/limits.js';
import type { FileCache, ReadOutcome } from '../project-files/manifest-files.js';
import { didYouMean } from '../util/did-you-mean.js';
import { Sha256Stream, sha256Hex } from '../util/hash.js';
import { mapBounded } from '../util/semaphore.js';
import type { DiagnosticList } from './diagnostics.js';
import type { SourceRegistry, SourceText, Span } from './source.js';
import { substituteIncludedText } from './templates.js';
import type { FilledTextBudget } from './filled-text-budget.js';

export interface PromptRequest {
  /** Absolute path. */
  file: string;
  /** The path as written in the `file:` value. */
  written: string;
  /** The `file:` value. */
  span: Span;
  /** Set when a template includes the file: its variables are substituted in the text. */
  template?: { name: string; vars: TemplateVars; declared: string[] };
}

export interface IncludeContext {
  files: FileCache;
  sources: SourceRegistry;
  diagnostics: DiagnosticList;
  /** Hears the sha256 (hex) of every file read, in request order (for the manifest hash). */
  onDigest(digest: string): void;
  /** Shared by every prompt file of the load (promptBudget). */
  promptBudget: ReadPolicy['budget'];
  /** What filling in a template's prompt may build, shared by the whole load. */
  filledText: FilledTextBudget;
  /** The folders listed for a missing file's suggestion, each once a load (`listFolder`). */
  folders: Map<string, Promise<FolderListing>>;
}

/** A folder's names, in the order listed, and by their NFC form (the form two names that print alike share). */
export interface FolderListing {
  names: string[];
  byForm: Map<string, string[]>;
}

/** The budget all prompt files of one environment share (MAX_PROMPT_BYTES_TOTAL). */
export function promptBudget(): NonNullable<ReadPolicy['budget']> {
  return { remaining: MAX_PROMPT_BYTES_TOTAL, limit: MAX_PROMPT_BYTES_TOTAL, noun: 'prompt files' };
}

/** An absolute path (`/proc/…`, `C:\\…`) is refused whatever it names: a manifest names none of the machine's. */
function isAbsoluteWritten(written: string): boolean {
  return path.posix.isAbsolute(written) || path.win32.isAbsolute(written);
}

/** Per source file, the paths resolved against its folder (a thousand agents name prompts alike). */
const resolvedBySource = new WeakMap<SourceText, Map<string, string>>();

/** Resolves a path written in a file against that file's folder. */
export function resolveFrom(span: Span, written: string): string {
  let resolved = resolvedBySource.get(span.source);
  if (!resolved) {
    resolved = new Map();
    resolvedBySource.set(span.source, resolved);
  }
  let absolute = resolved.get(written);
  if (absolute === undefined) {
    absolute = path.resolve(path.dirname(span.source.path), written);
    resolved.set(written, absolute);
  }
  return absolute;
}

/**
 * The text of each requested prompt (undefined when it could not be read), CRLF as LF and one final
 * newline dropped (editors add it; the live prompt does not have it). A file named by many is read once.
 */
export async function readPrompts(requests: readonly PromptRequest[], ctx: IncludeContext): Promise<Array<string | undefined>> {
  // Read per request, not per file: the same file may be named from a manifest and from a template, under different roots.
  // All asked at once: each read is made whole in a synchronous slice (guarded-read.ts), its file
  // closed before the next is opened, and the slices take them in the order asked.
  const outcomes = await Promise.all(
    requests.map((request) => {
      if (isAbsoluteWritten(request.written)) return ABSOLUTE;
      const policy = { root: request.span.source.root, maxBytes: MAX_PROMPT_FILE_BYTES, budget: ctx.promptBudget };
      return ctx.files.read(request.file, policy);
    }),
  );
  const decoded = new Map<Buffer, { text: string; normalized?: string; source: () => SourceText } | undefined>();
  requests.forEach((request, index) => {
    const outcome = outcomes[index] as ReadOutcome;
    if (!outcome.ok || decoded.has(outcome.bytes)) return;
    decoded.set(outcome.bytes, decodePrompt(request.file, outcome.bytes, ctx));
  });
  const results: Array<string | undefined> = [];
  for (const [index, request] of requests.entries()) {
    const outcome = outcomes[index] as ReadOutcome;
    if (!outcome.ok) await reportUnreadable(request, outcome, 'prompt file', ctx);
    // Undefined for a file not read, or not UTF-8 (reported when decoded).
    const entry = outcome.ok ? decoded.get(outcome.bytes) : undefined;
    if (!entry) {
      results.push(undefined);
      continue;
    }
    if (request.template) {
      results.push(normalizePrompt(substituteIncludedText(entry.text, entry.source(), request.template.vars, request.template.name, request.template.declared, ctx.diagnostics, ctx.filledText)));
    } else {
      // Normalized once per file: every agent that names it gets the one string, which the policy reads once (distinct-texts.ts).
      entry.normalized ??= normalizePrompt(entry.text);
      results.push(entry.normalized);
    }
  }
  return results;
}

/** An absolute path, refused before anything is looked up. */
const ABSOLUTE: Extract<ReadOutcome, { ok: false }> = {
  ok: false,
  reason: 'outside',
  message: 'is an absolute path; write it relative to the file that names it, inside the project',
};

/** A prompt file's text (hashed for the manifest hash), or undefined when it is not UTF-8 (reported in the file). */
function decodePrompt(file: string, bytes: Buffer, ctx: IncludeContext): { text: string; source: () => SourceText } | undefined {
  ctx.onDigest(sha256Hex(bytes));
  const { text, problem } = decodeUtf8(bytes);
  let source: SourceText | undefined;
  const sourceOf = (): SourceText => (source ??= ctx.sources.forText(file, text));
  if (problem !== undefined) {
    const at = sourceOf();
    ctx.diagnostics.error('file_not_utf8', `${at.display} ${problem.message}`, { source: at, start: problem.at, end: problem.at + 1 });
    return undefined;
  }
  return { text, source: sourceOf };
}

/** A prompt file's text as the prompt it loads as: CRLF as LF, one final newline dropped. */
export function normalizePrompt(text: string): string {
  const unix = text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text;
  return unix.endsWith('\n') ? unix.slice(0, -1) : unix;
}

export interface KnowledgeRequest {
  file: string;
  written: string;
  span: Span;
}

export interface KnowledgeContent {
  /** `sha256:<hex>` */
  contentHash: string;
  size: number;
}

/** Hashes knowledge files by streaming them (they may be large) under the guards; undefined for one not read. */
export async function hashKnowledgeFiles(
  requests: readonly KnowledgeRequest[],
  ctx: Pick<IncludeContext, 'files' | 'diagnostics' | 'sources' | 'onDigest' | 'folders'>,
): Promise<Array<KnowledgeContent | undefined>> {
  // One hash per distinct file (device and inode): one large file named by every entry is read once.
  const byFile = new Map<string, Promise<HashOutcome>>();
  const hashed = await mapBounded(requests, 8, async (request): Promise<HashOutcome> => {
    if (isAbsoluteWritten(request.written)) return ABSOLUTE;
    const { root } = request.span.source;
    const checked = await inspect(request.file, { root, maxBytes: MAX_KNOWLEDGE_FILE_BYTES });
    if (!checked.ok) return checked;
    // Uploaded once applied: in a CI job, only a file the commit under review holds (checkout-files.ts).
    const committed = await ctx.files.checkout.expect(root, checked.real);
    if (committed && 'problem' in committed) return notCommitted(request.file, checked.real, root, committed);
    const key = `${checked.info.dev}:${checked.info.ino}`;
    let hashing = byFile.get(key);
    if (!hashing) byFile.set(key, (hashing = hashFile(checked, committed)));
    const hashed = await hashing;
    if (!hashed.ok || hashed.committed || !committed || (await ctx.files.checkout.isLfsObject(root, committed, hashed.digest, hashed.size))) return hashed;
    return notCommitted(request.file, checked.real, root, DIFFERS);
  });
  const results: Array<KnowledgeContent | undefined> = [];
  for (const [index, request] of requests.entries()) {
    const outcome = hashed[index] as HashOutcome;
    if (!outcome.ok) {
      await reportUnreadable(request, outcome, 'knowledge file', ctx);
      results.push(undefined);
      continue;
    }
    ctx.onDigest(outcome.digest);
    results.push({ contentHash: `sha256:${outcome.digest}`, size: outcome.size });
  }
  return results;
}

type HashOutcome = { ok: true; digest: string; size: number; committed: boolean } | Extract<ReadOutcome, { ok: false }>;

/**
 * Streams an inspected file into its hash, after checking the open file is the one inspected; and,
 * given the blob the commit holds at its path, whether the bytes are that blob (else: true).
 */
async function hashFile(checked: Extract<Awaited<ReturnType<typeof inspect>>, { ok: true }>, committed: CommittedBlob | undefined): Promise<HashOutcome> {
  let handle;
  try {
    handle = await open(checked.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return failureOf(error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.ino !== checked.info.ino || info.dev !== checked.info.dev) {
      return { ok: false, reason: 'unreadable', message: 'changed while it was being read' };
    }
    const hash = new Sha256Stream();
    const blob = committed && new BlobMatch(committed);
    let size = 0;
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      size += (chunk as Buffer).length;
      // Counted while reading: a size taken before the read may be stale, or 0 (files in /proc).
      if (size > MAX_KNOWLEDGE_FILE_BYTES) return { ok: false, reason: 'too_large', message: `is more than ${formatSize(MAX_KNOWLEDGE_FILE_BYTES)}; the limit is ${formatSize(MAX_KNOWLEDGE_FILE_BYTES)}` };
      hash.update(chunk as Buffer);
      blob?.update(chunk as Buffer);
    }
    const isCommitted = !blob || blob.matches();
    return { ok: true, digest: hash.hex(), size, committed: isCommitted };
  } catch (error) {
    return failureOf(error);
  } finally {
    await handle.close();
  }
}

/** A path as a manifest would write it: relative to the file that names it, with "/" between folders. */
function writtenFrom(span: Span, file: string): string {
  return path.relative(path.dirname(span.source.path), file).split(path.sep).join('/');
}

/** The Unicode normalization form a name is in, for a message. */
function unicodeFormOf(name: string): string {
  if (name === name.normalize('NFC')) return 'NFC';
  return name === name.normalize('NFD') ? 'NFD' : 'neither NFC nor NFD';
}

/**
 * Whether a read of `file` would find a file there, under the guards of every read (inside `root`,
 * links followed only inside it): a suggestion must not tell whether a file outside the project exists.
 */
async function isFileInProjectAt(file: string, root: string): Promise<boolean> {
  const checked = await inspect(file, { root, maxBytes: Number.MAX_SAFE_INTEGER });
  return checked.ok;
}

/**
 * A folder's names, listed once a load: listed again for each file missing from it, and each name
 * put in its NFC form again, many files named missing from a full folder cost their product.
 */
function listFolder(folder: string, ctx: Pick<IncludeContext, 'folders'>): Promise<FolderListing> {
  let listing = ctx.folders.get(folder);
  if (!listing) {
    listing = readdir(folder)
      .catch(() => [] as string[])
      .then((names) => {
        const byForm = new Map<string, string[]>();
        for (const name of names) addToList(byForm, name.normalize('NFC'), name);
        return { names, byForm };
      });
    ctx.folders.set(folder, listing);
  }
  return listing;
}

/** The diagnostic code for each reason a named file was not read. */
async function reportUnreadable(
  request: { file: string; written: string; span: Span },
  outcome: Extract<ReadOutcome, { ok: false }>,
  noun: string,
  ctx: Pick<IncludeContext, 'diagnostics' | 'sources' | 'folders'>,
): Promise<void> {
  let suggestion = '';
  const slashed = request.written.replaceAll('\\', '/');
  const slashedFile = path.resolve(path.dirname(request.span.source.path), slashed);
  if (outcome.reason === 'missing' && slashed !== request.written && (await isFileInProjectAt(slashedFile, request.span.source.root))) {
    // A Windows path: `\` separates folders only on Windows, so the manifest means one thing per system.
    suggestion = `; write paths with "/", which every system reads as a folder separator: "${slashed}"`;
  } else if (outcome.reason === 'missing') {
    const folder = path.dirname(request.file);
    const { names: siblings, byForm } = await listFolder(folder, ctx);
    const name = path.basename(request.file);
    // Most file systems compare names byte by byte: `é` as one code point and as `e` plus an accent
    // are two names that print alike, so a "did you mean" would show the very name written.
    const sameName = byForm.get(name.normalize('NFC'))?.find((sibling) => sibling !== name);
    const near = sameName ?? didYouMean(name, siblings, ctx.diagnostics.suggestions);
    // Named from the folder that was listed, not from the path as written: only the system's own
    // separator splits a path (outside Windows, `a\b.md` is one name, not b.md in a folder a).
    const shown = near === undefined ? '' : writtenFrom(request.span, path.join(folder, near));
    if (sameName) suggestion = `; a file of the same name in another Unicode form (${unicodeFormOf(sameName)}) exists: "${shown}"; write the name as the file system holds it`;
    else if (near) suggestion = `; did you mean "${shown}"?`;
  }
  const looked = outcome.reason === 'missing' ? ` (looked for ${ctx.sources.display(request.file)}: paths are relative to the file that names them)` : '';
  const inside = outcome.reason === 'outside' ? `: files a manifest names must be inside ${ctx.sources.display(request.span.source.root)}/` : '';
  ctx.diagnostics.error(READ_FAILURE_CODES[outcome.reason], `${noun} "${request.written}" ${outcome.message}${looked}${inside}${suggestion}`, request.span);
}
