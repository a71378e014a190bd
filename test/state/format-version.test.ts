/**
 * One rule keeps a team on mixed voxform versions safe (docs/state.md, "Format versions"): a field
 * with meaning added to the state raises the state's format version, so that an older voxform
 * refuses the state ("upgrade voxform") rather than read it without the field and write it back
 * without it. The members of the state's types are pinned here per format version: a new member
 * fails this test until the version is raised and the new format pinned.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_FORMAT_VERSION } from '../../src/state/format-version.js';
import { MIGRATIONS } from '../../src/state/postgres/schema.js';
import { repoRoot } from '../helpers/cli.js';

/** The members each exported interface of `file` declares (`applied.name` for one of a type written inline). */
function declaredMembers(file: string, names: readonly string[]): Record<string, string[]> {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  const members: Record<string, string[]> = {};
  for (const name of names) {
    const body = new RegExp(`^export interface ${name}\\b[^{]*\\{\\n([\\s\\S]*?)^\\}`, 'm').exec(text)?.[1];
    if (body === undefined) throw new Error(`${file} declares no interface ${name}`);
    members[name] = [];
    for (const [, member, rest] of body.matchAll(/^ {2}(?:readonly )?(\w+)\??: (.*)$/gm)) {
      members[name].push(member as string);
      const inline = /\{([^{}]*)\}/.exec(rest as string)?.[1];
      for (const [, inner] of inline?.matchAll(/(\w+)\??:/g) ?? []) members[name].push(`${member}.${inner}`);
    }
  }
  return members;
}

const STATE_TYPES = ['StateFile', 'WorkspaceState', 'LastApply', 'AgentState', 'PhoneState', 'SharedWrite', 'CampaignState', 'KnowledgeState', 'CredentialState'];

const FORMAT_1 = {
  StateFile: ['version', 'serial', 'workspaces'],
  WorkspaceState: ['agents', 'phones', 'campaigns', 'knowledge', 'credentials', 'environmentVariables', 'lastApply'],
  // Only informs (`status`): an older voxform drops what it does not know of it, and nothing acts on it.
  LastApply: ['at', 'by', 'command', 'outcome', 'applied', 'partlyApplied', 'failed', 'skipped', 'notApplied'],
  AgentState: ['id', 'applied'],
  PhoneState: ['agentId', 'imported'],
  SharedWrite: [],
  CampaignState: ['id', 'applied', 'applied.name', 'applied.include_metadata_in_prompt', 'applied.caller'],
  KnowledgeState: ['fileId', 'contentHash', 'name', 'description'],
  CredentialState: ['fingerprint'],
};

/** The members of each state format. A released format is never edited: a change is a new format. */
const STATE_FORMATS: Record<number, Record<string, string[]>> = {
  1: FORMAT_1,
  2: {
    ...FORMAT_1,
    AgentState: [...FORMAT_1.AgentState, 'fingerprintKeyId', 'foundLive'],
    PhoneState: [...FORMAT_1.PhoneState, 'foundLive'],
    SharedWrite: ['writeOrder', 'writeUnrecorded'],
    CredentialState: [...FORMAT_1.CredentialState, 'fingerprintKeyId'],
  },
};

const RAISE = `The state's types (src/state/types.ts) differ from the pinned members of state format ${STATE_FORMAT_VERSION}. A field with meaning added to the state must raise the state format version, or an older voxform reads the state without it and writes it back without it: raise the state format version (STATE_FORMAT_VERSION in src/state/format-version.ts), add a PostgreSQL migration with the new stateFormat (src/state/postgres/schema.ts), pin the new format's members here, and say what it adds in docs/state.md ("Format versions").`;

describe('the state format version', () => {
  it('is raised with every member added to the state: each format\'s members are pinned', () => {
    expect(STATE_FORMATS[STATE_FORMAT_VERSION], `State format ${STATE_FORMAT_VERSION} is not pinned here: add its members to STATE_FORMATS.`).toBeDefined();
    expect(declaredMembers('src/state/types.ts', STATE_TYPES), RAISE).toEqual(STATE_FORMATS[STATE_FORMAT_VERSION]);
  });

  it('only adds members from one format to the next: an older format is read as the newer one', () => {
    for (let version = 2; version <= STATE_FORMAT_VERSION; version++) {
      for (const [type, members] of Object.entries(STATE_FORMATS[version - 1] ?? {})) expect(STATE_FORMATS[version]?.[type]).toEqual(expect.arrayContaining(members));
    }
  });

  // The database's rows hold no format version, and an older voxform reads them unchecked: what it
  // does check is the schema version, refusing one newer than it knows.
  it('is raised on PostgreSQL too: a migration marks the rows as the current format, so an older voxform refuses the database', () => {
    const marked = MIGRATIONS.filter((migration) => migration.stateFormat !== undefined);
    expect(Math.max(1, ...marked.map((migration) => migration.stateFormat as number)), RAISE).toBe(STATE_FORMAT_VERSION);
    expect(marked.map((migration) => migration.stateFormat)).toEqual([...new Set(marked.map((migration) => migration.stateFormat))].sort());
  });
});

const RECORD_TYPES = ['HistoryRecord', 'DeploySource', 'PromotionSource', 'DeploySummary', 'AgentVersion', 'TestRunRecord', 'TestOutcome'];

/** The members of history records and test runs as this voxform writes them. */
const RECORD_MEMBERS = {
  HistoryRecord: ['id', 'workspace', 'at', 'by', 'command', 'outcome', 'source', 'summary', 'agents', 'previous', 'seal'],
  DeploySource: ['commit', 'branch', 'pullRequest', 'ciJobUrl', 'uncommitted', 'rollbackOf', 'healOf', 'promotedFrom'],
  PromotionSource: ['workspace', 'record'],
  DeploySummary: ['create', 'update', 'unchanged', 'drifted', 'applied', 'partlyApplied', 'failed', 'skipped', 'notApplied'],
  AgentVersion: ['id', 'name', 'config', 'knowledge', 'configHash', 'maskedPaths', 'promptLength', 'unrecordedSecrets', 'written'],
  TestRunRecord: ['id', 'workspace', 'at', 'by', 'command', 'source', 'agents', 'agents.id', 'agents.configHash', 'suiteDigest', 'summary', 'summary.passed', 'summary.failed', 'summary.skipped', 'summary.errors', 'tests', 'previous', 'seal'],
  TestOutcome: ['file', 'agent', 'name', 'status', 'passes', 'runs', 'passRate'],
};

describe('history records and test runs', () => {
  // They carry no format version: an older voxform reads a newer record without what it does not know.
  // `seal`: an older voxform ignores it and writes records without one, which a newer voxform's
  // promote does not take as evidence (docs/promotion.md, "Sealed evidence"): safe, if slower.
  it('gain a member only once it is settled that an older voxform ignoring it still acts rightly', () => {
    expect(
      declaredMembers('src/history/types.ts', RECORD_TYPES),
      'A member was added to history records or test runs (src/history/types.ts). An older voxform reads the record without it: add it only if that older voxform, ignoring it, still acts rightly (docs/state.md, "Format versions"); then pin it here.',
    ).toEqual(RECORD_MEMBERS);
  });
});
