/**
 * `voxform plan show PLAN`: a saved plan printed exactly as `voxform plan` printed it, in each
 * format, without planning again, contacting the service or needing an API key; a file that is not
 * a voxform plan is a clear error.
 */
import { execFileSync } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** `plan show` with nothing but PATH and HOME in its environment: no key, no service named. */
function showPlan(p: ExampleProject, args: string[]) {
  return runCliInProcess(['plan', 'show', ...args], { cwd: p.dir });
}

function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe('voxform plan show', () => {
  it('prints a saved plan byte for byte as plan printed it, in text, JSON and Markdown, with no service and no key', async () => {
    project = await startExampleProject();
    const p = project;
    for (const format of ['text', 'json', 'markdown']) {
      const planned = await p.cliInProcess(['plan', '--format', format, '--out', `plan-${format}.json`]);
      expect(planned.code, planned.stderr).toBe(0);
      const requestsBefore = p.requests.length;
      const shown = await showPlan(p, [`plan-${format}.json`, '--format', format]);
      expect(shown.stderr).toBe('');
      expect(shown.code).toBe(0);
      expect(shown.stdout, format).toBe(planned.stdout);
      expect(p.requests.length, 'no request reached the service').toBe(requestsBefore);
      // The plan has secrets to show: their placeholders, never their values.
      expect(shown.stdout).toContain('(sensitive');
      expectNoSecret(shown.stdout);
      expectNoSecret(await readFile(path.join(p.dir, `plan-${format}.json`), 'utf8'));
    }
    // Text is the default, as for `plan`.
    expect((await showPlan(p, ['plan-text.json'])).stdout).toBe((await showPlan(p, ['plan-text.json', '--format', 'text'])).stdout);
  });

  it('shows the whole plan that a pull-request comment had to cut, and the comment says how', async () => {
    project = await startExampleProject();
    const p = project;
    const rules = Array.from({ length: 3000 }, (_, i) => `- Rule ${i + 1}: confirm the caller's details before booking anything.`).join('\n');
    await writeFile(path.join(p.dir, 'example/prompts/front-desk.md'), `# Role\nYou are the front desk.\n${rules}\n`);
    const comment = await p.cliInProcess(['plan', '--format', 'markdown', '--out', 'plan.json']);
    expect(comment.code, comment.stderr).toBe(0);
    expect(Buffer.byteLength(comment.stdout)).toBeLessThanOrEqual(60_000);
    const last = comment.stdout.trimEnd().split('\n');
    expect(last.at(-1)).toBe(
      "_This comment is cut to fit the size limit of a pull-request comment. To see the whole plan, download the saved plan `plan.json` (this job's artifact) and run `voxform plan show plan.json`._",
    );
    expect(comment.stdout).not.toContain('Rule 3000:');
    expect((await showPlan(p, ['plan.json', '--format', 'markdown'])).stdout).toBe(comment.stdout);
    const whole = await showPlan(p, ['plan.json']);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain("+- Rule 3000: confirm the caller's details before booking anything.");
  });

  it("without --out, the cut comment's command that saves the plan carries the run's options, as every command line voxform prints", async () => {
    project = await startExampleProject();
    const p = project;
    const rules = Array.from({ length: 3000 }, (_, i) => `- Rule ${i + 1}: confirm the caller's details before booking anything.`).join('\n');
    await writeFile(path.join(p.dir, 'example/prompts/front-desk.md'), `# Role\nYou are the front desk.\n${rules}\n`);
    const comment = await p.cliInProcess(['plan', '-f', 'voxform.yaml', '--target', 'agent.front-desk', '--format', 'markdown']);
    expect(comment.code, comment.stderr).toBe(0);
    expect(comment.stdout.trimEnd().split('\n').at(-1)).toBe(
      '_This comment is cut to fit the size limit of a pull-request comment. To see the whole plan, save the plan with `voxform plan --out plan.json -f voxform.yaml --target agent.front-desk` (keep it as a CI artifact) and run `voxform plan show plan.json`._',
    );
  });

  it('never hangs on, or fills its memory from, a plan or an --out that is a FIFO or a link to a device', async () => {
    project = await startExampleProject();
    const p = project;
    execFileSync('mkfifo', [path.join(p.dir, 'fifo.json')]);
    await symlink('/dev/zero', path.join(p.dir, 'zero.json'));
    for (const [name, problem] of [
      ['fifo.json', 'it is a FIFO (named pipe), not a regular file'],
      ['zero.json', 'it is a symbolic link leading out of its folder'],
    ] as const) {
      for (const args of [['plan', 'show', name], ['apply', name]]) {
        const result = await p.cliInProcess(args);
        expect(result.stderr, args.join(' ')).toContain('error[plan_unreadable]: Cannot read the plan ');
        expect(result.stderr, args.join(' ')).toContain(`${name}: ${problem}.`);
        expect(result.code).toBe(1);
      }
    }
    const out = await p.cliInProcess(['plan', '--out', 'fifo.json']);
    expect(out.stderr).toContain(`error[plan_write_failed]: Cannot save the plan to ${path.join(p.dir, 'fifo.json')}: the file exists and is not a plan voxform saved; nothing was saved.`);
    expect(out.code).toBe(1);
  });

  it('refuses a file that is not a voxform plan of this format, naming it, with exit 1 and no stack', async () => {
    project = await startExampleProject();
    const p = project;
    await p.cliInProcess(['plan', '--out', 'plan.json']);
    const saved = JSON.parse(await readFile(path.join(p.dir, 'plan.json'), 'utf8'));
    const files: Record<string, string> = {
      'not-json.json': 'this is not JSON',
      'terraform.json': JSON.stringify({ format_version: '1.2', terraform_version: '1.9.0', resource_changes: [] }),
      'old.json': JSON.stringify({ ...saved, format_version: '1.0' }),
      // Compared as numbers, part by part: 1.10 comes after 1.5.
      'newer.json': JSON.stringify({ ...saved, format_version: '1.10' }),
      // Anybody's field, of any size: not quoted unless it is a version.
      'huge.json': JSON.stringify({ ...saved, format_version: [['A'.repeat(100)].concat(Array(2000).fill('B'.repeat(50)))] }),
      'damaged.json': JSON.stringify({ ...saved, resource_changes: [{ ...saved.resource_changes[0], requests: 'none' }] }),
    };
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(p.dir, name), content);
    const expected: Record<string, RegExp> = {
      'missing.json': /^error\[plan_unreadable\]: Cannot read the plan .*missing\.json: it does not exist\.\n  hint: Make one with `voxform plan --out FILE`\.\n$/,
      'not-json.json': /^error\[plan_unreadable\]: .*not-json\.json:1:2: Cannot read the plan: it stops being JSON here, where JSON expected "true" \(JSON's only words are true, false and null; text goes in double quotes\); voxform saves plans as JSON, so it was damaged or is another file\.\n/,
      'terraform.json': /^error\[plan_unreadable\]: .*terraform\.json is not a voxform plan file\.\n/,
      'old.json': /^error\[plan_unreadable\]: .*old\.json has plan format 1\.0; this voxform reads 1\.5 to 1\.8\.\n  hint: Make the plan again with this version of voxform\.\n$/,
      'newer.json': /^error\[plan_unreadable\]: .*newer\.json has plan format 1\.10, made by a newer voxform; this voxform reads 1\.5 to 1\.8\.\n  hint: Upgrade voxform to the version that made the plan \(or make the plan again with this version\)\.\n$/,
      'huge.json': /^error\[plan_unreadable\]: .*huge\.json has a plan format this voxform does not know; this voxform reads 1\.5 to 1\.8\.\n  hint: Make the plan again with this version of voxform\.\n$/,
      'damaged.json': /^error\[plan_unreadable\]: .*damaged\.json is not a valid voxform plan: credential\.openai: `requests` is missing or malformed\.\n/,
    };
    for (const [name, message] of Object.entries(expected)) {
      const result = await showPlan(p, [name]);
      expect(result.code, name).toBe(1);
      expect(result.stdout, name).toBe('');
      expect(result.stderr, name).toMatch(message);
      expect(result.stderr, name).not.toMatch(/^\s+at /m);
    }
  });

  it('refuses a plan whose names hold a control character (a hand edit), in every format, printing none raw', async () => {
    project = await startExampleProject();
    const p = project;
    await p.cliInProcess(['plan', '--out', 'plan.json']);
    const saved = JSON.parse(await readFile(path.join(p.dir, 'plan.json'), 'utf8'));
    const TITLE = '\u001b]0;pwned\u0007';
    const [first, ...rest] = saved.resource_changes;
    const edits: Record<string, unknown> = {
      'address.json': { ...saved, resource_changes: [{ ...first, address: `credential.openai${TITLE}` }, ...rest] },
      'id.json': { ...saved, resource_changes: [{ ...first, id: `openai${TITLE}` }, ...rest] },
      'request.json': { ...saved, resource_changes: [{ ...first, requests: [{ ...first.requests[0], id: `x${TITLE}` }] }, ...rest] },
      'environment.json': { ...saved, environment: `prod${TITLE}` },
      'base-url.json': { ...saved, base_url: `http://x${TITLE}` },
      'variables.json': { ...saved, environment_variables: { ...saved.environment_variables, names: [...saved.environment_variables.names, `X${TITLE}`] } },
    };
    for (const [name, plan] of Object.entries(edits)) {
      await writeFile(path.join(p.dir, name), JSON.stringify(plan));
      for (const format of ['text', 'markdown', 'json']) {
        const result = await showPlan(p, [name, '--format', format]);
        expect(result.stdout + result.stderr, `${name} ${format}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
        expect(result.code, `${name} ${format}`).toBe(1);
        expect(result.stdout + result.stderr, `${name} ${format}`).toMatch(new RegExp(`${name.replace('.', '\\.')} is not a valid voxform plan: .* malformed`));
      }
    }
  });

  it('refuses an option of plan that it does not take, rather than ignoring it', async () => {
    project = await startExampleProject();
    const p = project;
    await p.cliInProcess(['plan', '--out', 'plan.json']);
    const result = await showPlan(p, ['plan.json', '-f', 'voxform.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error[invalid_argument]: `voxform plan show` does not take --file.\n  hint: Run `voxform plan show --help` for its arguments and options.\n');
    expect(result.stdout).toBe('');
  });
});
