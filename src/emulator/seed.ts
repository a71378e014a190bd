/** Seeds: reading a seed file, checking it against the service schemas (every problem at once), loading it. */
import { VoxformError } from '../errors.js';
import { documentSyntaxError, readOperatorDocument } from '../project-files/operator-document.js';
import { MAX_KEPT_FILE_BYTES } from '../project-files/limits.js';
import { validateAgainst } from '../schema/validate.js';
import type { Agent, AgentConfigRead } from '../schema/types.gen.js';
import { defaultSeed } from './default-seed.js';
import { newId } from './ids.js';
import { sha256Hex } from '../util/hash.js';
import { MAX_JSON_DEPTH, valueTooDeep } from '../util/json-budget.js';
import type { EmulatorStore } from './store.js';
import type { CallRecord, EmulatorSeed, SeedKey } from './types.js';
import { formatIndexed } from '../util/field-path.js';

const SEED_KEYS = ['keys', 'agents', 'phones', 'campaigns', 'call_logs'] as const;

/** Reads a seed file; `.json` is JSON, anything else YAML (a superset of JSON). */
export async function readSeedFile(file: string): Promise<EmulatorSeed> {
  // A seed is an account: its cap is that of the emulator's data file.
  const read = await readOperatorDocument(file, { shown: file, maxBytes: MAX_KEPT_FILE_BYTES });
  if (read.ok) {
    checkSeed(read.value, file);
    return read.value;
  }
  if (read.unreadable) throw new VoxformError('emulator_seed_unreadable', `The seed file ${file} ${read.message}.`, { hint: 'Check the path given with --seed: a regular YAML or JSON file.' });
  throw documentSyntaxError('emulator_seed_invalid', 'The seed file', read, 'Fix the seed at that line and column (a file ending in .json is read as JSON, any other as YAML); see docs/emulator.md, "Seeds".');
}

/** Every problem of a seed, as `path: message` lines. */
export function seedProblems(value: unknown): string[] {
  const problems: string[] = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['the seed must be a mapping with keys, agents, phones, campaigns and call_logs'];
  // Before anything recurses over it: a stored value nested too deeply could not be served again.
  if (valueTooDeep(value)) return [`the seed nests deeper than ${MAX_JSON_DEPTH} levels`];
  const seed = value as Record<string, unknown>;
  for (const key of Object.keys(seed)) {
    if (!(SEED_KEYS as readonly string[]).includes(key)) problems.push(`${key}: is not a known field (expected ${SEED_KEYS.join(', ')})`);
  }
  const list = (key: (typeof SEED_KEYS)[number], check: (item: unknown, at: string) => void): void => {
    const items = seed[key];
    if (items === undefined || items === null) return;
    if (!Array.isArray(items)) {
      problems.push(`${key}: must be a list`);
      return;
    }
    items.forEach((item, index) => check(item, `${key}[${index}]`));
  };
  const bySchema = (name: string) => (item: unknown, at: string) => {
    for (const issue of validateAgainst(name, item)) problems.push(`${[at, formatIndexed(issue.path)].filter(Boolean).join('.')}: ${issue.message}`);
  };
  const unique = (key: (typeof SEED_KEYS)[number], field: string): void => {
    const items = seed[key];
    if (!Array.isArray(items)) return;
    const seen = new Map<unknown, number>();
    items.forEach((item, index) => {
      const id = (item as Record<string, unknown> | null)?.[field];
      if (id === undefined) return;
      const first = seen.get(id);
      if (first !== undefined) problems.push(`${key}[${index}].${field}: ${JSON.stringify(id)} is already used by ${key}[${first}]`);
      else seen.set(id, index);
    });
  };

  // A key listed twice (private and public) would be stored as one type and printed as the other.
  const keyAt = new Map<string, string>();
  list('keys', (item, at) => {
    const key = item as Partial<SeedKey> | null;
    if (!key || typeof key !== 'object') return void problems.push(`${at}: must be a mapping`);
    if (key.type !== 'private' && key.type !== 'public') problems.push(`${at}.type: must be "private" or "public"`);
    const hasKey = typeof key.key === 'string' && key.key.length > 0;
    const hasHash = typeof key.hash === 'string' && /^[0-9a-f]{64}$/.test(key.hash);
    if (!hasKey && !hasHash) problems.push(`${at}: needs the raw \`key\` or its sha256 \`hash\` (64 hex digits)`);
    if (hasKey && hasHash && sha256Hex(key.key as string) !== key.hash) problems.push(`${at}.hash: is not the sha256 of \`key\` (give one of them)`);
    const hash = hasKey ? sha256Hex(key.key as string) : hasHash ? (key.hash as string) : undefined;
    if (hash !== undefined) {
      const first = keyAt.get(hash);
      if (first !== undefined) problems.push(`${at}: is the same key as ${first}`);
      else keyAt.set(hash, at);
    }
    for (const field of Object.keys(key)) {
      if (!['type', 'key', 'hash', 'id', 'name', 'created_at', 'is_default', 'legacy'].includes(field)) problems.push(`${at}.${field}: is not a known field`);
    }
  });
  list('agents', bySchema('Agent'));
  list('phones', bySchema('Phone'));
  list('campaigns', bySchema('Campaign'));
  list('call_logs', (item, at) => {
    bySchema('GlobalCallHistoryRecord')(item, at);
    const record = item as Record<string, unknown> | null;
    if (!record || typeof record !== 'object') return;
    for (const field of ['call_id', 'agent_id'] as const) {
      if (typeof record[field] !== 'string') problems.push(`${at}.${field}: is required (a string)`);
    }
    if (typeof record.ts !== 'number') problems.push(`${at}.ts: is required (Unix seconds)`);
  });
  unique('agents', 'id');
  unique('phones', 'id');
  unique('campaigns', 'id');
  unique('call_logs', 'call_id');
  return problems;
}

/** Throws a VoxformError naming every problem when `value` is not a valid seed. */
export function checkSeed(value: unknown, label: string): asserts value is EmulatorSeed {
  const problems = seedProblems(value);
  if (problems.length === 0) return;
  const shown = problems.slice(0, 20).map((p) => `  ${p}`).join('\n');
  const more = problems.length > 20 ? `\n  … and ${problems.length - 20} more` : '';
  throw new VoxformError('emulator_seed_invalid', `The seed ${label} is invalid:\n${shown}${more}`, {
    hint: 'Agents need full read-shape configs; see docs/emulator.md, "Seeds".',
    details: { problems },
  });
}

/** Replaces the store's account with a (checked) seed; the store keeps the first raw private key to print. */
export function loadSeedIntoStore(store: EmulatorStore, seed: EmulatorSeed): void {
  const copy = structuredClone(seed);
  store.clear();
  for (const key of copy.keys ?? []) {
    const hash = key.hash ?? sha256Hex(key.key as string);
    store.keys.set(hash, {
      id: key.id ?? newId('key'),
      type: key.type,
      name: key.name ?? null,
      created_at: key.created_at ?? 0,
      revoked_at: null,
      prefix: key.key ? key.key.slice(0, 8) : '',
      legacy: key.legacy ?? false,
      is_default: key.is_default ?? false,
      hash,
    });
    if (key.type === 'private' && key.key && store.seedPrivateKey === null) store.seedPrivateKey = key.key;
  }
  for (const agent of copy.agents ?? []) store.agents.set(agent.id, agent as Agent & { config: AgentConfigRead });
  for (const phone of copy.phones ?? []) store.phones.set(phone.id, { ...phone, provider: phone.provider ?? 'twilio' });
  for (const campaign of copy.campaigns ?? []) store.campaigns.set(campaign.id, campaign);
  store.callLog.insertMany(shareIdenticalConfigs((copy.call_logs ?? []) as CallRecord[]));
}

/**
 * Records with the same `agent_config` text share one object, as synthetic traffic's do: a shared
 * config is held once, and written once in a data file (`shared_configs`), where a seed has a copy
 * per record.
 */
function shareIdenticalConfigs(records: CallRecord[]): CallRecord[] {
  const byText = new Map<string, CallRecord['agent_config']>();
  for (const record of records) {
    const config = record.agent_config;
    if (config === null || typeof config !== 'object') continue;
    const text = JSON.stringify(config);
    const shared = byText.get(text);
    if (shared === undefined) byText.set(text, config);
    else record.agent_config = shared;
  }
  return records;
}

/** Resolves the `seed` option: a file path, an object (checked), or the default. */
export async function resolveSeed(seed: string | EmulatorSeed | undefined): Promise<EmulatorSeed> {
  if (seed === undefined) return defaultSeed();
  if (typeof seed === 'string') return readSeedFile(seed);
  checkSeed(seed, 'object');
  return structuredClone(seed);
}
