/**
 * `voxform --version` names the formats the build reads and writes besides its version: builds
 * between releases share a version number, and a team told "made by a newer voxform" compares these.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAN_JSON_FORMAT_VERSION } from '../../src/plan/format-version.js';
import { STATE_FORMAT_VERSION } from '../../src/state/format-version.js';
import { SCHEMA_VERSION } from '../../src/state/postgres/schema.js';
import { repoRoot, runCliInProcess } from '../helpers/cli.js';

const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

describe('voxform --version', () => {
  it.each(['--version', '-v'])('%s: the version, then the plan format, state format and PostgreSQL schema the readers check', async (flag) => {
    const result = await runCliInProcess([flag]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`${version} (plan format ${PLAN_JSON_FORMAT_VERSION}, state format ${STATE_FORMAT_VERSION}, PostgreSQL schema ${SCHEMA_VERSION})\n`);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\S* \(plan format \d+\.\d+, state format \d+, PostgreSQL schema \d+\)\n$/);
  });
});
