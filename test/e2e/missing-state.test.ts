/**
 * A state that lost the workspace its history records applies of: every command that reads the state
 * to act says so (plan, apply, status, drift, get), and apply refuses unless asked (it would upload
 * every knowledge file again). The built CLI against the emulator.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repoRoot, type CliResult } from '../helpers/cli.js';
import { useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

const uploads = (p: ExampleProject) => p.requests.filter((r) => r.method === 'POST' && r.path.includes('generate_presigned_url')).length;

async function validatePlan(document: unknown): Promise<void> {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormatsModule.default(ajv);
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas', 'plan.schema.json'), 'utf8')));
  expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
}

/**
 * Applied once, then the state file deleted: the history beside it still records that apply. The
 * apply and the history read run in the test's process: setup, not what the tests are about.
 */
async function lostState(): Promise<{ p: ExampleProject; record: { id: string; at: string }; lead: string }> {
  const p = await startProject();
  expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
  await rm(path.join(p.dir, '.voxform', 'state.json'));
  const [record] = (JSON.parse(expectCode(await p.cliInProcess(['history', '--format', 'json']), 0).stdout) as { records: Array<{ id: string; at: string }> }).records;
  if (!record) throw new Error('no history record');
  const lead = `the state (.voxform/state.json) holds nothing of workspace default@${p.url}, though its history records applies of it (the last ${record.id}, at ${record.at})`;
  return { p, record: { id: record.id, at: record.at }, lead };
}

describe('a state that lost the workspace', () => {
  it('plan warns in text, JSON (missing_state, since format 1.5), Markdown and a saved plan', async () => {
    const { p, record, lead } = await lostState();
    const text = expectCode(await p.cli(['plan']), 0).stdout;
    expect(text.startsWith(`Warning: ${lead}`)).toBe(true);
    expect(text).toContain('this plan counts knowledge files, credentials and campaigns already on the service as never applied, and `voxform apply` refuses to run unless given --allow-missing-state.');

    const json = JSON.parse(expectCode(await p.cliInProcess(['plan', '--format', 'json']), 0).stdout) as Record<string, unknown>;
    expect(json.format_version).toBe('1.8');
    expect(json.missing_state).toEqual({ state: '.voxform/state.json', last_apply: record });
    await validatePlan(json);

    const markdown = expectCode(await p.cliInProcess(['plan', '--format', 'markdown']), 0).stdout;
    expect(markdown.startsWith(`> [!WARNING]\n> Warning: the state (\`.voxform/state.json\`) holds nothing of workspace \`default@${p.url}\``)).toBe(true);

    // A saved plan keeps it, and `plan show` prints it.
    expectCode(await p.cliInProcess(['plan', '--out', 'plan.json']), 0);
    expect(expectCode(await p.cli(['plan', 'show', 'plan.json']), 0).stdout).toContain(`Warning: ${lead}`);
  }, 120_000);

  it('apply refuses before the service is read, and uploads nothing; --allow-missing-state applies, the plan warning shown first', async () => {
    const { p, lead } = await lostState();
    const before = uploads(p);
    const refused = expectCode(await p.cli(['apply', '--auto-approve']), 1);
    expect(refused.stderr).toContain(`error[state_missing]: Refusing to apply: ${lead}`);
    expect(refused.stderr).toContain('pass --allow-missing-state');
    expect(uploads(p)).toBe(before);
    // A saved plan made meanwhile is refused as well.
    expectCode(await p.cliInProcess(['plan', '--out', 'plan.json']), 0);
    expect(expectCode(await p.cliInProcess(['apply', 'plan.json']), 1).stderr).toContain('error[state_missing]');

    // Without a terminal to ask on, the applies the refusal offers carry the flag: pasted without it, each is refused again.
    const unapproved = expectCode(await p.cli(['apply', '--allow-missing-state']), 1);
    expect(unapproved.stderr).toContain('error[approval_required]');
    expect(unapproved.stderr).toMatch(/and run `voxform apply plan\.json[^`]* --allow-missing-state`\./);
    expect(uploads(p)).toBe(before);

    const forced = expectCode(await p.cli(['apply', '--auto-approve', '--allow-missing-state']), 0);
    expect(forced.stdout.startsWith(`Warning: ${lead}`)).toBe(true);
    // What the warning said: the knowledge file is uploaded again.
    expect(uploads(p)).toBeGreaterThan(before);
    // The state holds the workspace again: no warning, no refusal.
    expect(expectCode(await p.cliInProcess(['plan']), 0).stdout).not.toContain('Warning');
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
  }, 120_000);

  it('status names the lost state and the history\'s last record (text and JSON) and exits 1; get knowledge and get phones say so', async () => {
    const { p, record } = await lostState();
    const text = expectCode(await p.cli(['status']), 1).stdout;
    expect(text).toMatch(/^State: +\.voxform\/state\.json \(lost, or removed with `voxform state rm`: it holds nothing of workspace default@\S+, though its history records applies of it; unless removed on purpose, restore it/m);
    expect(text).toContain(`Last apply:  not in the state; the history's last record of workspace default@${p.url} is ${record.id}, at ${record.at}`);
    expect(text).not.toContain('none recorded');
    const json = JSON.parse(expectCode(await p.cliInProcess(['status', '--format', 'json']), 1).stdout) as Record<string, unknown>;
    expect(json.missing_state).toEqual({ state: '.voxform/state.json', last_apply: record });

    const knowledge = expectCode(await p.cli(['get', 'knowledge']), 0).stdout;
    expect(knowledge).toContain('Warning: the state (.voxform/state.json) holds nothing of workspace');
    const listed = JSON.parse(expectCode(await p.cliInProcess(['get', 'knowledge', '--format', 'json']), 0).stdout) as { sources: { state: Record<string, unknown> } };
    expect(listed.sources.state.missing_state).toEqual({ state: '.voxform/state.json', last_apply: record });
    const phones = expectCode(await p.cli(['get', 'phones']), 0).stdout;
    expect(phones).toMatch(/\nWarning: the state \(\.voxform\/state\.json\) holds nothing of workspace .* Without it voxform cannot tell which numbers this environment bound: /);
    const phonesJson = JSON.parse(expectCode(await p.cliInProcess(['get', 'phones', '--format', 'json']), 0).stdout) as { sources: { state: Record<string, unknown> } };
    expect(phonesJson.sources.state.missing_state).toEqual({ state: '.voxform/state.json', last_apply: record });
  }, 120_000);
});
