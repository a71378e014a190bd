/**
 * What the emulator serves besides the spec's paths, for URLs it hands out: the presigned upload
 * target (S3's POST Object: multipart/form-data, every policy field, the file last; 204 on
 * success; S3-style XML errors) and call recordings.
 */
import type { Reply } from '../http.js';
import { nowSeconds } from '../ids.js';
import { md5Hex, sha256Hex } from '../../util/hash.js';
import { MultipartError, multipartBoundary, parseMultipart } from '../multipart.js';
import type { Route } from '../router.js';
import { MAX_UPLOAD_BYTES } from './knowledge.js';

function s3Error(status: number, code: string, message: string): Reply {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    status,
    raw: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escape(message)}</Message></Error>\n`,
    headers: { 'content-type': 'application/xml' },
  };
}

/** A WAV header with no samples: a valid, silent recording. */
function silentWav(): Buffer {
  const wav = Buffer.alloc(44);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(0, 40);
  return wav;
}

export const uploadRoutes: Route[] = [
  {
    method: 'POST',
    path: '/_emulator/uploads',
    operation: 'upload (presigned target)',
    header: 'none',
    rawBody: true,
    // Room for the form fields around the largest file the policy allows.
    bodyLimit: MAX_UPLOAD_BYTES + 64 * 1024,
    handler: async ({ core, req, rawBody }) => {
      const boundary = multipartBoundary(req.headers['content-type']);
      if (!boundary) return s3Error(412, 'PreconditionFailed', 'Bucket POST must be of the enclosure-type multipart/form-data');
      let parts;
      try {
        parts = parseMultipart(rawBody, boundary);
      } catch (error) {
        return s3Error(400, 'MalformedPOSTRequest', `The body of your POST request is not well-formed multipart/form-data: ${(error as MultipartError).message}.`);
      }
      const fileIndex = parts.findIndex((p) => p.name === 'file');
      if (fileIndex < 0) return s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
      if (fileIndex !== parts.length - 1) return s3Error(400, 'InvalidArgument', 'The file must be the last field of the form; fields after it are not read.');
      const fields = new Map(parts.slice(0, -1).map((p) => [p.name.toLowerCase(), p.data.toString('utf8')]));
      const key = fields.get('key');
      if (key === undefined) return s3Error(400, 'InvalidArgument', "Bucket POST must contain a field named 'key'.");
      const pending = core.store.pendingUploads.get(key);
      if (!pending) return s3Error(403, 'AccessDenied', 'Invalid according to Policy: no upload was prepared for this key.');
      for (const [name, expected] of Object.entries(pending.fields)) {
        const got = fields.get(name.toLowerCase());
        if (got === undefined) return s3Error(403, 'AccessDenied', `Invalid according to Policy: the form lacks the field ${name}.`);
        if (got !== expected) {
          return name === 'x-amz-signature'
            ? s3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.')
            : s3Error(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ["eq", "$${name}", ${JSON.stringify(expected)}].`);
        }
      }
      if (nowSeconds() > pending.expires_at) return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
      const file = parts[fileIndex] as (typeof parts)[number];
      if (file.data.length > MAX_UPLOAD_BYTES) return s3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.');
      core.store.objects.set(key, {
        key,
        size: file.data.length,
        sha256: sha256Hex(file.data),
        content_type: fields.get('content-type') ?? file.contentType ?? null,
        uploaded_at: nowSeconds(),
      });
      await core.store.commit();
      return { status: 204, headers: { etag: `"${md5Hex(file.data)}"` } };
    },
  },
  {
    method: 'GET',
    path: '/_emulator/recordings/{file}',
    operation: 'recording',
    header: 'none',
    handler: ({ core, params }) => {
      const callId = (params.file as string).replace(/\.wav$/, '');
      const session = core.store.sessions.get(callId);
      if (!session?.ended || !session.config.call_settings?.enable_recording) return { status: 404, json: { detail: 'Not found' } };
      return { status: 200, raw: silentWav(), headers: { 'content-type': 'audio/wav' } };
    },
  },
];
