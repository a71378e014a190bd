import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { VoxformError } from '../errors.js';
import { ApiError, codeForStatus } from './errors.js';
import { mimeTypeFor } from '../util/mime.js';
import { formatSize } from '../util/size.js';
import { Sha256Stream } from '../util/hash.js';
import { withoutFullStop } from '../util/shorten.js';

/** A file on disk ready to be sent: its size is fixed at inspection and checked again while streaming. */
interface UploadFile {
  path: string;
  /** The name sent in the multipart part and to generate_presigned_url (the base name). */
  fileName: string;
  contentType: string;
  size: number;
  /** `sha256:<hex>` of the content it must hold (what its plan showed), checked while streaming; undefined: any. */
  contentHash?: string | undefined;
}

/** Checks that the file exists, is a regular file and is within the limit. */
export async function inspectUploadFile(filePath: string, maxBytes: number): Promise<UploadFile> {
  let info;
  try {
    info = await stat(filePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new VoxformError('knowledge_file_unreadable', `Cannot read the knowledge file ${filePath}: ${code === 'ENOENT' ? 'it does not exist' : (code ?? String(error))}.`, {
      hint: 'Check the `file:` path of the knowledge entry (it is relative to the manifest).',
      cause: error,
    });
  }
  if (!info.isFile()) {
    throw new VoxformError('knowledge_file_unreadable', `The knowledge file ${filePath} is not a regular file.`, {
      hint: 'Point the knowledge entry at a single file (pdf, txt, md, docx, …).',
    });
  }
  if (info.size > maxBytes) {
    throw new VoxformError('knowledge_file_too_large', `The knowledge file ${filePath} is ${formatSize(info.size)}; voxform uploads knowledge files of at most ${formatSize(maxBytes)}.`, {
      hint: 'Split the document into smaller files, or trim it.',
      details: { path: filePath, size: info.size, limit: maxBytes },
    });
  }
  const fileName = path.basename(filePath);
  return { path: filePath, fileName, contentType: mimeTypeFor(fileName), size: info.size };
}

/**
 * A `multipart/form-data` body for a presigned POST: the fields, then the file last (storage ignores
 * fields after it), streamed from disk with its length up front. Once per attempt: a stream cannot be replayed.
 */
export function multipartBody(fields: Readonly<Record<string, string | undefined>>, file: UploadFile): { body: Readable; headers: Record<string, string> } {
  const boundary = `----voxform${randomBytes(12).toString('hex')}`;
  const head: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    head.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(name)}"\r\n\r\n${value}\r\n`));
  }
  head.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${escapeQuoted(file.fileName)}"\r\nContent-Type: ${file.contentType}\r\n\r\n`));
  const preamble = Buffer.concat(head);
  const trailer = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = preamble.length + file.size + trailer.length;

  async function* parts(): AsyncGenerator<Buffer> {
    yield preamble;
    let sent = 0;
    // Hashed as the plan hashed the file (manifest/includes.ts), so the two name one content alike.
    const hash = file.contentHash === undefined ? undefined : new Sha256Stream();
    if (file.size > 0) {
      for await (const chunk of createReadStream(file.path, { start: 0, end: file.size - 1 })) {
        sent += (chunk as Buffer).length;
        hash?.update(chunk as Buffer);
        yield chunk as Buffer;
      }
    }
    if (sent !== file.size) {
      throw new VoxformError('knowledge_file_changed', `The knowledge file ${file.path} changed while it was being uploaded (${sent} of ${file.size} bytes read).`, {
        hint: 'Run again once nothing else is writing the file.',
      });
    }
    // Checked before the trailer: the body ends short of its length, so storage keeps nothing.
    const digest = hash === undefined ? undefined : `sha256:${hash.hex()}`;
    if (digest !== file.contentHash) {
      throw new VoxformError('knowledge_file_changed', `The knowledge file ${file.path} changed since its plan was made: it no longer holds the content the plan showed (${file.contentHash}); nothing was uploaded.`, {
        hint: 'Plan again, review the new plan, and apply it.',
      });
    }
    yield trailer;
  }

  return {
    body: Readable.from(parts(), { objectMode: false }),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) },
  };
}

/** The error for a refused upload: S3-style XML (`<Code>`, `<Message>`) or whatever text came back. */
export function storageFailure(url: URL, status: number, body: string, attempts: number): ApiError {
  const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
  const text = /<Message>([^<]*)<\/Message>/.exec(body)?.[1];
  let detail = [code, text].filter(Boolean).join(': ');
  if (detail === '' && !body.trimStart().startsWith('<')) detail = body.trim().slice(0, 200);
  // The storage's words end one sentence of voxform's, which gives it its full stop.
  detail = withoutFullStop(detail) || 'no reason given';
  const target = `${url.origin}${url.pathname}`;
  return new ApiError({
    code: codeForStatus(status),
    message: `POST ${target} (knowledge upload) failed: the storage answered ${status} ${detail}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}.`,
    hint:
      status === 400 && /EntityTooLarge/i.test(body)
        ? 'The file is larger than the upload target accepts; split it into smaller files.'
        : 'The presigned upload target refused the file (it may have expired); run again.',
    status,
    method: 'POST',
    path: url.pathname,
    detail,
    attempts,
  });
}

/** Quotes in a Content-Disposition parameter, as browsers encode them. */
function escapeQuoted(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

