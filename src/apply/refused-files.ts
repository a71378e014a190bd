/**
 * Knowledge file ids the service refused as unknown: read from its answer to an attach once, so that
 * the failure's hint (`withRefusedFilesHint`) and the state's record of it (record-state.ts) tell of
 * the same files.
 */
import { isApiError } from '../api/errors.js';
import type { PlannedRequest, ResourceChange } from '../plan/types.js';
import type { DesiredIndex } from './resources.js';

/** A knowledge file by address, with the id the state recorded for it. */
export interface RefusedFile {
  address: string;
  fileId: string;
}

/**
 * The files a `set_agent_files` was refused for as unknown (a 422 at `files[i]`) whose id the plan
 * took from the state, not from an upload of this run: each by address, with that id.
 */
export function refusedRecordedFiles(request: PlannedRequest, change: ResourceChange, error: unknown, resources: DesiredIndex): RefusedFile[] {
  const files = request.body?.files;
  if (request.operation !== 'set_agent_files' || !isApiError(error) || error.code !== 'api_validation' || !Array.isArray(files)) return [];
  const uploaded = new Set(request.fills.map((fill) => fill.at[1]));
  const localNames = resources.of(change.address, 'agent').knowledge ?? [];
  const refused: RefusedFile[] = [];
  for (const [where, field, index] of error.loc) {
    if (where !== 'body' || field !== 'files' || typeof index !== 'number' || uploaded.has(index)) continue;
    const fileId: unknown = files[index];
    const localName = localNames[index];
    if (typeof fileId === 'string' && localName !== undefined) refused.push({ address: `knowledge.${localName}`, fileId });
  }
  return refused;
}

/**
 * `error` with a hint naming the `refused` files: their refusal says nothing of the manifests, the
 * service lost the files since. Apply forgets them (`stateAfterRefusedFiles`), so the next one uploads them again.
 */
export function withRefusedFilesHint(error: unknown, refused: readonly RefusedFile[]): unknown {
  if (refused.length === 0 || !isApiError(error)) return error;
  const files = refused.map(({ address, fileId }) => `${address} (${fileId})`).join(', ');
  return error.withHint(`The service no longer has the knowledge file the state recorded for ${files}: deleted on the service since it was uploaded. The manifest is fine: voxform forgot that id, and the next apply uploads the file again.`);
}
