/**
 * JSON that reaches voxform over the network nests at most 64 levels deep and holds at most
 * 2,000,000 values (util/json-budget.ts): the readers of such values (the plan's comparison, hashes,
 * the secret scrub, export) recurse, and a service answer nested thousands deep made plan, drift and
 * export stop with "Maximum call stack size exceeded" as an internal error; 64 MiB of `{},` would
 * have been parsed into a few GB. One function parses it; this file checks that every command gets
 * the rule by construction, and what the commands say.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonPastBudgetError, MAX_JSON_DEPTH, OUTSIDE_JSON_BUDGET, parseOutsideJson } from '../../src/util/json-budget.js';
import { parseEndOfCallWebhook } from '../../src/webhooks/receive.js';
import { repoRoot, runCli, runCliInProcess } from '../helpers/cli.js';
import { useRewritingService } from '../helpers/rewriting-proxy.js';

/** JSON text of arrays `levels` deep around one number. */
const nested = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/**
 * The files that call JSON.parse themselves, each reading JSON that is voxform's own or the
 * operator's, or bounded before it is parsed; all other JSON goes through parseOutsideJson.
 */
const OWN_JSON_READERS = [
  'ci/runner-env.ts', // the CI runner's event file, which the runner writes
  'conversations/schema-issues.ts', // the package's own schema
  'emulator/store.ts', // the emulator's data file, read within its kept-file budget (depth 128)
  'history/stored-record.ts', // history records, read within their kept-file budget
  'project-files/json-duplicate-key.ts', // kept files, read within their budgets
  'project-files/kept-files.ts',
  'report/html-client.ts', // the report page's own data, in the browser
  'schema/load.ts', // the package's own schemas
  'util/json-budget.ts', // parseOutsideJson itself
  'util/version.ts', // the package's own package.json
].map((file) => path.join(...file.split('/')));

describe('JSON from the network', () => {
  it('is parsed by parseOutsideJson alone: no other file of src/ calls JSON.parse', async () => {
    const src = path.join(repoRoot, 'src');
    const files = (await readdir(src, { recursive: true })).filter((file) => file.endsWith('.ts') && !file.endsWith('.gen.ts'));
    const parsing: string[] = [];
    for (const file of files) if ((await readFile(path.join(src, file), 'utf8')).includes('JSON.parse(')) parsing.push(file);
    expect(parsing.sort()).toEqual([...OWN_JSON_READERS].sort());
  });

  it('parseOutsideJson reads JSON nested up to the limit, and refuses one level more as a SyntaxError before building it', () => {
    expect(parseOutsideJson(nested(MAX_JSON_DEPTH))).toHaveLength(1);
    // Brackets inside strings are text, not nesting.
    expect(parseOutsideJson(JSON.stringify({ text: '['.repeat(1000) }))).toEqual({ text: '['.repeat(1000) });
    for (const levels of [MAX_JSON_DEPTH + 1, 100_000]) {
      let thrown: unknown;
      try {
        parseOutsideJson(nested(levels));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(JsonPastBudgetError);
      expect(thrown).toBeInstanceOf(SyntaxError);
      expect(thrown).toMatchObject({ at: MAX_JSON_DEPTH, message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
    }
  });

  it('parseOutsideJson reads JSON of as many values as the budget, and refuses one more before building it, where it stands in the text', () => {
    const { maxValues } = OUTSIDE_JSON_BUDGET;
    expect(maxValues).toBe(2_000_000);
    // The list is a value, and each zero in it; a text before them past ASCII is counted in characters.
    const list = (zeros: number) => `["é…",${'0,'.repeat(zeros - 1)}0]`;
    expect(parseOutsideJson(list(maxValues - 2))).toHaveLength(maxValues - 1);
    const past = list(maxValues - 1);
    let thrown: unknown;
    try {
      parseOutsideJson(past);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JsonPastBudgetError);
    expect(thrown).toMatchObject({ at: past.length - 2, message: 'JSON of more than 2,000,000 values', phrase: 'holds more than 2,000,000 JSON values' });
    // Keys are not values: an object of many keys counts its values alone.
    expect(parseOutsideJson('{"a":1,"b":2}', { maxValues: 3, maxDepth: 1 })).toEqual({ a: 1, b: 2 });
  });

  it('a webhook body past the budget is refused with a 400 that says which limit it passed', () => {
    expect(parseEndOfCallWebhook(`{"call_id":"c","metadata":${nested(100)}}`, {})).toMatchObject({ ok: false, status: 400, reason: 'json', message: `the body nests deeper than ${MAX_JSON_DEPTH} levels` });
    expect(parseEndOfCallWebhook(`{"call_id":"c","metadata":{"many":[${'{},'.repeat(2_000_000)}{}]}}`, {})).toMatchObject({ ok: false, status: 400, reason: 'json', message: 'the body holds more than 2,000,000 JSON values' });
  });
});

describe('a service answer nested thousands of levels deep', () => {
  const service = useRewritingService();

  it('stops plan, drift, export and logs with an api_error naming the read, never an internal error', async () => {
    const { dir, env, agentId } = await service.example();
    // The agent's free-form voice settings, and a call record's metadata, each nested 3,000 deep.
    service.proxy.rewrite = ({ method, path: target }, text) => {
      if (method !== 'GET') return text;
      if (target === `/agents/${agentId}`) return text.replace('"settings":{', `"settings":{"deep":${nested(3000)},`);
      if (target.startsWith('/call-logs')) return text.replace('"histories":[{', `"histories":[{"metadata":{"deep":${nested(3000)}},`);
      return text;
    };
    const runs: Array<[string[], typeof runCli, string]> = [
      [['plan'], runCli, `GET /agents/${agentId}`],
      [['drift'], runCliInProcess, `GET /agents/${agentId}`],
      [['export', '--agent', agentId, '--out', 'exported'], runCliInProcess, `GET /agents/${agentId}`],
      [['logs'], runCli, 'GET /call-logs'],
    ];
    for (const [args, cli, read] of runs) {
      const result = await cli(args, { cwd: dir, env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      expect(result.stderr, args.join(' ')).toContain(`error[api_error]: ${read} failed: the service answered 200 with JSON nested deeper than ${MAX_JSON_DEPTH} levels.\n`);
      expect(result.stdout + result.stderr).not.toMatch(/unexpected problem|call stack/);
    }
  });
});

describe('a service answer of millions of values', () => {
  const service = useRewritingService();

  it('stops plan with an api_error naming the read before the answer is built', async () => {
    const { dir, env } = await service.example();
    // Every phone of the account, as read, and then two million empty objects: each one a value built.
    service.proxy.rewrite = ({ method, path: target }, text) => (method === 'GET' && target === '/phones' ? text.replace(/]\s*$/, `${',{}'.repeat(2_000_000)}]`) : text);
    const result = await runCli(['plan'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('error[api_error]: GET /phones failed: the service answered 200 with JSON of more than 2,000,000 values.\n');
    expect(result.stdout + result.stderr).not.toMatch(/unexpected problem|heap/);
  });
});
