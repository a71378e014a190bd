/** The state document checked whole when read: every shape voxform does not write is refused, naming where. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkWorkspace } from '../../src/state/check-state.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { readStateFile } from '../../src/state/state-file.js';
import { STATE_FORMAT_VERSION } from '../../src/state/format-version.js';
import { migrateState } from '../../src/state/migrate.js';
import { openStateSpec } from '../../src/state/open.js';
import { MIGRATIONS } from '../../src/state/postgres/schema.js';
import { repoRoot, useTempDirs } from '../helpers/cli.js';
import { asAdmin, databaseAtSchema } from '../helpers/postgres.js';

const tempDir = useTempDirs();

const AGENT = { id: '-OKdqbqetEcM4ak369ym', applied: { name: 'sha256:1' } };
/** A state of one workspace whose `map` holds `entry` at `address`. */
function withEntry(map: string, address: string, entry: unknown): unknown {
  return { version: 1, serial: 1, workspaces: { 'default@local': { [map]: { [address]: entry } } } };
}

const WORKSPACE = 'workspaces["default@local"]';
const NOT_A_WORKSPACE_NAME = 'is named as no workspace is: a workspace is ENVIRONMENT@SERVICE (an environment name, "@", then "local" or the service\'s URL).';
const FRONT_DESK = `${WORKSPACE}.agents["agent.front-desk"]`;
const UP_TO_LARGEST_COUNT = 'a whole number up to 4503599627370496 (2^52, far more writes than any state makes)';

/** `state`: the document, or a string written as the file's text as it is (JSON that no value stands for). */
const refused: Array<{ name: string; state: unknown; message: string }> = [
  { name: 'a document of null', state: null, message: 'it is null, where an object with version, serial and workspaces belongs' },
  { name: 'a list of workspaces', state: { version: 1, serial: 0, workspaces: [] }, message: 'workspaces is a list, where an object of workspaces by name belongs' },
  { name: 'no version', state: { workspaces: {} }, message: 'version is missing, where a format version from 1 to 2 belongs' },
  { name: 'a version that is no whole number', state: { version: 1.5, workspaces: {} }, message: 'version is the number 1.5, where a format version from 1 to 2 belongs' },
  // Not a version at all, so not a newer one: no upgrade reads it.
  { name: 'a version that is no whole number above the latest', state: { version: 2.5, workspaces: {} }, message: 'version is the number 2.5, where a format version from 1 to 2 belongs' },
  { name: 'a version too large for a number (1e400, read as Infinity)', state: '{"version": 1e400, "workspaces": {}}', message: 'version is the number Infinity, where a format version from 1 to 2 belongs' },
  { name: 'a serial that is a string', state: { version: 1, serial: '3', workspaces: {} }, message: 'serial is a string, where a whole number, 0 or more belongs' },
  { name: 'a serial past 2^53 − 1', state: { version: 1, serial: 1e20, workspaces: {} }, message: `serial is the number 100000000000000000000, where ${UP_TO_LARGEST_COUNT} belongs` },
  // The next write would count past 2^53 − 1, which JSON reads rounded: refused before any run writes from it.
  { name: 'a serial of 2^53 − 1', state: { version: 1, serial: Number.MAX_SAFE_INTEGER, workspaces: {} }, message: `serial is the number 9007199254740991, where ${UP_TO_LARGEST_COUNT} belongs` },
  { name: 'a serial one past 2^52', state: { version: 1, serial: 2 ** 52 + 1, workspaces: {} }, message: `serial is the number 4503599627370497, where ${UP_TO_LARGEST_COUNT} belongs` },
  { name: 'a write order past 2^53 − 1', state: withEntry('campaigns', 'campaign.reminders', { id: 'c1', applied: {}, writeOrder: 2 ** 60 }), message: `${WORKSPACE}.campaigns["campaign.reminders"].writeOrder is the number 1152921504606847000, where ${UP_TO_LARGEST_COUNT} belongs` },
  { name: 'a write order of 2^53 − 1', state: withEntry('credentials', 'credential.openai', { fingerprint: 'x', writeOrder: Number.MAX_SAFE_INTEGER }), message: `${WORKSPACE}.credentials["credential.openai"].writeOrder is the number 9007199254740991, where ${UP_TO_LARGEST_COUNT} belongs` },
  { name: 'a workspace of null', state: { version: 1, workspaces: { 'default@local': null } }, message: `${WORKSPACE} is null, where a workspace (an object with agents, phones, campaigns, knowledge and credentials) belongs` },
  { name: 'a workspace that is a string', state: { version: 1, workspaces: { 'default@local': 'x' } }, message: `${WORKSPACE} is a string, where a workspace (an object with agents, phones, campaigns, knowledge and credentials) belongs` },
  { name: 'a map of entries that is a list', state: { version: 1, workspaces: { 'default@local': { phones: [] } } }, message: `${WORKSPACE}.phones is a list, where an object of entries by address belongs` },
  { name: 'an entry of null', state: withEntry('credentials', 'credential.openai', null), message: `${WORKSPACE}.credentials["credential.openai"] is null, where an object belongs` },
  { name: "an agent's applied hashes of null", state: withEntry('agents', 'agent.front-desk', { id: AGENT.id, applied: null }), message: `${FRONT_DESK}.applied is null, where an object of field paths and hashes belongs` },
  { name: "an agent's hash that is a number", state: withEntry('agents', 'agent.front-desk', { id: AGENT.id, applied: { name: 7 } }), message: `${FRONT_DESK}.applied.name is the number 7, where a hash (a string) belongs` },
  { name: 'an agent without id', state: withEntry('agents', 'agent.front-desk', { applied: {} }), message: `${FRONT_DESK}.id is missing, where the agent's id (a string) belongs` },
  { name: "an agent's paths found live that are no list", state: withEntry('agents', 'agent.front-desk', { id: AGENT.id, applied: {}, foundLive: 'name' }), message: `${FRONT_DESK}.foundLive is a string, where a list of the field paths found live and never sent (strings), or nothing belongs` },
  { name: 'a phone found live that is not true', state: withEntry('phones', 'phone.+15551230001', { imported: false, foundLive: 1 }), message: `${WORKSPACE}.phones["phone.+15551230001"].foundLive is the number 1, where true (the number was found bound and never sent), or nothing belongs` },
  { name: 'a phone whose imported is a string', state: withEntry('phones', 'phone.+15551230001', { imported: 'yes' }), message: `${WORKSPACE}.phones["phone.+15551230001"].imported is a string, where true or false belongs` },
  { name: "a campaign's caller that is a number", state: withEntry('campaigns', 'campaign.reminders', { id: 'c1', applied: { caller: 1 } }), message: `${WORKSPACE}.campaigns["campaign.reminders"].applied.caller is the number 1, where a phone number (a string), or nothing belongs` },
  { name: "a knowledge file's id that is a number", state: withEntry('knowledge', 'knowledge.faq', { fileId: 5, contentHash: 'sha256:1', name: 'faq' }), message: `${WORKSPACE}.knowledge["knowledge.faq"].fileId is the number 5, where the service's file id (a string) belongs` },
  { name: "a campaign's write order that is 0", state: withEntry('campaigns', 'campaign.reminders', { id: 'c1', applied: {}, writeOrder: 0 }), message: `${WORKSPACE}.campaigns["campaign.reminders"].writeOrder is the number 0, where the order of the write among the environments (a whole number above 0) belongs` },
  { name: "a campaign's unrecorded write that is not true", state: withEntry('campaigns', 'campaign.reminders', { id: 'c1', applied: {}, writeUnrecorded: 'yes' }), message: `${WORKSPACE}.campaigns["campaign.reminders"].writeUnrecorded is a string, where true (a write whose outcome the state never recorded) belongs` },
  { name: "a credential's write order that is a string", state: withEntry('credentials', 'credential.openai', { fingerprint: 'x', writeOrder: '2' }), message: `${WORKSPACE}.credentials["credential.openai"].writeOrder is a string, where the order of the write among the environments (a whole number above 0) belongs` },
  { name: 'a credential without fingerprint', state: withEntry('credentials', 'credential.openai', {}), message: `${WORKSPACE}.credentials["credential.openai"].fingerprint is missing, where a fingerprint (a string) belongs` },
  { name: 'a workspace name holding a terminal escape', state: { version: 1, workspaces: { 'default@local\u001b[31m': {} } }, message: `workspaces["default@local\\u001b[31m"] ${NOT_A_WORKSPACE_NAME}` },
  { name: 'a workspace name without a service', state: { version: 1, workspaces: { staging: {} } }, message: `workspaces.staging ${NOT_A_WORKSPACE_NAME}` },
  { name: 'a workspace name whose environment is no environment name', state: { version: 1, workspaces: { '../x@local': {} } }, message: `workspaces["../x@local"] ${NOT_A_WORKSPACE_NAME}` },
  { name: 'a workspace name whose service is neither local nor a URL', state: { version: 1, workspaces: { 'staging@elsewhere': {} } }, message: `workspaces["staging@elsewhere"] ${NOT_A_WORKSPACE_NAME}` },
];

describe('the state file, checked whole when read', () => {
  it.each(refused)('refuses $name with state_invalid, naming where', async ({ state, message }) => {
    const dir = await tempDir();
    const file = path.join(dir, 'state.json');
    await writeFile(file, typeof state === 'string' ? state : JSON.stringify(state));
    const error = await readStateFile(file, '.voxform/state.json').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'state_invalid', message: expect.stringContaining(`The state file .voxform/state.json is not a state voxform wrote: ${message}`) });
    // Every reader goes through it: plan, apply and status read the workspace through the backend.
    await expect(new FileStateBackend(file).readWorkspace('default@local')).rejects.toMatchObject({ code: 'state_invalid' });
  });

  it('refuses a workspace named __proto__ (JSON makes it a member like any other), naming it, and state list never shows it', async () => {
    const file = path.join(await tempDir(), 'state.json');
    await writeFile(file, '{"version": 2, "serial": 2, "workspaces": {"default@local": {}, "__proto__": {}}}');
    const error = await readStateFile(file, '.voxform/state.json').catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'state_invalid',
      message: `The state file .voxform/state.json is not a state voxform wrote: workspaces.__proto__ ${NOT_A_WORKSPACE_NAME}`,
      hint: 'Correct or delete workspaces.__proto__ (voxform then plans what it held as never applied); or restore the file from version control or your CI cache.',
    });
    await expect(new FileStateBackend(file).listWorkspaces()).rejects.toMatchObject({ code: 'state_invalid' });
  });

  it("refuses a database row named as no workspace is, as the file's member: state list never shows it, nor does a migration copy it into a file every command refuses", async () => {
    const { url, database } = await databaseAtSchema(MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0);
    await asAdmin((client) => client.query(`INSERT INTO voxform_workspaces (workspace, serial, state, updated_at) VALUES ('default@local', 1, '{}', now()), ('__proto__', 1, '{}', now())`), database);
    const source = await openStateSpec(url, { env: {}, cwd: repoRoot, registerSecret: () => undefined });
    const file = path.join(await tempDir(), 'state.json');
    const target = new FileStateBackend(file);
    try {
      const refusal = {
        code: 'state_invalid',
        message: `The state database ${source.display} is not a state voxform wrote: it holds a workspace named "__proto__": a workspace is ENVIRONMENT@SERVICE (an environment name, "@", then "local" or the service's URL).`,
        hint: 'Delete the rows of that workspace from voxform_workspaces and voxform_locks (no command reads or writes it), or restore the database from a backup.',
      };
      await expect(source.listWorkspaces()).rejects.toMatchObject(refusal);
      await expect(migrateState(source, target, { force: false })).rejects.toMatchObject(refusal);
      expect(await target.listWorkspaces()).toEqual([]);
    } finally {
      await source.close();
    }
  });

  it('reads the workspaces voxform names: an environment at local or at a service URL', async () => {
    const file = path.join(await tempDir(), 'state.json');
    await writeFile(file, JSON.stringify({ version: 2, serial: 1, workspaces: { 'default@local': {}, 'staging@https://api-west.millis.ai': {}, 'dev.1@http://127.0.0.1:4010/v1': {} } }));
    expect((await new FileStateBackend(file).listWorkspaces()).map((workspace) => workspace.key).sort()).toEqual(['default@local', 'dev.1@http://127.0.0.1:4010/v1', 'staging@https://api-west.millis.ai']);
  });

  it('a file that is not JSON (cut short): its hint says deleting it leaves apply refused until --allow-missing-state, as apply then is', async () => {
    const file = path.join(await tempDir(), 'state.json');
    await writeFile(file, '{"version": 2, "serial": 4, "workspa');
    await expect(readStateFile(file, '.voxform/state.json')).rejects.toMatchObject({
      code: 'state_invalid',
      message: 'The state file .voxform/state.json is not valid JSON.',
      hint: expect.stringContaining('apply, where the history beside the file records applies, refuses until given --allow-missing-state'),
    });
  });

  it('says how to fix it: correct the value, or delete its entry or workspace, or restore the file', async () => {
    const file = path.join(await tempDir(), 'state.json');
    await writeFile(file, JSON.stringify(withEntry('agents', 'agent.front-desk', { id: AGENT.id, applied: null })));
    await expect(readStateFile(file, 'state.json')).rejects.toMatchObject({
      hint: `Correct ${FRONT_DESK}.applied, or delete ${FRONT_DESK} (voxform then plans what it held as never applied); or restore the file from version control or your CI cache.`,
      details: { path: ['workspaces', 'default@local', 'agents', 'agent.front-desk', 'applied'] },
    });
    await writeFile(file, JSON.stringify({ version: 1, workspaces: { 'default@local': null } }));
    await expect(readStateFile(file, 'state.json')).rejects.toMatchObject({
      hint: `Correct or delete ${WORKSPACE} (voxform then plans what it held as never applied); or restore the file from version control or your CI cache.`,
    });
    await writeFile(file, JSON.stringify({ version: STATE_FORMAT_VERSION + 1, workspaces: {} }));
    await expect(readStateFile(file, 'state.json')).rejects.toMatchObject({
      code: 'state_invalid',
      message: `The state file state.json has format version ${STATE_FORMAT_VERSION + 1}, newer than this voxform reads (up to ${STATE_FORMAT_VERSION}).`,
      hint: 'It comes from a newer voxform: upgrade voxform, or use another --state file.',
    });
  });

  it('accepts what voxform writes and what older versions wrote: missing maps and serial, unknown members', async () => {
    const file = path.join(await tempDir(), 'state.json');
    const workspace = { agents: { 'agent.front-desk': AGENT }, phones: { 'phone.+15551230001': { imported: false } }, knowledge: { 'knowledge.faq': { fileId: 'f1', contentHash: 'sha256:2', name: 'faq' } }, future: 1 };
    await writeFile(file, JSON.stringify({ version: 1, salt: 'old', workspaces: { 'default@local': workspace } }));
    // Read as this voxform's format: the next write says so, and an older voxform refuses it.
    expect(await readStateFile(file)).toEqual({
      version: STATE_FORMAT_VERSION,
      serial: 0,
      workspaces: { 'default@local': { ...workspace, campaigns: {}, credentials: {} } },
    });
  });
  it('accepts a serial and a write order up to 2^52, leaving room below 2^53 for every write to count on', async () => {
    const file = path.join(await tempDir(), 'state.json');
    await writeFile(file, JSON.stringify({ ...(withEntry('campaigns', 'campaign.reminders', { id: 'c1', applied: {}, writeOrder: 2 ** 52 }) as object), serial: 2 ** 52 }));
    const state = await readStateFile(file);
    expect(state.serial).toBe(2 ** 52);
    expect(state.workspaces['default@local']?.campaigns['campaign.reminders']?.writeOrder).toBe(2 ** 52);
  });
});

describe('a workspace as a database row stores it', () => {
  it("refuses a serial the file's rule refuses, or below 1 (where a write would insert the row again), before plan, apply or state list use it", async () => {
    const { url, database } = await databaseAtSchema(MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0);
    const backend = await openStateSpec(url, { env: {}, cwd: repoRoot, registerSecret: () => undefined });
    try {
      await asAdmin((client) => client.query(`INSERT INTO voxform_workspaces (workspace, serial, state, updated_at) VALUES ('default@local', 1, '{}', now())`), database);
      const refusals = [
        ['9007199254740993', UP_TO_LARGEST_COUNT],
        ['9223372036854775807', UP_TO_LARGEST_COUNT],
        ['4503599627370497', UP_TO_LARGEST_COUNT],
        ['-1', 'a whole number, 1 or more'],
        ['0', 'a whole number, 1 or more'],
      ];
      for (const [serial, expected] of refusals) {
        await asAdmin((client) => client.query('UPDATE voxform_workspaces SET serial = $1', [serial]), database);
        const refusal = {
          code: 'state_invalid',
          message: `The state of workspace default@local in ${backend.display} is not a state voxform wrote: serial is the number ${serial}, where ${expected} belongs.`,
          hint: 'Correct serial; or restore the row from a backup, or migrate the state in again (`voxform state migrate --force`).',
        };
        await expect(backend.readWorkspace('default@local')).rejects.toMatchObject(refusal);
        await expect(backend.listWorkspaces()).rejects.toMatchObject(refusal);
      }
      await asAdmin((client) => client.query('UPDATE voxform_workspaces SET serial = $1', [2 ** 52]), database);
      expect((await backend.readWorkspace('default@local')).serial).toBe(2 ** 52);
    } finally {
      await backend.close();
    }
  });

  it('is checked the same way, paths starting at the workspace', () => {
    expect(() => checkWorkspace({ agents: { 'agent.front-desk': { id: AGENT.id, applied: null } } }, 'The state of workspace default@local in postgres://db')).toThrow(
      expect.objectContaining({
        code: 'state_invalid',
        message: 'The state of workspace default@local in postgres://db is not a state voxform wrote: agents["agent.front-desk"].applied is null, where an object of field paths and hashes belongs.',
        hint: 'Correct agents["agent.front-desk"].applied, or delete agents["agent.front-desk"] (voxform then plans what it held as never applied); or restore the row from a backup, or migrate the state in again (`voxform state migrate --force`).',
      }),
    );
  });
});
