/**
 * Knowledge files: POST /knowledge/generate_presigned_url (an S3-style presigned POST whose target
 * the emulator serves itself, see uploads.ts), /knowledge/create_file and /knowledge/set_agent_files.
 */
import type { KnowledgeFileRecord, PresignedUrlRequest, SetAgentFilesRequest } from '../../schema/types.gen.js';
import { actionDone, json } from '../http.js';
import { newId, nowSeconds } from '../ids.js';
import { hmacSha256Hex } from '../../util/hash.js';
import type { Route } from '../router.js';
import { bodyValueError, ValidationFailure } from '../validation.js';

/** Largest upload the presigned policy allows (content-length-range), bytes. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** How long a presigned upload stays valid, seconds. */
export const UPLOAD_TTL_SECONDS = 3600;
export const UPLOAD_BUCKET = 'voxform-emulator';

const amzDate = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

export const knowledgeRoutes: Route[] = [
  {
    method: 'POST',
    path: '/knowledge/generate_presigned_url',
    operation: 'generate presigned URL',
    header: 'unshown',
    body: 'PresignedUrlRequest',
    handler: async ({ core, body, origin }) => {
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
    },
  },
  {
    method: 'POST',
    path: '/knowledge/create_file',
    operation: 'create knowledge file',
    header: 'required',
    body: 'KnowledgeFileRecord',
    handler: async ({ core, body }) => {
      const record = body as KnowledgeFileRecord;
      if (!core.store.objects.has(record.object_key)) {
        throw bodyValueError(['object_key'], 'nothing was uploaded with this key; upload the file to the presigned URL first');
      }
      const id = newId('kf');
      core.store.files.set(id, { id, ...record, created_at: nowSeconds() });
      await core.store.commit();
      // The service answers the new file's id as a bare JSON string (some deployments: {id}).
      return json(200, core.responseStyle.createFile === 'object' ? { id } : id);
    },
  },
  {
    method: 'POST',
    path: '/knowledge/set_agent_files',
    operation: 'set agent files',
    header: 'unshown',
    body: 'SetAgentFilesRequest',
    handler: async ({ core, body }) => {
      const request = body as SetAgentFilesRequest;
      const agent = core.store.agents.get(request.agent_id);
      if (!agent) throw bodyValueError(['agent_id'], 'no agent with this id');
      const unknown = request.files.flatMap((id, index) => (core.store.files.has(id) ? [] : [index]));
      if (unknown.length > 0) {
        throw new ValidationFailure(unknown.map((index) => ({ type: 'value_error', loc: ['body', 'files', index], msg: 'Value error, no knowledge file with this id' })));
      }
      const current = agent.config.knowledge_base ?? {};
      agent.config.knowledge_base = { files: [...request.files], messages: request.messages ? [...request.messages] : (current.messages ?? []) };
      core.store.touchAgent(agent);
      core.store.markConfigSet(agent.id);
      await core.store.commit();
      return actionDone(core.responseStyle);
    },
  },
];
