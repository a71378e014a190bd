/**
 * Files the manifests point at: prompt includes (`prompt: { file: … }`, read as UTF-8 text) and
 * knowledge files (hashed, sized and typed, never decoded). Paths are relative to the file that
 * wrote them. Everything is read concurrently; sources and diagnostics are created in request
 * order afterwards, so output is the same from run to run.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TemplateVars } from '../templates/substitute.js';
import { didYouMean } from '../util/did-you-mean.js';
import { decodeUtf8 } from './decode.js';
import type { DiagnosticList } from './diagnostics.js';
import { mapBounded, type FileCache, type ReadOutcome } from './load-files.js';
import type { SourceRegistry, SourceText, Span } from './source.js';
import { substituteIncludedText } from './templates.js';

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
 * The text of each requested prompt (undefined when it could not be read). A file named by many
 * agents is read once. The text is normalized: CRLF becomes LF and one final newline is dropped
 * (editors add it; the live prompt does not have it).
 */
export async function readPrompts(requests: readonly PromptRequest[], ctx: IncludeContext): Promise<Array<string | undefined>> {
  const outcomes = await ctx.files.readAll(requests.map((r) => r.file));
  const decoded = new Map<string, { text: string; source: () => SourceText } | undefined>();
  for (const file of new Set(requests.map((r) => r.file))) {
    const outcome = outcomes.get(file) as ReadOutcome;
    if (!outcome.ok) {
      decoded.set(file, undefined);
      continue;
    }
    ctx.onDigest(createHash('sha256').update(outcome.bytes).digest('hex'));
    const { text, invalidAt } = decodeUtf8(outcome.bytes);
    let source: SourceText | undefined;
    const sourceOf = (): SourceText => (source ??= ctx.sources.forText(file, text));
    if (invalidAt !== undefined) {
      const at = sourceOf();
      ctx.diagnostics.error('file_not_utf8', `${at.display} is not valid UTF-8 text; save it as UTF-8`, { source: at, start: invalidAt, end: invalidAt + 1 });
      decoded.set(file, undefined);
      continue;
    }
    decoded.set(file, { text, source: sourceOf });
  }
  const results: Array<string | undefined> = [];
  for (const request of requests) {
    const entry = decoded.get(request.file);
    if (!entry) {
      const outcome = outcomes.get(request.file) as ReadOutcome;
      if (!outcome.ok) await reportUnreadable(request, outcome, 'prompt file', ctx);
      results.push(undefined);
      continue;
    }
    let text = entry.text;
    if (request.template) {
      text = substituteIncludedText(text, entry.source(), request.template.vars, request.template.name, request.template.declared, ctx.diagnostics);
    }
    results.push(normalizePrompt(text));
  }
  return results;
}

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

/** Hashes knowledge files by streaming them (they may be large); undefined for one that could not be read. */
export async function hashKnowledgeFiles(
  requests: readonly KnowledgeRequest[],
  ctx: Pick<IncludeContext, 'diagnostics' | 'sources' | 'onDigest'>,
): Promise<Array<KnowledgeContent | undefined>> {
  const hashed = await mapBounded(requests, 8, (request) => hashFile(request.file));
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

type HashOutcome = { ok: true; digest: string; size: number } | Extract<ReadOutcome, { ok: false }>;

async function hashFile(file: string): Promise<HashOutcome> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    const missing = info.code === 'ENOENT' || info.code === 'ENOTDIR';
    return { ok: false, reason: missing ? 'missing' : 'unreadable', message: missing ? 'does not exist' : `cannot be read (${info.code ?? info.message})` };
  }
  if (info.isDirectory()) return { ok: false, reason: 'folder', message: 'is a folder, not a file' };
  try {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(file)) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return { ok: true, digest: hash.digest('hex'), size };
  } catch (error) {
    return { ok: false, reason: 'unreadable', message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

async function reportUnreadable(
  request: { file: string; written: string; span: Span },
  outcome: Extract<ReadOutcome, { ok: false }>,
  noun: string,
  ctx: Pick<IncludeContext, 'diagnostics' | 'sources'>,
): Promise<void> {
  let suggestion = '';
  if (outcome.reason === 'missing') {
    const siblings = await readdir(path.dirname(request.file)).catch(() => [] as string[]);
    const near = didYouMean(path.basename(request.file), siblings);
    if (near) suggestion = `; did you mean "${path.posix.join(path.posix.dirname(request.written.replaceAll('\\', '/')), near)}"?`;
  }
  const looked = outcome.reason === 'missing' ? ` (looked for ${ctx.sources.display(request.file)}: paths are relative to the file that names them)` : '';
  ctx.diagnostics.error(
    outcome.reason === 'missing' ? 'file_missing' : 'file_unreadable',
    `${noun} "${request.written}" ${outcome.message}${looked}${suggestion}`,
    request.span,
  );
}
