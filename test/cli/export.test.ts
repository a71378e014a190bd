import { existsSync } from 'node:fs';
import { appendFile, chmod, lstat, mkdir, readdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { createClient } from '../../src/api/index.js';
import { defaultSeed, startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { validateAgainst } from '../../src/schema/validate.js';
import { repoRoot, runCli, runCliInProcess, runPrinted, useTempDirs, type CliResult } from '../helpers/cli.js';

const BOOKING = '-OKdqbqetEcM4ak369yn';
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const SPARE = '-OKspareAgent0000002';
/** An agent whose live configuration breaks no mandatory policy. */
const PLAIN = '-OKspareAgent0000003';
/** Seeded with a prompt over the prompt size limit by the test that needs one. */
const HUGE_PROMPT = '-OKspareAgent0000004';
/** Content that once did not survive an export (docs/export.md: the export round-trips). */
const AWKWARD = '-OKspareAgent0000001';
const AWKWARD_SECRETS = { hook: 'awkward-hook-5a1', crm: 'awkward-crm-6b2', pin: 987654 };
const URL_TOKEN = 'spare-url-token-9c41';
const validateBuilt = existsSync(path.join(repoRoot, 'dist/cli-bundle/main.cjs'));

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  // Text that must come back exactly: a reference-looking sentence, a prompt ending in a newline.
  const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  await client.updateAgent(SPARE, {
    name: 'Spare agent 2',
    config: {
      prompt: 'You are a helper.\n\nSay "${env:HOME}" literally.\n',
      first_message: 'Costs: $${env:X} and ${env:Y}',
      // A token in a URL's query must not be written into the manifest either.
      session_data_webhook: { url: `https://hooks.example.com/end?token=${URL_TOKEN}` },
    },
  });
  await client.updateAgent(AWKWARD, {
    // Its local name starts with "voxform", as voxform's own variables do.
    name: 'Voxform demo',
    config: {
      prompt: '\ufeffHello BOM prompt',
      first_message: 'cost is ${env:PRICE',
      // A key a plain `<<` would make a merge key.
      custom_vocabulary: { keywords: { '': 1, other: 2, '<<': 3 } },
      session_data_webhook: { url: 'https://hooks.example.com/end', headers: { 'x-hook-token': AWKWARD_SECRETS.hook } },
      app_functions: [{ name: 'crm', credentials: { api_key: AWKWARD_SECRETS.crm, pin: AWKWARD_SECRETS.pin } }],
    },
  });
  await client.close();
});
afterAll(() => emulator.close());

const tempDir = useTempDirs();

const connection = () => ({ args: ['--base-url', emulator.url], env: { VOXFORM_API_KEY: emulator.apiKey } });
/** The live values of the secrets the export turned into ${env:…} (the seed's). */
const SECRET_ENV = { APPOINTMENT_BOOKING_TOOLS_FIND_SLOTS_AUTHORIZATION: 'seeded-calendar-token' };

/**
 * The exported agents hold what policy flags on purpose (a token in a URL, symbols in a greeting):
 * export must write them as they are live. These tests are about the round trip, so the rules those
 * values trip are turned off; test/policy/ holds the rules' own tests.
 */
/** Everything an export showed or wrote: its output, and the names and texts of the files under `folder`. */
async function exportedTexts(run: CliResult, folder: string): Promise<string[]> {
  const texts = [run.stdout, run.stderr, ...(await readdir(folder, { recursive: true }))];
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push(await readFile(path.join(entry.parentPath, entry.name), 'utf8'));
  }
  return texts;
}

/** A text as names are compared: letters and digits, lower-cased. */
const foldName = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * What `export --from-phones` wrote of `seed`'s front desk and booking agents (one phone each), served
 * by an emulator of its own: each variable of `secrets` is listed to set, and `plan` with them set
 * shows no changes.
 */
async function exportedFromPhones(seed: ReturnType<typeof defaultSeed>, secrets: Record<string, string>): Promise<string[]> {
  for (const phone of seed.phones ?? []) phone.agent_id = phone.id === '+15551230001' ? FRONT_DESK : BOOKING;
  const planted = await startEmulator({ port: 0, seed });
  const dir = await tempDir();
  const env = { VOXFORM_API_KEY: planted.apiKey };
  const args = ['--base-url', planted.url];
  try {
    const exported = await runCliInProcess(['export', '--from-phones', '--out', 'live', ...args], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    for (const name of Object.keys(secrets)) expect(exported.stdout).toContain(`  ${name} `);
    const plan = await runCliInProcess(['plan', '--detailed-exitcode', ...args], { cwd: path.join(dir, 'live'), env: { ...env, ...secrets } });
    expect(plan.stdout, plan.stderr).toContain('No changes');
    expect(plan.code).toBe(0);
    return await exportedTexts(exported, path.join(dir, 'live'));
  } finally {
    await planted.close();
  }
}

async function quietPolicy(dir: string, rules: string[]): Promise<void> {
  await appendFile(path.join(dir, 'voxform.yaml'), `policy:\n  rules:\n${rules.map((rule) => `    ${rule}: off\n`).join('')}`);
}

describe('voxform export', () => {
  test('--from-phones → a valid manifest that plans to no changes', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--from-phones', '--out', 'live', ...args], { cwd: dir, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Exported \d+ agents and \d+ phone bindings to live:/);
    expect(result.stdout).toContain('APPOINTMENT_BOOKING_TOOLS_FIND_SLOTS_AUTHORIZATION');
    expect(result.stdout).not.toContain('seeded-calendar-token');

    const out = path.join(dir, 'live');
    const text = await readFile(path.join(out, 'voxform.yaml'), 'utf8');
    expect(text).not.toContain('seeded-calendar-token');
    const manifest = parse(text) as { agents: Record<string, { id: string; config: Record<string, unknown> }>; phones: Record<string, { agent: string }> };
    expect(validateAgainst('Manifest', manifest)).toEqual([]);
    expect(Object.values(manifest.agents).map((a) => a.id)).toContain(BOOKING);
    for (const binding of Object.values(manifest.phones)) expect(Object.keys(manifest.agents)).toContain(binding.agent);
    for (const agent of Object.values(manifest.agents)) {
      const prompt = agent.config.prompt as { file: string };
      expect(existsSync(path.join(out, prompt.file))).toBe(true);
    }

    const plan = await runCliInProcess(['plan', '--detailed-exitcode', ...args], { cwd: out, env: { ...env, ...SECRET_ENV } });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);

    if (validateBuilt) {
      const validate = await runCliInProcess(['validate'], { cwd: out, env: SECRET_ENV });
      expect(validate.code).toBe(0);
    }
  });

  test('--out a folder whose name a shell would split: the next step it prints runs as printed', async () => {
    const dir = await tempDir();
    const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey };
    const result = await runCliInProcess(['export', '--agent', SPARE, '--out', 'spare agent'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    const next = /^Next: (.*?) {3}#/m.exec(result.stdout)?.[1];
    expect(next).toBe("cd 'spare agent' && voxform plan");
    await quietPolicy(path.join(dir, 'spare agent'), ['security-url-credential', 'security-webhook-auth']);
    const plan = await runPrinted(next ?? '', { cwd: dir, env: { ...env, SPARE_AGENT_2_SESSION_DATA_WEBHOOK_URL_TOKEN: URL_TOKEN } });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes');
  });

  test('--agent: exact prompts and reference-looking text round-trip', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    // The live agent breaks mandatory policy: said at export, not first at the plan that refuses it.
    expect(result.stderr).toMatch(/^\nvoxform\.yaml:\d+:\d+ {2}mandatory\[security-url-credential\]: /);
    expect(result.stderr).toContain('mandatory[security-webhook-auth]');
    expect(result.stderr).toContain('warning: the live agents break mandatory policy (2 findings above): plan shows no changes, but plan and apply refuse the manifest until each is fixed, or waived in its policy section with a reason (docs/policy.md).\n');
    expect(result.stderr).not.toContain(URL_TOKEN);
    // The next step does not promise a clean plan the findings stop.
    expect(result.stdout).toContain('\nNext: voxform plan   # stops on the 2 mandatory findings above until each is fixed or waived\n');
    expect(result.stdout).not.toContain('# shows no changes');
    expect(result.code).toBe(0);
    expect(await readFile(path.join(dir, 'prompts/spare-agent-2.md'), 'utf8')).toBe('You are a helper.\n\nSay "${env:HOME}" literally.\n\n');
    const manifest = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    expect(manifest).toContain('read-only on the service, not managed here: voice.provider=openai');
    expect(manifest).toContain('url: https://hooks.example.com/end?token=${env:SPARE_AGENT_2_SESSION_DATA_WEBHOOK_URL_TOKEN}');
    expect(manifest).not.toContain(URL_TOKEN);
    expect(result.stdout).toContain('SPARE_AGENT_2_SESSION_DATA_WEBHOOK_URL_TOKEN  agents.spare-agent-2.config.session_data_webhook.url (token in the URL)');
    await quietPolicy(dir, ['security-url-credential', 'security-webhook-auth']);
    const plan = await runCliInProcess(['plan', '--detailed-exitcode', ...args], { cwd: dir, env: { ...env, SPARE_AGENT_2_SESSION_DATA_WEBHOOK_URL_TOKEN: URL_TOKEN } });
    expect(plan.stdout).not.toContain(URL_TOKEN);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  test('awkward content round-trips, no secret is written, and every variable named is one the loader reads', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--agent', AWKWARD, ...args], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    const variable = 'AGENT_VOXFORM_DEMO_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN';
    expect(result.stdout).toContain(`  ${variable}  agents.voxform-demo.config.session_data_webhook.headers["x-hook-token"]`);
    expect(result.stderr).toBe(
      'warning: agents.voxform-demo.config.app_functions was left out of the manifest: it holds secrets that are not text (app_functions[0].credentials.pin), and a ${env:…} reference would make them text. Keep managing it in the dashboard, or add it by hand.\n',
    );
    // The prompt starts with a byte-order mark, which a prompt file would lose: it stays inline.
    expect(existsSync(path.join(dir, 'prompts'))).toBe(false);
    const files = [await readFile(path.join(dir, 'voxform.yaml'), 'utf8')];
    for (const secret of Object.values(AWKWARD_SECRETS)) for (const file of files) expect(file).not.toContain(String(secret));
    expect(files[0]).not.toMatch(/\$\{env:VOXFORM_/);

    await quietPolicy(dir, ['speech-symbols']);
    const validate = await runCliInProcess(['validate'], { cwd: dir, env: { [variable]: AWKWARD_SECRETS.hook } });
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
    const plan = await runCliInProcess(['plan', '--detailed-exitcode', ...args], { cwd: dir, env: { ...env, [variable]: AWKWARD_SECRETS.hook } });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  test('a variable name outside the operator\'s VOXFORM_ENV_ALLOW is warned about, and the mandatory policy is still checked', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    // Set, but refused to manifests: the check reads it as unset, as plan would refuse to read it.
    const refused = { SPARE_AGENT_2_SESSION_DATA_WEBHOOK_URL_TOKEN: 'operator-value-4711' };
    const result = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env: { ...env, ...refused, VOXFORM_ENV_ALLOW: 'HOOK_TOKEN,CALENDAR_*' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^warning: VOXFORM_ENV_ALLOW does not allow SPARE_AGENT_2_SESSION_DATA_WEBHOOK_URL_TOKEN: plan will refuse the manifest until the operator adds it to VOXFORM_ENV_ALLOW\.\n\nvoxform\.yaml:\d+:\d+ {2}mandatory\[security-url-credential\]: /,
    );
    expect(result.stderr).toContain('warning: the live agents break mandatory policy (2 findings above)');
    expect(result.stderr).not.toContain('operator-value-4711');
    expect(result.stderr).not.toContain(URL_TOKEN);
  });

  test('a variable VOXFORM_ENV_ALLOW refuses: neither the header nor the next step promises a plan with no changes', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--agent', BOOKING, ...args], { cwd: dir, env: { ...env, VOXFORM_ENV_ALLOW: 'OTHER' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('warning: VOXFORM_ENV_ALLOW does not allow APPOINTMENT_BOOKING_TOOLS_FIND_SLOTS_AUTHORIZATION: plan will refuse the manifest');
    expect(result.stdout).toContain('\nNext: voxform plan   # refuses the manifest until VOXFORM_ENV_ALLOW allows APPOINTMENT_BOOKING_TOOLS_FIND_SLOTS_AUTHORIZATION (the warning above)\n');
    const manifest = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    expect(manifest).not.toContain('shows no changes');
    expect(manifest).toContain('# `voxform plan` refuses it until VOXFORM_ENV_ALLOW allows APPOINTMENT_BOOKING_TOOLS_FIND_SLOTS_AUTHORIZATION; edit it, review the plan, apply.\n');
  });

  test('mandatory policy findings: the header promises no plan with no changes either', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('warning: the live agents break mandatory policy (2 findings above)');
    const manifest = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    expect(manifest).not.toMatch(/shows no changes;/);
  });

  test('exported again over an unchanged export: every file kept, and the next step still says what the plan does', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    expect((await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env })).code).toBe(0);
    const again = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('  kept         voxform.yaml\n');
    expect(again.stderr).toContain('warning: the live agents break mandatory policy (2 findings above)');
    expect(again.stdout).toContain('\nNext: voxform plan   # stops on the 2 mandatory findings above until each is fixed or waived\n');
    expect(again.stdout).not.toContain('# shows no changes');
  });

  test('refuses to overwrite without --force, writing nothing; --force overwrites', async () => {
    const dir = await tempDir({ 'prompts/spare-agent-2.md': 'mine\n' });
    const { args, env } = connection();
    const refused = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[would_overwrite]: voxform export would overwrite prompts/spare-agent-2.md in ., which exists already; nothing was written.');
    expect(existsSync(path.join(dir, 'voxform.yaml'))).toBe(false);
    expect(await readFile(path.join(dir, 'prompts/spare-agent-2.md'), 'utf8')).toBe('mine\n');

    const forced = await runCliInProcess(['export', '--agent', SPARE, '--force', ...args], { cwd: dir, env });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('overwritten  prompts/spare-agent-2.md');
  });

  test('over an export: only the files that differ from what it would write are refused, a changed prompt as text that would be lost; --force says so', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const exportBoth = ['export', '--agent', SPARE, '--agent', PLAIN, ...args];
    expect((await runCliInProcess(exportBoth, { cwd: dir, env })).code).toBe(0);
    await appendFile(path.join(dir, 'prompts/spare-agent-2.md'), 'Mention the parking.\n');

    const refused = await runCliInProcess(exportBoth, { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error[would_overwrite]: voxform export would overwrite prompts/spare-agent-2.md in ., which exists already; nothing was written. prompts/spare-agent-2.md differs from what voxform export would write: its text there would be lost.\n' +
        '  hint: Pass --force to overwrite, or choose another folder with --out DIR.\n',
    );

    const forced = await runCliInProcess([...exportBoth, '--force'], { cwd: dir, env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('  overwritten  prompts/spare-agent-2.md\n');
    expect(forced.stdout).toContain('  kept         voxform.yaml\n  kept         prompts/spare-agent-3.md\n');
    expect(forced.stderr).toContain('warning: prompts/spare-agent-2.md differed from what voxform export wrote: its text there was lost. Restore it (from git) unless that was meant.\n');

    // Nothing differs: nothing to refuse.
    const again = await runCliInProcess(exportBoth, { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain('overwritten');
  });

  test("over a project's manifest: the refusal names all the new one would drop; --force replaces it saying so, and promises no clean plan", async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const project = await runCliInProcess(['export', '--from-phones', ...args], { cwd: dir, env });
    expect(project.code, project.stderr).toBe(0);
    await appendFile(path.join(dir, 'voxform.yaml'), "\n# The team's overlay\nenvironments:\n  staging: {}\n");
    const before = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    const dropped = 'agents front-desk-staging and appointment-booking; phones +15551230001 and +15551230003; the environments section; 1 comment line';

    const refused = await runCliInProcess(['export', '--agent', PLAIN, ...args], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error[would_overwrite]: voxform export would overwrite voxform.yaml in ., which exists already; nothing was written. The new voxform.yaml would drop what the one there defines: ${dropped}.\n` +
        "  hint: To add an agent to a project, export it beside it (--out DIR) and move the agent's entry and prompt file into voxform.yaml (docs/export.md). Pass --force to replace it all the same, losing what is listed.\n",
    );
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toBe(before);

    const forced = await runCliInProcess(['export', '--agent', PLAIN, '--force', ...args], { cwd: dir, env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`warning: the voxform.yaml this export replaced defined what the new one drops: ${dropped}. Restore it (from git) unless that was meant;`);
    expect(forced.stdout).not.toContain('# shows no changes');
    // Its environments are gone with it: their resources are listed by no plan, only by the warning.
    expect(forced.stdout).toContain('# lists what the replaced voxform.yaml defined and this one drops as not managed any more, where it was applied without --env; the dropped environments are planned no more (the warning above names all)\n');
  });

  test('beside an agents.yaml and no voxform.yaml: refused as init refuses it (the new voxform.yaml would hide it); --force writes and warns', async () => {
    const AGENTS = 'version: 1\nagents:\n  fd:\n    id: -OKspareAgent0000003\n';
    const dir = await tempDir({ 'agents.yaml': AGENTS });
    const { args, env } = connection();
    const refused = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    expect(refused.stderr).toBe(
      'error[init_would_shadow]: voxform export would write voxform.yaml beside agents.yaml in .: voxform reads voxform.yaml first, so agents.yaml would no longer be read; nothing was written.\n' +
        "  hint: Rename agents.yaml to voxform.yaml to keep it as the project's manifest, export into another folder (--out DIR), or pass --force to write voxform.yaml anyway.\n",
    );
    expect(refused.code).toBe(1);
    expect(await readdir(dir)).toEqual(['agents.yaml']);

    const forced = await runCliInProcess(['export', '--agent', SPARE, '--force', ...args], { cwd: dir, env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('warning: agents.yaml in . is no longer read: voxform reads voxform.yaml first.');
    expect(await readFile(path.join(dir, 'agents.yaml'), 'utf8')).toBe(AGENTS);
  });

  test('beside an agents.yaml, with a prompt of the export there already: the refusal names it too, as what --force would overwrite', async () => {
    const dir = await tempDir({ 'agents.yaml': 'version: 1\nagents: {}\n', 'prompts/spare-agent-2.md': 'MY OWN prompt\n' });
    const { args, env } = connection();
    const refused = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    expect(refused.stderr).toBe(
      'error[init_would_shadow]: voxform export would write voxform.yaml beside agents.yaml in .: voxform reads voxform.yaml first, so agents.yaml would no longer be read; it would also overwrite prompts/spare-agent-2.md, which exists already; nothing was written.\n' +
        "  hint: Rename agents.yaml to voxform.yaml to keep it as the project's manifest, export into another folder (--out DIR), or pass --force to write voxform.yaml and overwrite prompts/spare-agent-2.md all the same.\n",
    );
    expect(refused.code).toBe(1);
    expect(await readFile(path.join(dir, 'prompts/spare-agent-2.md'), 'utf8')).toBe('MY OWN prompt\n');
  });

  test('a live prompt over the prompt size limit: the manifest does not load, so no "shows no changes", but what to fix', async () => {
    // The update API takes no body that large: the agent is seeded with it.
    const seed = defaultSeed();
    const agent = seed.agents?.find((candidate) => candidate.id === HUGE_PROMPT);
    if (!agent) throw new Error(`the default seed has no agent ${HUGE_PROMPT}`);
    Object.assign(agent, { name: 'Huge prompt', config: { ...agent.config, prompt: 'x'.repeat(2 * 1024 * 1024 + 1) } });
    const huge = await startEmulator({ port: 0, seed });
    const dir = await tempDir();
    const result = await runCliInProcess(['export', '--agent', HUGE_PROMPT, '--base-url', huge.url], { cwd: dir, env: { VOXFORM_API_KEY: huge.apiKey } }).finally(() => huge.close());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('warning: the exported manifest does not load here (file_too_large), so its policy was not checked and plan would refuse it:\nvoxform.yaml:');
    expect(result.stderr).toContain('prompts/huge-prompt.md');
    expect(result.stdout).not.toContain('\nNext: voxform plan');
    expect(result.stdout).toContain('\nNext: fix what the warning above names in the exported files, then voxform validate   # plan shows no changes once it loads\n');
  });

  test('a header token that is also an agent\'s name and a tool\'s name: in no name, key, variable, file or output, and the export plans to no changes', async () => {
    const token = 'zq7Secret99token';
    const seed = defaultSeed();
    const bot = seed.agents?.find((candidate) => candidate.id === FRONT_DESK);
    const other = seed.agents?.find((candidate) => candidate.id === BOOKING);
    if (!bot || !other) throw new Error('the default seed has no front desk or booking agent');
    Object.assign(bot, { name: `Bot ${token}`, config: { ...bot.config, session_data_webhook: { url: 'https://hooks.example.com/end', headers: { authorization: token } } } });
    const tools = (other.config.tools ?? []).map((tool) => ({ ...tool, name: token }));
    Object.assign(other, { name: 'Other', config: { ...other.config, tools } });
    const texts = await exportedFromPhones(seed, { AGENT_OKDQBQETECM4AK369YM_SESSION_DATA_WEBHOOK_AUTHORIZATION: token, OTHER_TOOLS_0_AUTHORIZATION: 'seeded-calendar-token' });
    for (const text of texts) expect(text.toLowerCase()).not.toContain(token.toLowerCase());
    // The output comes first: each variable listed with its place.
    expect(texts[0]).toContain('  AGENT_OKDQBQETECM4AK369YM_SESSION_DATA_WEBHOOK_AUTHORIZATION  agents.agent-okdqbqetecm4ak369ym.config.session_data_webhook.headers.authorization\n');
  });

  test('a header token that is an agent\'s or a tool\'s name only once case and separators are folded: in no key, file name, variable, file or output', async () => {
    // The token as the slug writes the name; in upper case inside an agent named in lower case; with dots inside a tool's name.
    const tokens = { slug: 'zq7-secret-99-token', upper: 'ZQ7_UPPER_42_TOKEN', dotted: 'zq7.sep.77.token' };
    const seed = defaultSeed();
    const bot = seed.agents?.find((candidate) => candidate.id === FRONT_DESK);
    const other = seed.agents?.find((candidate) => candidate.id === BOOKING);
    if (!bot || !other) throw new Error('the default seed has no front desk or booking agent');
    Object.assign(bot, { name: 'Zq7 Secret 99 Token', config: { ...bot.config, session_data_webhook: { url: 'https://hooks.example.com/end', headers: { 'x-hook-token': tokens.slug } } } });
    const tools = (other.config.tools ?? []).map((tool) => ({ ...tool, name: 'Zq7 Sep 77 Token', header: { authorization: tokens.dotted } }));
    const hook = { url: 'https://hooks.example.com/end', headers: { authorization: tokens.upper } };
    Object.assign(other, { name: 'zq7 upper 42 token', config: { ...other.config, tools, session_data_webhook: hook } });
    // Each name holding a token is a reference of its own, named by the agent's id and the tool's position.
    const texts = await exportedFromPhones(seed, {
      AGENT_OKDQBQETECM4AK369YM_NAME: 'Zq7 Secret 99 Token',
      AGENT_OKDQBQETECM4AK369YM_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN: tokens.slug,
      AGENT_OKDQBQETECM4AK369YN_NAME: 'zq7 upper 42 token',
      AGENT_OKDQBQETECM4AK369YN_SESSION_DATA_WEBHOOK_AUTHORIZATION: tokens.upper,
      AGENT_OKDQBQETECM4AK369YN_TOOLS_0_NAME: 'Zq7 Sep 77 Token',
      AGENT_OKDQBQETECM4AK369YN_TOOLS_0_AUTHORIZATION: tokens.dotted,
    });
    for (const text of texts) for (const token of Object.values(tokens)) expect(foldName(text), text).not.toContain(foldName(token));
  });

  test('a header token whose ß, ı or accent a slug or a variable name writes otherwise than its name: in no key, file name, variable, file or output', async () => {
    // Each token and a name holding it as a slug or a variable name writes it: `ß` upper-cases to `SS`
    // and a slug drops it, `ı` upper-cases to `I`, a variable name drops an accented letter.
    const tokens = { sharp: 'Zq7ßecret99Token', dotless: 'ZQ7ISECRET42TOKEN', upperSharp: 'ZQ7SSECRET77TOKEN', accent: 'zq7secret55token' };
    /** The ways a name shows a text: lower- or upper-cased, accents kept apart or dropped, letters and digits only. */
    const folds = [
      (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, ''),
      (text: string) => text.toUpperCase().toLowerCase().replace(/[^a-z0-9]/g, ''),
      (text: string) => text.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]/g, ''),
      (text: string) => text.normalize('NFKD').toUpperCase().toLowerCase().replace(/[^a-z0-9]/g, ''),
    ];
    const seed = defaultSeed();
    const bot = seed.agents?.find((candidate) => candidate.id === FRONT_DESK);
    const other = seed.agents?.find((candidate) => candidate.id === BOOKING);
    const tool = other?.config.tools?.[0];
    if (!bot || !other || !tool) throw new Error('the default seed has no front desk or booking agent with a tool');
    Object.assign(bot, { name: 'Bot ZQ7SSECRET99TOKEN', config: { ...bot.config, session_data_webhook: { url: 'https://hooks.example.com/end', headers: { authorization: tokens.sharp } } } });
    const tools = [
      { ...tool, name: 'Zq7ıSecret42Token', header: { authorization: tokens.dotless } },
      { ...tool, name: 'Zq7ßecret77Token', header: { authorization: tokens.upperSharp } },
      { ...tool, name: 'Zq7éSecret55Token', header: { authorization: 'plain-tool-token-3' } },
    ];
    const hook = { url: 'https://hooks.example.com/end', headers: { authorization: tokens.accent } };
    Object.assign(other, { name: 'Other', config: { ...other.config, tools, session_data_webhook: hook } });
    // Each name holding a token is a reference of its own, named by the agent's id and the tool's position.
    const texts = await exportedFromPhones(seed, {
      AGENT_OKDQBQETECM4AK369YM_NAME: 'Bot ZQ7SSECRET99TOKEN',
      AGENT_OKDQBQETECM4AK369YM_SESSION_DATA_WEBHOOK_AUTHORIZATION: tokens.sharp,
      OTHER_SESSION_DATA_WEBHOOK_AUTHORIZATION: tokens.accent,
      OTHER_TOOLS_0_NAME: 'Zq7ıSecret42Token',
      OTHER_TOOLS_0_AUTHORIZATION: tokens.dotless,
      OTHER_TOOLS_1_NAME: 'Zq7ßecret77Token',
      OTHER_TOOLS_1_AUTHORIZATION: tokens.upperSharp,
      OTHER_TOOLS_2_NAME: 'Zq7éSecret55Token',
      OTHER_TOOLS_2_AUTHORIZATION: 'plain-tool-token-3',
    });
    for (const text of texts) for (const token of Object.values(tokens)) for (const fold of folds) expect(fold(text), text).not.toContain(fold(token));
  });

  test('a header token that only the name as made holds (a `-2` suffix, a tool\'s name joined to a header key): in no key, file name, variable, file or output', async () => {
    const tokens = { suffix: 'zq7-secret-77-2', joined: 'zq7-secret-77-token' };
    const seed = defaultSeed();
    const bot = seed.agents?.find((candidate) => candidate.id === FRONT_DESK);
    const other = seed.agents?.find((candidate) => candidate.id === BOOKING);
    const tool = other?.config.tools?.[0];
    if (!bot || !other || !tool) throw new Error('the default seed has no front desk or booking agent with a tool');
    // Two agents named alike: the second's local name `zq7-secret-77-2` would be its own tool's token.
    Object.assign(bot, { name: 'Zq7 Secret 77' });
    Object.assign(other, { name: 'Zq7 Secret 77', config: { ...other.config, tools: [{ ...tool, header: { authorization: tokens.suffix } }] } });
    const suffixed = await exportedFromPhones(seed, { AGENT_OKDQBQETECM4AK369YN_TOOLS_FIND_SLOTS_AUTHORIZATION: tokens.suffix });
    expect(suffixed[0]).toContain('prompts/agent-okdqbqetecm4ak369yn.md');
    // A tool's name and a header key, each holding no token, that join into one: its variables are named by position.
    const joined = defaultSeed();
    const front = joined.agents?.find((candidate) => candidate.id === FRONT_DESK);
    const booking = joined.agents?.find((candidate) => candidate.id === BOOKING);
    if (!front || !booking) throw new Error('the default seed has no front desk or booking agent');
    Object.assign(front, { name: 'Front', config: { ...front.config, tools: [{ ...tool, name: 'Zq7 Secret', header: { '77-token-x': tokens.joined } }] } });
    Object.assign(booking, { name: 'Other' });
    const texts = await exportedFromPhones(joined, { FRONT_TOOLS_0_77_TOKEN_X: tokens.joined, OTHER_TOOLS_FIND_SLOTS_AUTHORIZATION: 'seeded-calendar-token' });
    for (const text of [...suffixed, ...texts]) for (const token of Object.values(tokens)) expect(foldName(text), text).not.toContain(foldName(token));
  });

  test('a header key holding its own token, so that a variable named by position would show it too: a clear error, nothing written', async () => {
    const token = 'zq7-secret-77-token';
    const seed = defaultSeed();
    const bot = seed.agents?.find((candidate) => candidate.id === FRONT_DESK);
    const tool = seed.agents?.find((candidate) => candidate.id === BOOKING)?.config.tools?.[0];
    if (!bot || !tool) throw new Error('the default seed has no front desk agent or booking tool');
    Object.assign(bot, { config: { ...bot.config, tools: [{ ...tool, header: { [token]: token } }] } });
    const planted = await startEmulator({ port: 0, seed });
    const dir = await tempDir();
    try {
      const exported = await runCliInProcess(['export', '--agent', FRONT_DESK, '--out', 'live', '--base-url', planted.url], { cwd: dir, env: { VOXFORM_API_KEY: planted.apiKey } });
      expect(exported.code).toBe(1);
      expect(exported.stderr).toMatch(/^error\[export_name_shows_secret\]: voxform export cannot name agent -OKdqbqetEcM4ak369ym /);
      expect(foldName(exported.stdout + exported.stderr)).not.toContain(foldName(token));
      expect(existsSync(path.join(dir, 'live'))).toBe(false);
    } finally {
      await planted.close();
    }
  });

  test('a deployed header token that is an agent\'s name once folded: in no key, file name, variable, file or output, with the variable set or without the ledger', async () => {
    const token = 'zq7-secret-99-token';
    const manifest = ['version: 1', 'agents:', '  bot:', `    id: ${FRONT_DESK}`, '    name: "Zq7 Secret 99 Token"', '    config:', '      prompt: "You are a helpful bot."', '      session_data_webhook:', '        url: https://hooks.example.com/end', '        headers:', '          x-hook-token: ${env:HOOK_TOKEN}', ''].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { HOOK_TOKEN: token } });
    expect(applied.code, applied.stderr).toBe(0);
    for (const [out, env, state] of [['set', { HOOK_TOKEN: token }, []], ['nostate', {}, ['--state', 'nostate.json']]] as const) {
      const exported = await runCliInProcess(['export', '--local', '--agent', FRONT_DESK, '--out', out, ...state], { cwd: dir, env });
      expect(exported.code, exported.stderr).toBe(0);
      for (const text of await exportedTexts(exported, path.join(dir, out))) expect(foldName(text), text).not.toContain(foldName(token));
      expect(exported.stdout).toContain('  created      prompts/agent-okdqbqetecm4ak369ym.md\n');
    }
    // The name is a reference of its own; the header's token the one that put it there.
    const plan = await runCliInProcess(['plan', '--local', '-f', 'set/voxform.yaml'], { cwd: dir, env: { HOOK_TOKEN: token, AGENT_OKDQBQETECM4AK369YM_NAME: 'Zq7 Secret 99 Token' } });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('0 to create, 0 to update');
  });

  test('a file where a folder should go: a clear error, before anything is written', async () => {
    const dir = await tempDir({ out: 'a file\n', 'live/prompts': 'a file too\n' });
    const { args, env } = connection();
    for (const [out, blocked] of [['out', 'out'], ['live', 'live/prompts']]) {
      const result = await runCliInProcess(['export', '--agent', SPARE, '--out', out as string, ...args], { cwd: dir, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`error[path_is_file]: ${path.join(dir, blocked as string)} is a file, where voxform export would make a folder.\n  hint: Move it away, or choose another folder with --out DIR.\n`);
    }
    expect(existsSync(path.join(dir, 'live/voxform.yaml'))).toBe(false);
  });

  test('a file above the --out folder, or a folder where a file goes: the code and hint of export, not of init', async () => {
    const dir = await tempDir({ afile: 'x\n' });
    const { args, env } = connection();
    const under = await runCliInProcess(['export', '--agent', SPARE, '--out', 'afile/sub', ...args], { cwd: dir, env });
    expect(under.code).toBe(1);
    expect(under.stderr).toBe(`error[path_is_file]: ${path.join(dir, 'afile')} is a file, where voxform export would make a folder.\n  hint: Move it away, or choose another folder with --out DIR.\n`);

    await mkdir(path.join(dir, 'prompts/spare-agent-2.md'), { recursive: true });
    const folder = await runCliInProcess(['export', '--agent', SPARE, '--force', ...args], { cwd: dir, env });
    expect(folder.code).toBe(1);
    expect(folder.stderr).toBe(`error[path_is_folder]: ${path.join(dir, 'prompts/spare-agent-2.md')} is a folder, where voxform export would write a file.\n  hint: Move it away, or choose another folder with --out DIR.\n`);
    expect(existsSync(path.join(dir, 'voxform.yaml'))).toBe(false);
  });

  test('nothing selected, or an unknown agent: a clear error', async () => {
    const dir = await tempDir();
    const { args, env } = connection();
    const nothing = await runCliInProcess(['export', ...args], { cwd: dir, env });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('error[export_nothing_selected]: Say which agents to export: --agent ID (repeatable), or --from-phones');
    const unknown = await runCliInProcess(['export', '--agent', 'ag_does_not_exist', ...args], { cwd: dir, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error\[export_agent_not_found\]: .*ag_does_not_exist/m);
    expect(unknown.stderr).not.toContain('    at ');
    expect(existsSync(path.join(dir, 'voxform.yaml'))).toBe(false);
  });
});

describe('export --local', () => {
  const tempDir = useTempDirs();

  test('suggests a next step that works as printed, in a folder whose name a shell would split: the plan of the exported manifest shows no changes', async () => {
    const { SECRETS } = await import('../helpers/project.js');
    const dir = await tempDir();
    const applied = await runCliInProcess(['apply', '-f', path.join(repoRoot, 'agents.example.yaml'), '--local', '--auto-approve'], { cwd: dir, env: SECRETS });
    expect(applied.code, applied.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--from-phones', '--local', '--out', "exp dir's"], { cwd: dir });
    expect(exported.code, exported.stderr).toBe(0);
    const next = /^Next: (.*?) {3}#/m.exec(exported.stdout)?.[1];
    expect(next).toBe("voxform plan --local -f 'exp dir'\\''s/voxform.yaml'");
    // The live values of the secrets export left out, under the names it printed.
    const env = { FRONT_DESK_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN: SECRETS.HOOK_TOKEN, APPOINTMENT_BOOKING_TOOLS_FIND_SLOTS_AUTHORIZATION: SECRETS.CALENDAR_TOKEN };
    for (const name of Object.keys(env)) expect(exported.stdout).toContain(name);
    const plan = await runPrinted(next ?? '', { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('0 to create, 0 to update');
  });
});

describe('export of values an apply took from the environment (docs/export.md)', () => {
  const tempDir = useTempDirs();
  const PROMO = 'planted-promo-777';
  const DEPLOYED = [
    'version: 1',
    'agents:',
    '  promo:',
    `    id: ${AWKWARD}`,
    '    config:',
    '      prompt: "Offer ${env:PROMO_CODE} to every caller."',
    '      first_message: "Hello, use code ${env:PROMO_CODE} today."',
    '',
  ].join('\n');

  /** Every file under `dir`, read. */
  async function filesOf(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return Promise.all(entries.filter((entry) => entry.isFile()).map((entry) => readFile(path.join(entry.parentPath, entry.name), 'utf8')));
  }

  test('the variable set here: written back as ${env:PROMO_CODE}, never in clear, and the export plans to no changes', async () => {
    const dir = await tempDir({ 'voxform.yaml': DEPLOYED });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { PROMO_CODE: PROMO } });
    expect(applied.code, applied.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported'], { cwd: dir, env: { PROMO_CODE: PROMO } });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('  PROMO_CODE  agents.spare-agent-1.config.first_message\n');
    expect(`${exported.stdout}${exported.stderr}`).not.toContain(PROMO);
    for (const file of await filesOf(path.join(dir, 'exported'))) expect(file).not.toContain(PROMO);
    const manifest = await readFile(path.join(dir, 'exported/voxform.yaml'), 'utf8');
    expect(manifest).toContain('first_message: Hello, use code ${env:PROMO_CODE} today.');
    expect(manifest).toContain('prompt: Offer ${env:PROMO_CODE} to every caller.');
    const plan = await runCliInProcess(['plan', '--local', '-f', 'exported/voxform.yaml'], { cwd: dir, env: { PROMO_CODE: PROMO } });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('0 to create, 0 to update');
  });

  test("a URL one of whose query values an apply took from the environment: its other tokens become references too, not the dashboard's in clear", async () => {
    const deployed = ['version: 1', 'agents:', '  promo:', `    id: ${AWKWARD}`, '    config:', '      session_data_webhook: { url: "https://h.example.com/x?sig=LITERAL&t=${env:PROMO_CODE}" }', 'policy:', '  rules:', '    security-url-credential: off', '    security-webhook-auth: off', ''].join('\n');
    const dir = await tempDir({ 'voxform.yaml': deployed });
    const env = { PROMO_CODE: PROMO };
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    // Someone puts a token of their own into the live URL (the dashboard).
    const local = path.join(dir, '.voxform/local.json');
    await writeFile(local, (await readFile(local, 'utf8')).replace('sig=LITERAL', 'sig=DASHBOARD-TOKEN-9'));
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported'], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    const manifest = await readFile(path.join(dir, 'exported/voxform.yaml'), 'utf8');
    expect(manifest).toMatch(/url: https:\/\/h\.example\.com\/x\?sig=\$\{env:[A-Z0-9_]+\}&t=\$\{env:PROMO_CODE\}/);
    for (const file of await filesOf(path.join(dir, 'exported'))) expect(file).not.toMatch(/DASHBOARD-TOKEN-9|planted-promo-777/);
  });

  test('a variable set here that no apply read: its value on the service is written as it is, never as a reference an apply did not write', async () => {
    const dir = await tempDir({});
    const env = { LANGUAGE: 'en-US', VOICE: 'alloy' };
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported'], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toContain('Values an apply took from the environment');
    const manifest = await readFile(path.join(dir, 'exported/voxform.yaml'), 'utf8');
    expect(manifest).toContain('language: en-US');
    expect(manifest).not.toContain('${env:');
    const plan = await runCliInProcess(['plan', '--local', '-f', 'exported/voxform.yaml'], { cwd: dir, env: {} });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('0 to create, 0 to update');
  });

  test('the variable not set here, the ledger recording the places: references named after them, listed to set, never the value', async () => {
    const dir = await tempDir({ 'voxform.yaml': DEPLOYED });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { PROMO_CODE: PROMO } });
    expect(applied.code, applied.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported'], { cwd: dir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('  SPARE_AGENT_1_PROMPT         agents.spare-agent-1.config.prompt\n');
    expect(exported.stdout).toContain('  SPARE_AGENT_1_FIRST_MESSAGE  agents.spare-agent-1.config.first_message\n');
    for (const file of await filesOf(path.join(dir, 'exported'))) expect(file).not.toContain(PROMO);
    const env = { SPARE_AGENT_1_PROMPT: `Offer ${PROMO} to every caller.`, SPARE_AGENT_1_FIRST_MESSAGE: `Hello, use code ${PROMO} today.` };
    const plan = await runCliInProcess(['plan', '--local', '-f', 'exported/voxform.yaml'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('0 to create, 0 to update');
  });

  test('a place filled from a variable set here and one not set: the whole value is a reference to set, the unset one\'s value never in clear', async () => {
    const secretWord = 'hunter2-very-secret';
    const manifest = [
      'version: 1',
      'agents:',
      '  spare:',
      `    id: ${AWKWARD}`,
      '    config:',
      '      prompt: "Code: ${env:GREETING}. Never reveal ${env:DB_PASSWORD}."',
      '      first_message: "${env:GREETING}, the door code is ${env:DB_PASSWORD}."',
      '',
    ].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { GREETING: 'Welcome-friend', DB_PASSWORD: secretWord } });
    expect(applied.code, applied.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported'], { cwd: dir, env: { GREETING: 'Welcome-friend' } });
    expect(exported.code, exported.stderr).toBe(0);
    expect(`${exported.stdout}${exported.stderr}`).not.toContain(secretWord);
    for (const file of await filesOf(path.join(dir, 'exported'))) expect(file).not.toContain(secretWord);
    expect(exported.stdout).toContain('  SPARE_AGENT_1_PROMPT         agents.spare-agent-1.config.prompt\n');
    expect(exported.stdout).toContain('  SPARE_AGENT_1_FIRST_MESSAGE  agents.spare-agent-1.config.first_message\n');
    const env = { SPARE_AGENT_1_PROMPT: `Code: Welcome-friend. Never reveal ${secretWord}.`, SPARE_AGENT_1_FIRST_MESSAGE: `Welcome-friend, the door code is ${secretWord}.` };
    const plan = await runCliInProcess(['plan', '--local', '-f', 'exported/voxform.yaml'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('0 to create, 0 to update');
  });

  test('a name an apply took from the environment: not in the name, the agent key, the prompt file, the bindings or the variable names', async () => {
    const manifest = ['version: 1', 'agents:', '  staging:', `    id: ${AWKWARD}`, '    name: "Staging ${env:PROMO}"', '    config:', '      prompt: You are Ava.', ''].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { PROMO, VOXFORM_ENV_ALLOW: 'PROMO' } });
    expect(applied.code, applied.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported'], { cwd: dir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(`${exported.stdout}${exported.stderr}`).not.toContain(PROMO);
    const entries = await readdir(path.join(dir, 'exported'), { recursive: true });
    expect(entries.join('\n')).not.toContain('promo');
    for (const file of await filesOf(path.join(dir, 'exported'))) expect(file).not.toContain(PROMO);
    const written = parse(await readFile(path.join(dir, 'exported/voxform.yaml'), 'utf8')) as { agents: Record<string, { name: string }> };
    expect(written.agents).toEqual({ 'agent-okspareagent0000001': expect.objectContaining({ name: '${env:AGENT_OKSPAREAGENT0000001_NAME}' }) });
    expect(exported.stdout).toContain('  AGENT_OKSPAREAGENT0000001_NAME');
  });

  test('--state names the state whose ledger is read, as it does for plan and apply', async () => {
    const dir = await tempDir({ 'voxform.yaml': DEPLOYED });
    const state = ['--state', 'elsewhere/state.json'];
    expect((await runCliInProcess(['apply', '--local', '--auto-approve', ...state], { cwd: dir, env: { PROMO_CODE: PROMO } })).code).toBe(0);
    const unread = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'unread'], { cwd: dir });
    expect(unread.stdout).not.toContain('SPARE_AGENT_1_PROMPT');
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported', ...state], { cwd: dir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('  SPARE_AGENT_1_PROMPT         agents.spare-agent-1.config.prompt\n');
    for (const file of await filesOf(path.join(dir, 'exported'))) expect(file).not.toContain(PROMO);
  });

  test('two variables holding one value: each place is written as the reference the ledger recorded there, not the first by name', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  spare:',
      `    id: ${AWKWARD}`,
      '    config:',
      '      session_data_webhook: { url: "https://h.example.com/end", headers: { x-hook-token: "${env:SALES_X_HOOK_TOKEN}" } }',
      '      extra_prompt_webhook: { url: "https://h.example.com/pre", headers: { authorization: "Bearer ${env:HOOK_TOKEN}" } }',
      '',
    ].join('\n');
    const env = { HOOK_TOKEN: 'planted-secret-123456', SALES_X_HOOK_TOKEN: 'planted-secret-123456' };
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--local', '--agent', AWKWARD, '--out', 'exported'], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    const written = parse(await readFile(path.join(dir, 'exported/voxform.yaml'), 'utf8')) as { agents: Record<string, { config: Record<string, { headers: unknown }> }> };
    const config = written.agents['spare-agent-1']?.config;
    expect(config?.session_data_webhook?.headers).toEqual({ 'x-hook-token': '${env:SALES_X_HOOK_TOKEN}' });
    expect(config?.extra_prompt_webhook?.headers).toEqual({ authorization: 'Bearer ${env:HOOK_TOKEN}' });
  });
});

/** The CLI as a user file permissions apply to, also when the tests run as root (see runCli). */
function runUnprivileged(args: string[], cwd: string, env: Record<string, string>): Promise<CliResult> {
  return runCli(args, { cwd, env: { HOME: '/tmp', ...env }, unprivileged: true });
}

/** Every file and folder under `dir`, relative, sorted. */
async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

describe('export into folders it cannot write: a clear error, and nothing written', () => {
  const HINT = '  hint: Make the folder writable for this user, or choose another folder with --out DIR.\n';

  test('a prompts/ folder that is not writable: no manifest without its prompt', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'out/prompts'), { recursive: true });
    await chmod(path.join(dir, 'out/prompts'), 0o555);
    const { args, env } = connection();
    const result = await runUnprivileged(['export', '--agent', SPARE, '--out', 'out', ...args], dir, env);
    expect(result.stderr).toBe(`error[export_write_failed]: voxform export cannot write into out: voxform may not write there (${path.join(dir, 'out/prompts')}); nothing was written.\n${HINT}`);
    expect(result.code).toBe(1);
    expect(await listTree(path.join(dir, 'out'))).toEqual(['prompts']);
  });

  test('--force over an existing export: the files there stay as they were', async () => {
    const dir = await tempDir({ 'out/voxform.yaml': 'mine\n', 'out/prompts/spare-agent-2.md': 'my prompt\n' });
    await chmod(path.join(dir, 'out/prompts'), 0o555);
    const { args, env } = connection();
    const result = await runUnprivileged(['export', '--agent', SPARE, '--out', 'out', '--force', ...args], dir, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nothing was written.');
    expect(await readFile(path.join(dir, 'out/voxform.yaml'), 'utf8')).toBe('mine\n');
    expect(await listTree(path.join(dir, 'out'))).toEqual(['prompts', 'prompts/spare-agent-2.md', 'voxform.yaml']);
  });

  test('an --out whose parent is not writable: no folder is left behind', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'locked'));
    await chmod(path.join(dir, 'locked'), 0o555);
    const { args, env } = connection();
    const result = await runUnprivileged(['export', '--agent', SPARE, '--out', 'locked/a/b', ...args], dir, env);
    expect(result.stderr).toBe(`error[export_write_failed]: voxform export cannot write into locked/a/b: voxform may not write there (${path.join(dir, 'locked/a')}); nothing was written.\n${HINT}`);
    expect(result.code).toBe(1);
    expect(await listTree(path.join(dir, 'locked'))).toEqual([]);
  });

  test('a folder voxform may make but not write into (a made folder is removed again)', async () => {
    const dir = await tempDir({ 'out/.voxform/keep': '' });
    await chmod(path.join(dir, 'out/.voxform'), 0o555);
    const { args, env } = connection();
    const result = await runUnprivileged(['export', '--agent', SPARE, '--out', 'out', ...args], dir, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`voxform may not write there (${path.join(dir, 'out/.voxform')}); nothing was written.`);
    expect(await listTree(path.join(dir, 'out'))).toEqual(['.voxform', '.voxform/keep']);
  });
});

describe('export writes only inside the project, never where a link of the checkout leads (docs/security.md §3)', () => {
  /** A git work tree (a `.git` folder marks it) and a folder beside it, outside the project. */
  async function projectAndOutside(files: Record<string, string> = {}): Promise<{ dir: string; outside: string }> {
    const dir = await tempDir({ '.git/hooks/README': 'hooks\n', ...files });
    const outside = await tempDir({ 'spare-agent-2.md': 'NOTES\n', 'victim.txt': 'outside-secret-8d2e\n' });
    return { dir, outside };
  }

  test('a prompts folder linked out of the project, or into .git: refused, nothing written anywhere', async () => {
    const { dir, outside } = await projectAndOutside();
    const { args, env } = connection();
    for (const [target, shown] of [[outside, `outside the project (${dir})`], [path.join(dir, '.git/hooks'), 'into .git, git\'s own folder']] as const) {
      await symlink(target, path.join(dir, 'prompts'));
      const result = await runCliInProcess(['export', '--agent', SPARE, '--force', ...args], { cwd: dir, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error[export_write_failed]: voxform export cannot write prompts/spare-agent-2.md: prompts is a symbolic link leading ${shown}`);
      expect(result.stderr).toContain('hint: Remove the link prompts (git rm it if it is committed) and make it a real folder, or choose another folder with --out DIR.');
      expect(result.stdout).toBe('');
      await unlink(path.join(dir, 'prompts'));
    }
    expect(await readFile(path.join(outside, 'spare-agent-2.md'), 'utf8')).toBe('NOTES\n');
    expect(await readdir(path.join(dir, '.git/hooks'))).toEqual(['README']);
    expect(await readdir(dir)).toEqual(['.git']);
  });

  test('--out into .git: refused before the service is asked, nothing written', async () => {
    const { dir } = await projectAndOutside();
    const { args, env } = connection();
    for (const out of ['.git', '.git/foo']) {
      const result = await runCliInProcess(['export', '--agent', SPARE, '--out', out, ...args], { cwd: dir, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error[export_write_failed]: voxform export cannot write ${out}/voxform.yaml: it is inside .git, git's own folder`);
    }
    expect(await readdir(path.join(dir, '.git'))).toEqual(['hooks']);
  });

  test('a .voxform folder linked elsewhere: the editor schema is not written through it', async () => {
    const { dir, outside } = await projectAndOutside();
    await symlink(outside, path.join(dir, '.voxform'));
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[kept_folder_linked]: .voxform (in');
    expect((await readdir(outside)).sort()).toEqual(['spare-agent-2.md', 'victim.txt']);
  });

  test('a .gitignore linked to a file outside: never read, never copied in; refused', async () => {
    const { dir, outside } = await projectAndOutside();
    await symlink(path.join(outside, 'victim.txt'), path.join(dir, '.gitignore'));
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--agent', SPARE, ...args], { cwd: dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[export_write_failed]: voxform export cannot add its lines to .gitignore in .: it is a symbolic link leading outside the project; nothing was written.');
    expect(`${result.stdout}${result.stderr}`).not.toContain('outside-secret-8d2e');
    expect((await lstat(path.join(dir, '.gitignore'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('outside-secret-8d2e\n');
    expect(existsSync(path.join(dir, 'voxform.yaml'))).toBe(false);
  });

  test('a prompt file that is itself a link out of the project: with --force the link is replaced, never written through', async () => {
    const { dir, outside } = await projectAndOutside();
    await mkdir(path.join(dir, 'prompts'));
    await symlink(path.join(outside, 'spare-agent-2.md'), path.join(dir, 'prompts/spare-agent-2.md'));
    const { args, env } = connection();
    const result = await runCliInProcess(['export', '--agent', SPARE, '--force', ...args], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('overwritten  prompts/spare-agent-2.md');
    expect((await lstat(path.join(dir, 'prompts/spare-agent-2.md'))).isFile()).toBe(true);
    expect(await readFile(path.join(outside, 'spare-agent-2.md'), 'utf8')).toBe('NOTES\n');
  });
});
