/**
 * Knowledge files: POST /knowledge/generate_presigned_url (an S3-style presigned POST), its target
 * (S3's POST Object: multipart/form-data, every policy field, the file last; 204 on success;
 * S3-style XML errors), /knowledge/create_file and /knowledge/set_agent_files.
 */
import type { KnowledgeFileRecord, PresignedUrlRequest, SetAgentFilesRequest } from '../../schema/types.gen.js';
import { json, type Reply } from '../http.js';
import { newId, nowSeconds } from '../ids.js';
import { hmacSha256Hex, md5Hex, sha256Hex } from '../../util/hash.js';
import { MultipartError, multipartBoundary, parseMultipart } from '../multipart.js';
import { actionDone, route, type Route } from '../router.js';
import { bodyValueError } from '../validation.js';
import { checkFileIds } from '../referenced-files.js';

/** Largest upload the presigned policy allows (content-length-range), bytes. */
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** How long a presigned upload stays valid, seconds. */
const UPLOAD_TTL_SECONDS = 3600;
const UPLOAD_BUCKET = 'voxform-emulator';

const amzDate = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

function s3Error(status: number, code: string, message: string): Reply {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    status,
    raw: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escape(message)}</Message></Error>\n`,
    headers: { 'content-type': 'application/xml' },
  };
}

export const knowledgeRoutes: Route[] = [
  route('POST /knowledge/generate_presigned_url', 'generate presigned URL', { header: 'unshown', body: 'PresignedUrlRequest' }, async ({ core, body, origin }) => {
    const { filename } = body as PresignedUrlRequest;
    const now = new Date();
    const expiresAt = nowSeconds() + UPLOAD_TTL_SECONDS;
    // The file name is kept, made safe as one path segment of the object key.
    const key = `knowledge/${newId('upl')}/${filename.replace(/[\\/]/g, '_')}`;
    const date = amzDate(now);
    const credential = `VOXFORMEMULATOR/${date.slice(0, 8)}/us-west-2/s3/aws4_request`;
    const policy = Buffer.from(
      JSON.stringify({
        expiration: new Date(expiresAt * 1000).toISOString(),
        conditions: [
          { bucket: UPLOAD_BUCKET },
          { key },
          ['content-length-range', 0, MAX_UPLOAD_BYTES],
          { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
          { 'x-amz-credential': credential },
          { 'x-amz-date': date },
        ],
      }),
    ).toString('base64');
    const fields = {
      key,
      'x-amz-algorithm': 'AWS4-HMAC-SHA256',
      'x-amz-credential': credential,
      'x-amz-date': date,
      policy,
      'x-amz-signature': hmacSha256Hex(core.uploadSecret, policy),
    };
    core.store.pendingUploads.set(key, { key, filename, fields, expires_at: expiresAt });
    await core.store.commit();
    return json(200, { url: `${origin}/_emulator/uploads`, fields });
  }),
  route('POST /knowledge/create_file', 'create knowledge file', { header: 'required', body: 'KnowledgeFileRecord' }, async ({ core, body }) => {
    const record = body as KnowledgeFileRecord;
    if (!core.store.objects.has(record.object_key)) {
      throw bodyValueError(['object_key'], 'nothing was uploaded with this key; upload the file to the presigned URL first');
    }
    const id = newId('kf');
    core.store.files.set(id, { id, ...record, created_at: nowSeconds() });
    await core.store.commit();
    // The service answers the new file's id as a bare JSON string (some deployments: {id}).
    return json(200, core.responseStyle.createFile === 'object' ? { id } : id);
  }),
  route('POST /knowledge/set_agent_files', 'set agent files', { header: 'unshown', body: 'SetAgentFilesRequest' }, async ({ core, body }) => {
    const request = body as SetAgentFilesRequest;
    const agent = core.store.agents.get(request.agent_id);
    if (!agent) throw bodyValueError(['agent_id'], 'no agent with this id');
    checkFileIds(core.store, request.files, ['files']);
    const current = agent.config.knowledge_base ?? {};
    agent.config.knowledge_base = { files: [...request.files], messages: request.messages ? [...request.messages] : (current.messages ?? []) };
    core.store.agentConfigChanged(agent);
    return actionDone(core);
  }),
];

/** Room for the form fields around the largest file the policy allows. */
const UPLOAD_BODY_LIMIT = MAX_UPLOAD_BYTES + 64 * 1024;

/** The presigned upload target: not a spec operation, a URL the emulator hands out. */
export const uploadRoute = route('POST /_emulator/uploads', 'upload (presigned target)', { header: 'none', rawBody: true, bodyLimit: UPLOAD_BODY_LIMIT }, async ({ core, req, rawBody }) => {
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
  // S3 refuses a form field the policy did not cover (such as an added Content-Type): only the
  // issued fields, the file and `x-ignore-` fields may come.
  const issued = new Set(Object.keys(pending.fields).map((name) => name.toLowerCase()));
  const extra = [...fields.keys()].filter((name) => !issued.has(name) && !name.startsWith('x-ignore-'));
  if (extra.length > 0) return s3Error(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${extra.join(', ')}`);
  if (nowSeconds() > pending.expires_at) return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
  const file = parts[fileIndex] as (typeof parts)[number];
  if (file.data.length > MAX_UPLOAD_BYTES) return s3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.');
  core.store.objects.set(key, {
    key,
    size: file.data.length,
    sha256: sha256Hex(file.data),
    content_type: file.contentType ?? null,
    uploaded_at: nowSeconds(),
  });
  await core.store.commit();
  return { status: 204, headers: { etag: `"${md5Hex(file.data)}"` } };
});
