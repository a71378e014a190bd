/**
 * The requests of each change, exactly as apply will send them. Secrets never enter a planned body:
 * it holds the redaction marker, and a fill says where apply reads the value (see `ValueFill`).
 */
import path from 'node:path';
import type { DesiredCampaign, DesiredCredential, DesiredKnowledgeFile, DesiredPhone } from '../manifest/types.js';
import { REDACTED } from '../secrets/redact.js';
import { isDottedAtOrUnder, formatDotted, type PathSegment, type PatternCursor } from '../util/field-path.js';
import { entrySecretPaths, secretPatternSet } from '../secrets/schema-paths.js';
import { isPlainObject, setOwn } from '../util/json-object.js';
import { UNKNOWN_AFTER_APPLY, type PlannedRequest, type RequestOperation, type ValueFill } from './types.js';

/** The requests of one change, in order: each depends on the one before it, plus what it names. */
export class RequestList {
  readonly requests: PlannedRequest[] = [];

  constructor(private readonly address: string) {}

  add(request: {
    operation: RequestOperation;
    method: PlannedRequest['method'];
    path: string;
    body?: Record<string, unknown>;
    fills?: ValueFill[];
    after?: readonly string[];
  }): string {
    const id = `${this.address}/${this.requests.length + 1}`;
    const previous = this.requests[this.requests.length - 1];
    this.requests.push({
      id,
      operation: request.operation,
      method: request.method,
      path: request.path,
      body: request.body,
      fills: request.fills ?? [],
      dependsOn: [...(previous ? [previous.id] : []), ...(request.after ?? [])],
    });
    return id;
  }
}

/**
 * The body with every value under a sensitive pattern replaced by the redaction marker, and the fills
 * that put them back at apply: from the manifests where the manifest manages the path, else from the
 * service. Objects under a pattern are walked into (a reviewer sees header names, not values).
 */
export function withSecretFills(
  body: Record<string, unknown>,
  options: { address: string; patterns: readonly string[]; managed: readonly string[] },
): { body: Record<string, unknown>; fills: ValueFill[] } {
  const fills: ValueFill[] = [];
  // The path of the value being walked: one array, pushed and popped, copied only for a fill.
  const at: PathSegment[] = [];
  const walk = (value: unknown, cursor: PatternCursor): unknown => {
    if (!cursor.open) return value;
    const sensitive = at.length > 0 && cursor.covered;
    if (Array.isArray(value) && !sensitive) {
      return value.map((item, i) => {
        at.push(i);
        const walked = walk(item, cursor.step(i));
        at.pop();
        return walked;
      });
    }
    if (isPlainObject(value)) {
      const copy: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        at.push(key);
        setOwn(copy, key, walk(child, cursor.step(key)));
        at.pop();
      }
      return copy;
    }
    if (!sensitive || value === null || value === undefined) return value;
    const dotted = formatDotted(at);
    const from = options.managed.some((managed) => isDottedAtOrUnder(dotted, managed)) ? 'manifest' : 'live';
    const place = [...at];
    fills.push({ at: place, value: { secret: { address: options.address, from, path: place } } });
    return REDACTED;
  };
  return { body: walk(body, secretPatternSet(options.patterns).start()) as Record<string, unknown>, fills };
}

/** `POST /knowledge/set_agent_files`: file ids known now, or the id an upload of this plan returns. */
export function agentFilesRequest(
  list: RequestList,
  agentId: string,
  files: Array<string | { resultOf: string }>,
  messages: unknown,
): void {
  const fills: ValueFill[] = [];
  const ids = files.map((file, i) => {
    if (typeof file === 'string') return file;
    fills.push({ at: ['files', i], value: { resultOf: file.resultOf } });
    return UNKNOWN_AFTER_APPLY;
  });
  const body: Record<string, unknown> = { agent_id: agentId, files: ids };
  if (Array.isArray(messages)) body.messages = messages;
  list.add({ operation: 'set_agent_files', method: 'POST', path: '/knowledge/set_agent_files', body, fills, after: fills.map((f) => (f.value as { resultOf: string }).resultOf) });
}

/** Import (when the number is not on the account), then the binding when it must change. */
export function phoneRequests(phone: DesiredPhone, options: { create: boolean; bind: boolean; after: readonly string[] }): PlannedRequest[] {
  const list = new RequestList(phone.address);
  if (options.create && phone.import) {
    const { body, fills } = withEntrySecrets({ ...phone.import }, { address: phone.address, secrets: entrySecretPaths('phone', phone.sensitivePaths), under: ['import'] });
    list.add({ operation: 'import_phone', method: 'POST', path: '/phones/import', body: { phone: phone.number, ...body }, fills });
  }
  if (options.bind && phone.agent) {
    list.add({
      operation: 'set_phone_agent',
      method: 'POST',
      path: `/phones/${encodeURIComponent(phone.number)}/set_agent`,
      body: { agent_id: phone.agent.id },
      after: options.after,
    });
  }
  return list.requests;
}

/** `info` when the name or the metadata flag changes, `set_caller` when the caller does. */
export function campaignRequests(campaign: DesiredCampaign, changed: ReadonlySet<string>, callerAfter: readonly string[]): PlannedRequest[] {
  const list = new RequestList(campaign.address);
  if (changed.has('name') || changed.has('include_metadata_in_prompt')) {
    const info: Record<string, unknown> = {};
    if (campaign.name !== undefined) info.name = campaign.name;
    if (campaign.include_metadata_in_prompt !== undefined) info.include_metadata_in_prompt = campaign.include_metadata_in_prompt;
    const { body, fills } = withEntrySecrets(info, { address: campaign.address, secrets: entrySecretPaths('campaign', campaign.sensitivePaths), under: [] });
    const infoPath = `/campaigns/${encodeURIComponent(campaign.id)}/info`;
    list.add({ operation: 'edit_campaign_info', method: 'PUT', path: infoPath, body, fills });
  }
  if (changed.has('caller') && campaign.caller !== undefined) {
    list.add({
      operation: 'set_campaign_caller',
      method: 'POST',
      path: `/campaigns/${encodeURIComponent(campaign.id)}/set_caller`,
      body: { caller: campaign.caller },
      after: callerAfter,
    });
  }
  return list.requests;
}

/** One upload step: presign, the file to the upload target, then create_file with this record. */
export function knowledgeRequests(file: DesiredKnowledgeFile): PlannedRequest[] {
  const list = new RequestList(file.address);
  const record: Record<string, unknown> = {
    filename: path.basename(file.path),
    content_hash: file.contentHash,
    name: file.name,
    file_type: file.mimeType,
    size: file.size,
  };
  if (file.description !== undefined) record.description = file.description;
  const { body, fills } = withEntrySecrets(record, { address: file.address, secrets: entrySecretPaths('knowledge', file.sensitivePaths), under: [] });
  list.add({ operation: 'upload_knowledge_file', method: 'POST', path: '/knowledge/create_file', body, fills });
  return list.requests;
}

export function credentialRequests(credential: DesiredCredential): PlannedRequest[] {
  const list = new RequestList(credential.address);
  const { body, fills } = withEntrySecrets({ provider: credential.provider, api_key: credential.apiKey }, { address: credential.address, secrets: entrySecretPaths('credential', []), under: [] });
  list.add({ operation: 'set_credential', method: 'POST', path: '/user/credentials', body, fills });
  return list.requests;
}

/**
 * A flat body from a manifest entry's values (found `under` a path of it: a phone's `import`), each
 * secret one replaced by the redaction marker, with the fills that read it from the manifests again.
 */
function withEntrySecrets(
  values: Record<string, unknown>,
  entry: { address: string; secrets: readonly string[]; under: readonly string[] },
): { body: Record<string, unknown>; fills: ValueFill[] } {
  const secret = secretPatternSet(entry.secrets);
  const fills: ValueFill[] = [];
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const place = [...entry.under, key];
    const hidden = value !== undefined && value !== null && secret.covers(place);
    setOwn(body, key, hidden ? REDACTED : value);
    if (hidden) fills.push({ at: [key], value: { secret: { address: entry.address, from: 'manifest', path: place } } });
  }
  return { body, fills };
}
