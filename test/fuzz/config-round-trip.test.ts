/**
 * Seeded agent configurations drawn from the manifest's own schema (`AgentConfigSpec`: every field,
 * nested objects, lists of tools and functions, free-form settings, `null` to clear, odd text) go
 * round the whole pipeline against an emulator: `apply` → a `plan` with nothing to do → a dashboard
 * edit → `drift --heal` → nothing to do again → `export` → a `plan` of the exported manifest with
 * nothing to do, with a knowledge file attached to every other agent. Each step is a promise of docs/plan.md, docs/drift.md and docs/export.md; what broke
 * one of them once: a `null` inside a tool (apply refused its own request), a `null` at any depth
 * (the heal refused the record it wrote), `knowledge_base.messages: null` beside knowledge (never matched). The seed is in the test name; VOXFORM_FUZZ_SEED repeats a run.
 */
import { readFileSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createClient, defaultSeed, startEmulator, type ApiClient, type RunningEmulator } from '../../src/index.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { repoRoot, runCliInProcess, useTempDirs, type CliResult } from '../helpers/cli.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';

const SEED = fuzzSeed(20_261_204);
const CASES = 12;
/** Every header the generator writes reads this variable: the exported manifest's variables are set to it. */
const TOKEN = 'round-trip-token-7f3a';

type SchemaNode = { $ref?: string; anyOf?: SchemaNode[]; type?: string; enum?: unknown[]; properties?: Record<string, SchemaNode>; additionalProperties?: boolean | SchemaNode; items?: SchemaNode; minimum?: number; maximum?: number; minLength?: number; pattern?: string; 'x-sensitive'?: boolean; 'x-required-after-merge'?: string[] };
const definitions = (JSON.parse(readFileSync(path.join(repoRoot, 'schemas/manifest.schema.json'), 'utf8')) as { $defs: Record<string, SchemaNode> }).$defs;

/** Text a manifest and the service must carry exactly: YAML's own characters, line breaks, blanks at the ends, non-ASCII. */
const TEXTS = ['', ' ', 'hello world', 'line one\nline two', 'trailing\n', 'two\n\n', '  lead', 'tail  ', 'tab\there', 'é ü 中文 💥', '# not a comment', 'key: value', '- item', 'null', 'true', '123', '1e3', '~', '"quoted"', "it's", '$${env:X}', '{{ var }}', 'a\r\nb', '...', '---', '*ref', '&anchor', '!tag', '@at', '`tick`', '\\back\\slash', 'https://hooks.example.com/voice'];
const NUMBERS = [0, 1, -1, 0.5, 2, 300, 2500, 0.1, 123456789, 1e-7];
/** Left out: the service refuses a knowledge file id it does not have (`knowledge:` attaches a file instead), and a literal credential is never recorded, so never healed (docs/history.md). */
const LEFT_OUT = new Set(['files', 'credentials']);

function configGenerator(seed: number) {
  const next = seededRandom(seed);
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const draw = (node: SchemaNode, depth: number): unknown => {
    if (node.$ref) return draw(definitions[node.$ref.split('/').pop() as string] as SchemaNode, depth);
    if (node.anyOf) {
      if (next() < 0.05) return null;
      return draw(pick(node.anyOf.filter((option) => !/\/(Clear|FileInclude)$/.test(option.$ref ?? ''))), depth);
    }
    if (node['x-sensitive']) return Object.fromEntries(Array.from({ length: 1 + int(2) }, () => [pick(['authorization', 'x-token', 'X-Api-Key']), `\${env:ROUND_TRIP_TOKEN}`]));
    if (node.enum) return pick(node.enum);
    switch (node.type) {
      case 'string':
        // The one pattern of a config is a phone number's.
        if (node.pattern) return '+15551230001';
        return node.minLength ? 'https://hooks.example.com/end' : pick(TEXTS);
      case 'number':
        return Math.min(node.maximum ?? Infinity, Math.max(node.minimum ?? -Infinity, pick(NUMBERS)));
      case 'boolean':
        return next() < 0.5;
      case 'array':
        return Array.from({ length: int(depth > 3 ? 2 : 3) }, () => draw(node.items ?? { type: 'string' }, depth + 1));
      default:
        return drawObject(node, depth);
    }
  };
  const drawObject = (node: SchemaNode, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node.properties ?? {})) if (!LEFT_OUT.has(key) && next() < 0.55) out[key] = draw(child, depth + 1);
    for (const key of node['x-required-after-merge'] ?? []) out[key] ??= 'https://hooks.example.com/end';
    if (node.additionalProperties === true) for (let i = int(3); i > 0; i--) out[pick(['stability', 'weird key', 'a.b', 'ünï', '0'])] = pick<unknown>([pick(TEXTS), pick(NUMBERS), true, { inner: pick(TEXTS) }, [1, 'two']]);
    return out;
  };
  return () => drawObject(definitions['AgentConfigSpec'] as SchemaNode, 0);
}

/** A config as the dashboard sets it: nothing cleared, each header holding the token itself. */
function asTheDashboardSetsIt(value: unknown): unknown {
  if (value === '${env:ROUND_TRIP_TOKEN}') return TOKEN;
  if (Array.isArray(value)) return value.map(asTheDashboardSetsIt);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, child]) => child !== null).map(([key, child]) => [key, asTheDashboardSetsIt(child)]));
}

/** The rules the generated text trips on purpose (a phone-number-like `123456789`, a tool without a description): these tests are about the round trip. */
const RULES_OFF = Object.fromEntries(
  ['pii-phone-number', 'pii-email-address', 'pii-card-number', 'pii-national-id', 'security-plain-http', 'security-webhook-auth', 'security-url-credential', 'behaviour-transfer-target', 'behaviour-tool-description', 'behaviour-empty-prompt'].map((rule) => [rule, 'off']),
);

let emulator: RunningEmulator;
let client: ApiClient;
/** The agent every case adopts: the default seed's first. */
const agent = { id: defaultSeed().agents?.[0]?.id ?? '' };
beforeAll(async () => {
  expect(agent.id).not.toBe('');
  emulator = await startEmulator({ port: 0 });
  client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

const tempDir = useTempDirs();

describe(`agent configurations round the pipeline, seed ${SEED}`, () => {
  it(`apply, heal and export ${CASES} generated configurations, each ending with nothing to do`, { timeout: 300_000 }, async () => {
    const nextConfig = configGenerator(SEED);
    const failures: string[] = [];
    let refused = 0;
    for (let index = 0; index < CASES; index++) {
      const config = nextConfig();
      // Every other agent has a knowledge file: what voxform fills in beside the config's knowledge_base.
      const knowledge = index % 2 === 0 ? { knowledge: ['faq'] } : {};
      const manifest = stringify({ version: 1, agents: { desk: { id: agent.id, config, ...knowledge } }, knowledge: { faq: { file: 'faq.md' } }, policy: { rules: RULES_OFF } });
      const dir = await tempDir({ 'voxform.yaml': manifest, 'faq.md': `Opening hours, version ${index}.\n` });
      const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey, ROUND_TRIP_TOKEN: TOKEN };
      const vx = (args: string[], extraEnv: Record<string, string> = {}) => runCliInProcess(args, { cwd: dir, env: { ...env, ...extraEnv } });
      const step = (name: string, run: CliResult, expected: number): boolean => {
        if (run.code === expected) return true;
        failures.push(`case ${index}, ${name}: exit ${run.code}\n${manifest}\n${run.stdout}${run.stderr}`);
        return false;
      };
      // What validate refuses (a null beside knowledge that could never match) never reaches the service.
      if ((await vx(['validate'])).code === 1) {
        refused++;
        continue;
      }
      if (!step('apply', await vx(['apply', '--auto-approve']), 0)) continue;
      if (!step('plan after apply', await vx(['plan', '--detailed-exitcode']), 0)) continue;

      const edit = asTheDashboardSetsIt(nextConfig()) as Record<string, unknown>;
      // The dashboard keeps the files attached: knowledge_base as the service holds it.
      edit.knowledge_base = (await client.getAgent(agent.id)).config?.knowledge_base;
      await client.updateAgent(agent.id, { name: 'Edited in the dashboard', config: edit as Record<string, never> });
      if (!step('drift --heal', await vx(['drift', '--heal', '--auto-approve']), 0)) continue;
      if (!step('plan after heal', await vx(['plan', '--detailed-exitcode']), 0)) continue;

      if (!step('export', await vx(['export', '--agent', agent.id, '--out', 'exported']), 0)) continue;
      const exported = await readFile(path.join(dir, 'exported/voxform.yaml'), 'utf8');
      // The policy is the team's, not the service's: the export writes none.
      await appendFile(path.join(dir, 'exported/voxform.yaml'), stringify({ policy: { rules: RULES_OFF } }));
      // Each secret the export left to a variable is a header the manifest read from ROUND_TRIP_TOKEN.
      const variables = Object.fromEntries([...exported.matchAll(/^# {3}([A-Z0-9_]+) {2}\(/gm)].map((match) => [match[1] as string, TOKEN]));
      step('plan of the export', await vx(['plan', '--detailed-exitcode', '-f', 'exported', '--state', 'exported-state.json'], variables), 0);
    }
    expect(failures).toEqual([]);
    expect(refused).toBeLessThan(CASES / 2);
  });
});
