/**
 * A number bound to another agent of the manifests, against the embedded emulator (`--local`): the
 * plan names both agents by their manifest addresses beside their ids in text and Markdown, and the
 * JSON plan keeps the ids as values with the addresses in the field change's `names`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCliInProcess, useTempDirs, type CliResult } from '../helpers/cli.js';

const tempDir = useTempDirs();

const manifest = (agent: string) => `version: 1
agents:
  reception: { id: -OKdqbqetEcM4ak369ym, name: Front desk }
  booking: { id: -OKdqbqetEcM4ak369yn, name: Booking }
phones:
  "+15551230001": { agent: ${agent} }
`;

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

describe('a number moved to another agent', () => {
  it('names both agents beside their ids', async () => {
    const dir = await tempDir({ 'agents.yaml': manifest('reception') });
    const vx = (...args: string[]) => runCliInProcess([...args, '--local'], { cwd: dir });
    expectCode(await vx('apply', '--auto-approve'), 0);
    await writeFile(path.join(dir, 'agents.yaml'), manifest('booking'));

    const moved = 'agent.reception ("-OKdqbqetEcM4ak369ym") → agent.booking ("-OKdqbqetEcM4ak369yn")';
    expect(expectCode(await vx('plan'), 0).stdout).toContain(`  ~ phone.+15551230001 will be bound to another agent\n      ~ agent_id: ${moved}\n`);
    expect(expectCode(await vx('plan', '--format', 'markdown'), 0).stdout).toContain(`! agent_id: ${moved}\n`);
    const json = JSON.parse(expectCode(await vx('plan', '--format', 'json'), 0).stdout) as { resource_changes: Array<{ address: string; field_changes: unknown[] }> };
    expect(json.resource_changes.find((change) => change.address === 'phone.+15551230001')?.field_changes).toEqual([
      {
        path: 'agent_id',
        before: '-OKdqbqetEcM4ak369ym',
        after: '-OKdqbqetEcM4ak369yn',
        before_unset: false,
        sensitive: false,
        drift: false,
        names: { before: 'agent.reception', after: 'agent.booking' },
      },
    ]);

    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormatsModule.default(ajv);
    ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
    const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas/plan.schema.json'), 'utf8')));
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);

    // A saved plan shows the names as the plan did.
    expectCode(await vx('plan', '--out', 'plan.json'), 0);
    expect(expectCode(await runCliInProcess(['plan', 'show', 'plan.json'], { cwd: dir }), 0).stdout).toContain(`~ agent_id: ${moved}\n`);
  }, 60_000);
});
