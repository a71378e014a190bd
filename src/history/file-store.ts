/**
 * The file backend's deploy ledger: one JSON file per apply in a folder beside the state file
 * (`.voxform/history/`), named by the record's id so a listing sorts by time. A record is written
 * atomically and never changed; a damaged or foreign file in the folder is skipped, not fatal, so
 * one bad file cannot hide the rest of the history.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { isPlainObject } from '../util/json-object.js';
import { recordedAgent, type HistoryRecord, type HistoryStore } from './types.js';

const RECORD_FILE = /^(\d{8}T\d{6}(?:\d{3})?Z-[0-9a-f]{6})\.json$/;

/** A new record id: the time to the millisecond, then randomness so two applies in one ms differ. */
export function newHistoryId(at: Date = new Date()): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export class FileHistoryStore implements HistoryStore {
  constructor(readonly directory: string) {}

  async append(record: Omit<HistoryRecord, 'id'>): Promise<HistoryRecord> {
    const stored: HistoryRecord = { id: newHistoryId(new Date(record.at)), ...record };
    await mkdir(this.directory, { recursive: true });
    await writeFileAtomic(path.join(this.directory, `${stored.id}.json`), `${JSON.stringify(stored, null, 2)}\n`);
    return stored;
  }

  async list(query: { workspace: string; agent?: string | undefined; limit?: number | undefined }): Promise<HistoryRecord[]> {
    const ids = (await this.recordIds()).reverse();
    const found: HistoryRecord[] = [];
    for (const id of ids) {
      if (query.limit !== undefined && found.length >= query.limit) break;
      const record = await this.read(id);
      if (!record || record.workspace !== query.workspace) continue;
      if (query.agent !== undefined && !recordedAgent(record, query.agent)) continue;
      found.push(record);
    }
    return found;
  }

  /** Every record id in the folder, oldest first. */
  private async recordIds(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return names.flatMap((name) => RECORD_FILE.exec(name)?.[1] ?? []).sort();
  }

  private async read(id: string): Promise<HistoryRecord | undefined> {
    try {
      const parsed: unknown = JSON.parse(await readFile(path.join(this.directory, `${id}.json`), 'utf8'));
      return isHistoryRecord(parsed) && parsed.id === id ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
}

function isHistoryRecord(value: unknown): value is HistoryRecord {
  return (
    isPlainObject(value) &&
    ['id', 'workspace', 'at', 'by', 'command', 'outcome'].every((key) => typeof value[key] === 'string') &&
    isPlainObject(value.source) &&
    isPlainObject(value.summary) &&
    isPlainObject(value.agents)
  );
}
