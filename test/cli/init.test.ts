import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { run as runInit } from '../../src/cli/commands/init.js';
import { COMMAND_HELP } from '../../src/cli/help.js';
import type { CommandContext, Output, StopAtOnce } from '../../src/cli/context.js';
import { isVoxformError } from '../../src/errors.js';
import { validateAgainst } from '../../src/schema/validate.js';
import { templateNames } from '../../src/templates/catalog.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { repoRoot, runCli, runCliInProcess, runPrinted, useTempDirs } from '../helpers/cli.js';
import { SAMPLE_VALUES } from '../templates/fixtures.js';

const AGENT = '-OKspareAgent0000001';
const validateBuilt = existsSync(path.join(repoRoot, 'dist/cli-bundle/main.cjs'));

const tempDir = useTempDirs();

/** A template whose `delay` (a number by its default) is the whole of a number field. */
const DELAY_TEMPLATE = 'description: A concierge.\nvariables:\n  hotel: { description: The hotel, required: true }\n  delay: { description: delay, default: 300 }\nagent:\n  name: "{{hotel}} concierge"\n  config:\n    flow: { response_delay: "{{delay}}" }\n';

function varsFor(name: string): string[] {
  return Object.entries(SAMPLE_VALUES[name] ?? {}).flatMap(([k, v]) => ['--var', `${k}=${v}`]);
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

describe('voxform init, for every template', () => {
  test.each(templateNames())('%s inits, and the manifest is valid', async (name) => {
    const dir = await tempDir();
    const result = await runCliInProcess(['init', '--template', name, ...varsFor(name), '--var', `agent_id=${AGENT}`, 'project'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Created agent ${name} from template ${name} in project:`);
    const project = path.join(dir, 'project');
    expect(await listFiles(project)).toEqual(['.gitignore', '.voxform/manifest.schema.json', `prompts/${name}.md`, 'voxform.yaml']);
    const manifest = parse(await readFile(path.join(project, 'voxform.yaml'), 'utf8')) as { agents: Record<string, { id: string }> };
    expect(validateAgainst('Manifest', manifest)).toEqual([]);
    expect(manifest.agents[name]?.id).toBe(AGENT);

    // The project is already in the canonical layout.
    const fmt = await runCliInProcess(['fmt', '--check'], { cwd: project });
    expect(fmt.stdout).toBe('');
    expect(fmt.code).toBe(0);

    const env = { CALENDAR_TOKEN: 'calendar-token', CRM_WEBHOOK_TOKEN: 'crm-token', HELPDESK_TOKEN: 'helpdesk-token', SURVEY_WEBHOOK_TOKEN: 'survey-token' };
    if (validateBuilt) {
      const validate = await runCliInProcess(['validate'], { cwd: project, env });
      expect(validate.stderr + validate.stdout).not.toMatch(/error/i);
      expect(validate.code).toBe(0);
    }

    // On the embedded emulator: apply makes the spare agent the template's agent; a second plan is empty.
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
    expect(apply.stderr).not.toMatch(/error/i);
    expect(apply.code).toBe(0);
    const plan = await runCliInProcess(['plan', '--local', '--detailed-exitcode'], { cwd: project, env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  });
});

describe('voxform init --help', () => {
  // Pasted where there is no terminal (a script, CI), init asks for nothing: each example must name all it needs.
  test.each(COMMAND_HELP.init?.examples ?? [])('%s: works as pasted, without a terminal', async (example) => {
    const result = await runPrinted(example, { cwd: await tempDir() });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('voxform init, refusals', () => {
  test('lists every missing variable, agent_id included, and writes nothing', async () => {
    const dir = await tempDir();
    const result = await runCliInProcess(['init', '--template', 'receptionist', '--var', 'business=Acme Dental'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error[init_vars_missing]: Template receptionist needs values for business_description, opening_hours, transfer_number, agent_id; nothing was written.');
    for (const name of ['business_description', 'opening_hours', 'transfer_number']) expect(result.stderr).toContain(`--var ${name}=...`);
    expect(result.stderr).toContain(`--var agent_id=${AGENT}`);
    expect(result.stderr).toContain('spare agents of the embedded emulator');
    expect(result.stderr).not.toContain('    at ');
    expect(await listFiles(dir)).toEqual([]);
  });

  test('an empty value does not count for a required variable', async () => {
    const dir = await tempDir();
    const result = await runCliInProcess(['init', '--template', 'post-call-survey', '--var', 'business=', '--var', 'results_webhook_url=https://x.test', '--var', `agent_id=${AGENT}`], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('needs a value for business;');
  });

  test('an unknown --var is an error with a suggestion', async () => {
    const dir = await tempDir();
    const result = await runCliInProcess(['init', '--template', 'receptionist', '--var', 'buisness=Acme', '--var', 'colour=blue'], { cwd: dir });
    expect(result.code).toBe(1);
    // The required variables still missing are named in the same run, not one run later.
    expect(result.stderr).toContain(
      'error[init_var_unknown]: Template receptionist has no variables "buisness" (did you mean "business"?), "colour"; it also needs values for business, business_description, opening_hours, transfer_number, agent_id; nothing was written.',
    );
    expect(result.stderr).toContain('hint: Its variables are: business, business_description');
    expect(await listFiles(dir)).toEqual([]);
  });

  test('a value that breaks the agent names its variable, not the template, and writes nothing', async () => {
    const dir = await tempDir();
    const values = { ...SAMPLE_VALUES.receptionist, transfer_number: 'call-me-555', agent_id: AGENT };
    const args = ['init', '--template', 'receptionist', ...Object.entries(values).flatMap(([name, value]) => ['--var', `${name}=${value}`])];
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error[init_value_invalid]: The value given for transfer_number does not fit template receptionist: flow.call_transfer.phone: is not an E.164 phone number ("+", the country code and the number, digits only, no spaces: "+15551230001") or ${env:NAME}.\n  hint: Give it another value (--var transfer_number=…).\n',
    );
    expect(result.stderr).not.toContain('call-me-555');
    expect(await listFiles(dir)).toEqual([]);
  });

  test('over a project, a value that does not fit is said before the refusal to overwrite: with nothing to ask, it is the mistake to mend first', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n' });
    const values = { ...SAMPLE_VALUES.receptionist, transfer_number: 'call-me-555', agent_id: AGENT };
    const args = ['init', '--template', 'receptionist', ...Object.entries(values).flatMap(([name, value]) => ['--var', `${name}=${value}`])];
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[init_value_invalid\]: The value given for transfer_number does not fit template receptionist: /);
    expect(result.stderr).not.toContain('would_overwrite');
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toBe('version: 1\n');
  });

  test('an agent_id with a line break or a space is refused as the variable\'s fault, and nothing is written', async () => {
    for (const agentId of ['-OKspare\nAgent', '-OKspare Agent']) {
      const dir = await tempDir();
      const result = await runCliInProcess(['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${agentId}`], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'error[init_value_invalid]: The value given for agent_id does not fit: id of agent "receptionist": is not an id as the service gives it, such as -OKdqbqetEcM4ak369ym: no spaces, line breaks or other control characters, and not "." or ".." (copy it again, whole).\n' +
          "  hint: Give the live agent's id, as the service shows it (--var agent_id=…).\n",
      );
      expect(await listFiles(dir)).toEqual([]);
    }
  });

  test('a transfer number given as ${env:…} is text, not a reference: refused as not an E.164 number, and nothing is written', async () => {
    const dir = await tempDir();
    const values = { ...SAMPLE_VALUES.receptionist, transfer_number: '${env:TRANSFER}', agent_id: AGENT };
    const args = ['init', '--template', 'receptionist', ...Object.entries(values).flatMap(([name, value]) => ['--var', `${name}=${value}`])];
    const result = await runCliInProcess(args, { cwd: dir, env: { TRANSFER: '+15551239999' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[init_value_invalid\]: The value given for transfer_number does not fit template receptionist: flow\.call_transfer\.phone: is not an E\.164 phone number/);
    expect(await listFiles(dir)).toEqual([]);
  });

  test('a webhook URL given as an escaped $${env:…} is text, not a reference: refused as not an http(s) URL', async () => {
    const dir = await tempDir();
    const values = { ...SAMPLE_VALUES['lead-qualification'], crm_webhook_url: '$${env:CRM_URL}', agent_id: AGENT };
    const args = ['init', '--template', 'lead-qualification', ...Object.entries(values).flatMap(([name, value]) => ['--var', `${name}=${value}`])];
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.stderr).toContain('session_data_webhook.url is not an http:// or https:// URL');
    expect(result.code).toBe(1);
  });

  test('a webhook URL given that is not an http(s) URL is refused, naming its variable, and nothing is written', async () => {
    const dir = await tempDir();
    const values = { ...SAMPLE_VALUES['lead-qualification'], crm_webhook_url: 'notaurl', agent_id: AGENT };
    const args = ['init', '--template', 'lead-qualification', ...Object.entries(values).flatMap(([name, value]) => ['--var', `${name}=${value}`])];
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error[init_value_invalid]: The value given for crm_webhook_url does not fit template lead-qualification: session_data_webhook.url is not an http:// or https:// URL.\n  hint: Give it another value (--var crm_webhook_url=…).\n',
    );
    expect(await listFiles(dir)).toEqual([]);
  });

  test('a number past 2^53 − 1 given to a number variable is refused, naming it, not rounded into a manifest validate refuses', async () => {
    for (const delay of ['9007199254740993', '12345678901234567890']) {
      const dir = await tempDir({ 'tpl/concierge/template.yaml': DELAY_TEMPLATE });
      const result = await runCliInProcess(['init', '--template', './tpl/concierge', '--var', 'hotel=H', '--var', `agent_id=${AGENT}`, '--var', `delay=${delay}`, 'cx'], { cwd: dir });
      expect(result.stderr).toBe(
        'error[init_value_invalid]: The value given for delay does not fit template ./tpl/concierge: it is past the largest whole number kept exactly (9,007,199,254,740,991) and would be rounded; write a smaller number.\n  hint: Give it another value (--var delay=…).\n',
      );
      expect(result.code).toBe(1);
      expect(existsSync(path.join(dir, 'cx'))).toBe(false);
    }
  });

  test('a --var without = is an error', async () => {
    const result = await runCliInProcess(['init', '--template', 'receptionist', '--var', 'business'], { cwd: await tempDir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[init_var_invalid]: A value given to --var is not NAME=VALUE.');
  });

  test('an unknown template suggests the closest one', async () => {
    const result = await runCliInProcess(['init', '--template', 'receptionst'], { cwd: await tempDir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[template_unknown]: There is no template "receptionst"; did you mean "receptionist"?');
  });

  test('a --template folder that does not exist is said to be missing; a built-in name with a trailing slash is the built-in', async () => {
    const dir = await tempDir();
    const missing = await runCliInProcess(['init', '--template', './nope', '--var', `agent_id=${AGENT}`], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`error[template_unknown]: The folder ${path.join(dir, 'nope')} does not exist.`);
    const builtInPath = await runCliInProcess(['init', '--template', './receptionist'], { cwd: dir });
    expect(builtInPath.stderr).toContain('does not exist; did you mean the template "receptionist" (--template receptionist)?');
    const slashed = await runCliInProcess(['init', '--template', 'receptionist/', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`], { cwd: dir });
    expect(slashed.stderr).toBe('');
    expect(slashed.stdout).toContain('Created agent receptionist from template receptionist in .:');
  });

  test('a --template path to a file (template.yaml itself) is said to be a file, and the folder to give is named', async () => {
    const dir = await tempDir({ 'tpl/concierge/template.yaml': 'description: x\n', 'notes.txt': 'x' });
    const file = await runCliInProcess(['init', '--template', './tpl/concierge/template.yaml', '--var', `agent_id=${AGENT}`], { cwd: dir });
    expect(file.code).toBe(1);
    expect(file.stderr).toBe(
      `error[template_unknown]: ${path.join(dir, 'tpl/concierge/template.yaml')} is a file, not a template folder.\n` +
        '  hint: Give the folder that holds template.yaml and its prompt (--template tpl/concierge); see docs/templates.md.\n',
    );
    const other = await runCliInProcess(['init', '--template', './notes.txt', '--var', `agent_id=${AGENT}`], { cwd: dir });
    expect(other.stderr).toBe(`error[template_unknown]: ${path.join(dir, 'notes.txt')} is a file, not a template folder.\n  hint: A template is a folder holding template.yaml and its prompt; see docs/templates.md.\n`);
    expect(await listFiles(dir)).toEqual(['notes.txt', 'tpl/concierge/template.yaml']);
  });

  test('a --template folder this user may not read is said to be unreadable, like a template.yaml it may not read, never missing', async () => {
    const template = 'description: T.\nagent:\n  name: T\n';
    const dir = await tempDir({ 'tpl/shut/template.yaml': template, 'tpl/open/template.yaml': template });
    const tpl = path.join(dir, 'tpl');
    const unreadable = (shown: string, file: string) =>
      `error[template_invalid]: Template ${shown}: ${path.join(tpl, file)} cannot be read (EACCES).\n  hint: Check the path and its permissions.\n`;
    const init = (folder: string) => runCli(['init', '--template', folder, '--var', `agent_id=${AGENT}`, 'out'], { cwd: dir, unprivileged: true });
    try {
      await chmod(path.join(tpl, 'shut'), 0o000);
      await chmod(path.join(tpl, 'open/template.yaml'), 0o000);
      expect((await init('./tpl/shut')).stderr).toBe(unreadable('./tpl/shut', 'shut/template.yaml'));
      expect((await init('./tpl/open')).stderr).toBe(unreadable('./tpl/open', 'open/template.yaml'));
      // A folder above it that may not be entered: the folder itself cannot be looked at.
      await chmod(path.join(tpl, 'shut'), 0o755);
      await chmod(tpl, 0o000);
      expect((await init('./tpl/shut')).stderr).toBe(unreadable('./tpl/shut', 'shut'));
    } finally {
      await chmod(tpl, 0o755);
      await chmod(path.join(tpl, 'shut'), 0o755);
    }
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  test('a template folder whose name cannot name an agent is said to be the folder\'s fault, before anything is asked', async () => {
    const dir = await tempDir({ 'my concierge/template.yaml': 'description: A concierge.\nagent:\n  name: Concierge\n' });
    const result = await runCliInProcess(['init', '--template', './my concierge', '--var', `agent_id=${AGENT}`], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error[template_invalid]: voxform init names the agent after the template\'s folder, and "my concierge" is not a valid name: use letters, digits, "-", "_" and ".", starting with a letter or digit; nothing was written.\n' +
        '  hint: Rename the folder, then init again.\n',
    );
    expect(await listFiles(dir)).toEqual(['my concierge/template.yaml']);
  });

  test('a text of a template too long once its variables are filled in is refused before it is built, naming where; nothing is written', async () => {
    const long = 'x'.repeat(1000);
    const dir = await tempDir({
      'tpl/t1/template.yaml': `description: test\nvariables:\n  a: { description: a, default: "${long}" }\nagent:\n  name: "n"\n  config:\n    prompt: { file: prompt.md }\n`,
      'tpl/t1/prompt.md': `Hello.\n  ${'{{a}}'.repeat(1100)}\n`,
      'tpl/t2/template.yaml': `description: test\nvariables:\n  a: { description: a, default: "${long}" }\n  b: { description: b, default: "y" }\nagent:\n  name: "n"\n  config:\n    custom_vocabulary: { keywords: { "{{b}}": 2 } }\n    knowledge_base: [{ a: b }, { c: "${'{{a}}'.repeat(1100)}{{b}}" }]\n`,
    });
    const limit = "this text would be longer than 1,048,576 characters, the limit for one text (no longer one fits in an agent's update); use shorter values or fewer references to them; nothing was written.";
    const prompt = await runCliInProcess(['init', '--template', './tpl/t1', '--var', `agent_id=${AGENT}`, 'out'], { cwd: dir });
    expect(prompt.code).toBe(1);
    expect(prompt.stderr).toBe(
      `error[text_too_long]: ${path.join(dir, 'tpl/t1/prompt.md')}:2:3: Template ./tpl/t1, the prompt: with a filled in, ${limit}\n` +
        '  hint: Give it a shorter value (--var a=…); docs/manifest.md#limits lists the limits.\n',
    );
    const field = await runCliInProcess(['init', '--template', './tpl/t2', '--var', `agent_id=${AGENT}`, 'out'], { cwd: dir });
    expect(field.code).toBe(1);
    expect(field.stderr).toBe(
      `error[text_too_long]: ${path.join(dir, 'tpl/t2/template.yaml')}:9:37: Template ./tpl/t2, agent.config.knowledge_base.1.c: with a and b filled in, ${limit}\n` +
        '  hint: Give them a shorter value (--var a=…); docs/manifest.md#limits lists the limits.\n',
    );
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  test('init --help says --template takes a template name or a folder', async () => {
    const help = await runCliInProcess(['init', '--help'], { cwd: await tempDir() });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--template <name|folder> a template name (`voxform templates` lists them) or a folder holding template.yaml');
  });

  test('without --template and without a terminal, lists the templates', async () => {
    const result = await runCliInProcess(['init'], { cwd: await tempDir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error[init_template_required]: Choose a template with --template NAME: ${templateNames().join(', ')}.`);
    expect(result.stderr).toContain('hint: Pass one with --template NAME (or run voxform init in a terminal to be asked)');
  });

  test('refuses to overwrite, naming the files, before asking anything and without writing', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n' });
    // No values given at all: the conflict is reported first, so nobody types answers in vain.
    const result = await runCliInProcess(['init', '--template', 'receptionist'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[would_overwrite]: voxform init would overwrite voxform.yaml in ., which exists already; nothing was written.');
    expect(result.stderr).toContain('--force');
    expect(await listFiles(dir)).toEqual(['voxform.yaml']);
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toBe('version: 1\n');
  });

  test('keeps a prompt file that holds what init would write, when every value its prompt uses is given; refuses it before asking otherwise', async () => {
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`];
    const made = await tempDir();
    expect((await runCliInProcess(args, { cwd: made })).code).toBe(0);
    const prompt = await readFile(path.join(made, 'prompts/receptionist.md'), 'utf8');
    const dir = await tempDir({ 'prompts/receptionist.md': prompt });
    // The values its prompt uses are not given: what init would write there is not known yet, so it is a conflict.
    const early = await runCliInProcess(['init', '--template', 'receptionist'], { cwd: dir });
    expect(early.stderr).toContain('error[would_overwrite]: voxform init would overwrite prompts/receptionist.md in ., which exists already; nothing was written.');
    const same = await runCliInProcess(args, { cwd: dir });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('kept         prompts/receptionist.md');
    expect(await readFile(path.join(dir, 'prompts/receptionist.md'), 'utf8')).toBe(prompt);
  });

  test('run again with the same values: every file holds what it would write, so nothing is refused and all are kept', async () => {
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`];
    const dir = await tempDir();
    expect((await runCliInProcess(args, { cwd: dir })).code).toBe(0);
    const manifest = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    const again = await runCliInProcess(args, { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    // Nothing was made: the headline says the files were there already, not that it created the agent.
    expect(again.stdout).toMatch(/^Kept agent receptionist from template receptionist in \.: every file holds what voxform init would write, so none was written\.\n/);
    expect(again.stdout).toContain('  kept         voxform.yaml\n  kept         prompts/receptionist.md\n');
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toBe(manifest);
    // Another business makes other files: refused, naming no loss of the comments the template writes itself.
    const other = await runCliInProcess([...args, '--var', 'business=Other Dental'], { cwd: dir });
    expect(other.stderr).toBe(
      'error[would_overwrite]: voxform init would overwrite voxform.yaml and prompts/receptionist.md in ., which exist already; nothing was written. prompts/receptionist.md differs from what voxform init would write: its text there would be lost.\n' +
        '  hint: Pass --force to overwrite, or init into another folder: voxform init --template NAME DIR.\n',
    );
  });

  test("run again with another agent_id: refused as an overwrite, naming no loss of init's own header; a comment added there is named; --force replaces it without a warning", async () => {
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist')];
    const dir = await tempDir();
    expect((await runCliInProcess([...args, '--var', 'agent_id=-OKspareAgent0000002'], { cwd: dir })).code).toBe(0);
    const other = [...args, '--var', `agent_id=${AGENT}`];
    const refused = await runCliInProcess(other, { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error[would_overwrite]: voxform init would overwrite voxform.yaml in ., which exists already; nothing was written.\n' +
        '  hint: Pass --force to overwrite, or init into another folder: voxform init --template NAME DIR.\n',
    );
    const manifest = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    const withNote = await tempDir({ 'voxform.yaml': manifest.replace('version: 1\n', '# The team: ask Ann first.\nversion: 1\n') });
    expect((await runCliInProcess(other, { cwd: withNote })).stderr).toContain('The new voxform.yaml would drop what the one there defines: 1 comment line.');

    const forced = await runCliInProcess([...other, '--force'], { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toBe('');
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toContain(`# ${AGENT} is a spare agent of the embedded emulator`);
  });

  test("over a project's voxform.yaml: the refusal names the agents, phones and sections the new one would drop; --force replaces it saying so", async () => {
    const PROJECT = '# The team\'s manifest\nversion: 1\nagents:\n  front-desk:\n    id: -OKdqbqetEcM4ak369ym\n  booking:\n    id: -OKdqbqetEcM4ak369yn\nphones:\n  "+15551230001":\n    agent: front-desk\nenvironments:\n  staging: {}\n';
    const dropped = "agents front-desk and booking; phone +15551230001; the environments section; 1 comment line";
    const dir = await tempDir({ 'voxform.yaml': PROJECT });
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`];
    const refused = await runCliInProcess(args, { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error[would_overwrite]: voxform init would overwrite voxform.yaml in ., which exists already; nothing was written. The new voxform.yaml would drop what the one there defines: ${dropped}.\n` +
        "  hint: To add an agent to a project, init it beside it (voxform init --template NAME DIR) and move the agent's entry and prompt file into voxform.yaml (docs/templates.md). Pass --force to replace it all the same, losing what is listed.\n",
    );
    // Refused before anything is asked, too.
    const early = await runCliInProcess(['init', '--template', 'receptionist'], { cwd: dir });
    expect(early.stderr).toContain(`The new voxform.yaml would drop what the one there defines: ${dropped}.`);
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toBe(PROJECT);

    const forced = await runCliInProcess([...args, '--force'], { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`warning: the voxform.yaml this init replaced defined what the new one drops: ${dropped}. Restore it (from git) unless that was meant;`);
  });

  test('beside an agents.yaml, with its prompt there already: the refusal to hide it names the prompt, which --force would overwrite', async () => {
    const dir = await tempDir({ 'agents.yaml': 'version: 1\n', 'prompts/receptionist.md': 'MY OWN prompt\n' });
    const refused = await runCliInProcess(['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('so agents.yaml would no longer be read; it would also overwrite prompts/receptionist.md, which exists already; nothing was written.\n');
    expect(refused.stderr).toContain('or pass --force to write voxform.yaml and overwrite prompts/receptionist.md all the same.\n');
  });

  test('refuses to hide an agents.yaml behind a new voxform.yaml; with --force writes it and warns', async () => {
    const dir = await tempDir({ 'agents.yaml': 'version: 1\n' });
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`];
    const refused = await runCliInProcess(args, { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error[init_would_shadow]: voxform init would write voxform.yaml beside agents.yaml in .: voxform reads voxform.yaml first, so agents.yaml would no longer be read; nothing was written.\n' +
        "  hint: Rename agents.yaml to voxform.yaml to keep it as the project's manifest, init into another folder (voxform init --template NAME DIR), or pass --force to write voxform.yaml anyway.\n",
    );
    expect(await listFiles(dir)).toEqual(['agents.yaml']);
    // Refused before a template is asked for, too.
    expect((await runCliInProcess(['init'], { cwd: dir })).stderr).toContain('error[init_would_shadow]');

    const forced = await runCliInProcess([...args, '--force'], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(forced.stderr).toBe('warning: agents.yaml in . is no longer read: voxform reads voxform.yaml first.\n  hint: Move its agents into voxform.yaml, or name it with -f agents.yaml.\n');
    expect(await readFile(path.join(dir, 'agents.yaml'), 'utf8')).toBe('version: 1\n');
    expect(existsSync(path.join(dir, 'voxform.yaml'))).toBe(true);
  });

  test('refuses a file where a folder should go, before writing anything', async () => {
    const dir = await tempDir({ prompts: 'a file, not a folder\n' });
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`];
    const inside = await runCliInProcess(args, { cwd: dir });
    expect(inside.code).toBe(1);
    expect(inside.stderr).toBe(`error[path_is_file]: ${path.join(dir, 'prompts')} is a file, where voxform init would make a folder.\n  hint: Move it away, or init into another folder.\n`);
    expect(await listFiles(dir)).toEqual(['prompts']);
    const into = await runCliInProcess([...args, 'prompts'], { cwd: dir });
    expect(into.code).toBe(1);
    expect(into.stderr).toContain(`error[path_is_file]: ${path.join(dir, 'prompts')} is a file, where voxform init would make a folder.`);
    expect(await listFiles(dir)).toEqual(['prompts']);
  });

  test('a folder it may not write into: a clear error, nothing written, and a second run is not refused', async () => {
    const dir = await tempDir();
    const half = path.join(dir, 'half');
    await mkdir(path.join(half, 'prompts'), { recursive: true });
    await chmod(path.join(half, 'prompts'), 0o555);
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`, 'half'];
    const result = await runCli(args, { cwd: dir, unprivileged: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error[init_write_failed]: voxform init cannot write into half: voxform may not write there (${path.join(half, 'prompts')}); nothing was written.\n` +
        '  hint: Make the folder writable for this user, or init into another folder.\n',
    );
    expect(result.stdout).toBe('');
    expect(await readdir(half, { recursive: true })).toEqual(['prompts']);

    await chmod(path.join(half, 'prompts'), 0o755);
    const again = await runCli(args, { cwd: dir, unprivileged: true });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(await listFiles(half)).toEqual(['.gitignore', '.voxform/manifest.schema.json', 'prompts/receptionist.md', 'voxform.yaml']);
  });

  test('a folder that is a broken symbolic link (or lies under one) is named as one, with where it points escaped', async () => {
    const dir = await tempDir();
    await symlink('nowhere/\u001b]0;pwned\u0007x', path.join(dir, 'dangling'));
    for (const target of ['dangling', 'dangling/sub']) {
      const result = await runCliInProcess(['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`, target], { cwd: dir });
      expect(result.stderr, target).toBe(
        `error[init_write_failed]: voxform init cannot write into ${target}: ${path.join(dir, 'dangling')} is a broken symbolic link (it points to "nowhere/\\u001b]0;pwned\\u0007x", which does not exist); nothing was written.\n` +
          '  hint: Make the folder writable for this user, or init into another folder.\n',
      );
      expect(result.code).toBe(1);
    }
    expect(await readdir(dir)).toEqual(['dangling']);
  });

  test('--force overwrites, and .gitignore gains only the lines it lacks', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n', 'prompts/receptionist.md': 'old\n', '.gitignore': 'node_modules/\n**/.voxform/local.json\n' });
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`, '--force'];
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('overwritten  voxform.yaml');
    expect(result.stdout).toContain('overwritten  prompts/receptionist.md');
    expect(result.stderr).toContain('warning: prompts/receptionist.md differed from what voxform init wrote: its text there was lost. Restore it (from git) unless that was meant.\n');
    expect(result.stdout).toContain('updated      .gitignore');
    expect(await readFile(path.join(dir, 'prompts/receptionist.md'), 'utf8')).toContain('You are Ava, the receptionist of Acme Dental');
    const gitignore = await readFile(path.join(dir, '.gitignore'), 'utf8');
    expect(gitignore.split('\n').filter((l) => l === '**/.voxform/local.json')).toHaveLength(1);
    expect(gitignore).toContain('**/.voxform/*.lock');
    expect(gitignore).not.toContain('state.json');

    // Again: nothing more to add to .gitignore; the schema copy is the same.
    const again = await runCliInProcess(args, { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('.gitignore');
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toBe(gitignore);
  });

  test('names the environment variables the manifest reads', async () => {
    const dir = await tempDir();
    const result = await runCliInProcess(['init', '--template', 'appointment-booking', ...varsFor('appointment-booking'), '--var', 'agent_id=ag_live_1'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('export CALENDAR_TOKEN=...');
    expect(result.stdout).toContain('  voxform plan\n');
  });

  test('the next steps plan with --local for a spare agent, but against the service VOXFORM_BASE_URL names when it is set', async () => {
    const args = ['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`];
    const embedded = await runCliInProcess(args, { cwd: await tempDir() });
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(embedded.stdout).toContain('  voxform plan --local      # against the embedded emulator\n');
    const started = await runCliInProcess(args, { cwd: await tempDir(), env: { VOXFORM_BASE_URL: 'http://user:pw@127.0.0.1:4010' } });
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toContain('  voxform plan              # against the service VOXFORM_BASE_URL names\n');
    expect(started.stdout).not.toContain('--local');
    expect(started.stdout).not.toContain('127.0.0.1');
  });

  test('an agent id shaped like a spare one that the emulator has not seeded is no spare agent: no note, no --local', async () => {
    const dir = await tempDir();
    const result = await runCliInProcess(['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', 'agent_id=-OKspareAgent0000009'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('  voxform plan\n');
    expect(result.stdout).not.toContain('--local');
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).not.toContain('spare agent');
  });

  test('in a folder whose name a shell would split, the next steps it prints run as printed', async () => {
    const dir = await tempDir();
    const result = await runCliInProcess(['init', '--template', 'receptionist', ...varsFor('receptionist'), '--var', `agent_id=${AGENT}`, 'new proj'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const steps = result.stdout.slice(result.stdout.indexOf('\nNext:\n') + '\nNext:\n'.length).split('\n').map((line) => line.trim());
    expect(steps[0]).toBe("cd 'new proj'");
    const validate = await runPrinted(`${steps[0]} && voxform validate`, { cwd: dir });
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
  });

  test('a template folder given by path works like a shipped one', async () => {
    const dir = await tempDir({
      'my-templates/concierge/template.yaml': 'description: A concierge.\nvariables:\n  hotel: { description: The hotel, required: true }\nagent:\n  name: "{{hotel}} concierge"\n  config: { first_message: "Welcome to {{hotel}}!" }\n',
    });
    const result = await runCliInProcess(['init', '--template', './my-templates/concierge', '--var', 'hotel=The Grand', '--var', 'agent_id=ag_1'], { cwd: dir });
    expect(result.stderr).toBe('');
    const manifest = parse(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toEqual({ version: 1, agents: { concierge: { id: 'ag_1', name: 'The Grand concierge', config: { first_message: 'Welcome to The Grand!' } } } });
  });
});

/** A context whose stdin is a terminal fed with `answers`. */
function terminalContext(cwd: string, answers: string): { ctx: CommandContext; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const output = (append: (text: string) => void): Output => ({ write: append, isTTY: true, columns: 80 });
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  stdin.end(answers);
  const ctx: CommandContext = {
    cwd,
    env: {},
    stdout: output((t) => (out += t)),
    stderr: output((t) => (err += t)),
    stdin,
    color: false,
    secrets: new SecretRegistry(),
    confirm: async () => true,
    onExit: () => undefined,
    interrupted: () => new Promise<never>(() => undefined),
    writeSent: () => () => undefined,
  };
  return { ctx, out: () => out, err: () => err };
}

describe('voxform init writes only inside the project (docs/security.md §3)', () => {
  const SURVEY = ['init', '--template', 'post-call-survey', ...varsFor('post-call-survey'), '--var', `agent_id=${AGENT}`];

  test('a prompts folder linked out of the project, or a folder inside .git: refused before anything is written', async () => {
    const dir = await tempDir({ '.git/HEAD': 'ref: refs/heads/main\n' });
    const outside = await tempDir({ 'notes.md': 'NOTES\n' });
    await symlink(outside, path.join(dir, 'prompts'));
    const linked = await runCliInProcess(SURVEY, { cwd: dir });
    expect(linked.stderr).toContain(`error[init_write_failed]: voxform init cannot write prompts/post-call-survey.md: prompts is a symbolic link leading outside the project (${dir}); nothing was written.`);
    expect(linked.code).toBe(1);
    expect(await listFiles(outside)).toEqual(['notes.md']);

    const inGit = await runCliInProcess([...SURVEY, '.git/x'], { cwd: dir });
    expect(inGit.stderr).toContain("error[init_write_failed]: voxform init cannot write .git/x/voxform.yaml: it is inside .git, git's own folder");
    expect(inGit.code).toBe(1);
    expect(await listFiles(dir)).toEqual(['.git/HEAD']);
  });

  test('a .gitignore linked to a file outside: never read, never copied in; refused', async () => {
    const dir = await tempDir({ '.git/HEAD': 'ref: refs/heads/main\n' });
    const outside = await tempDir({ 'victim.txt': 'outside-secret-3f1a\n' });
    await symlink(path.join(outside, 'victim.txt'), path.join(dir, '.gitignore'));
    const result = await runCliInProcess(SURVEY, { cwd: dir });
    expect(result.stderr).toContain('error[init_write_failed]: voxform init cannot add its lines to .gitignore in .: it is a symbolic link leading outside the project; nothing was written.');
    expect(result.code).toBe(1);
    expect(`${result.stdout}${result.stderr}`).not.toContain('outside-secret-3f1a');
    expect(await listFiles(dir)).toEqual(['.git/HEAD']);
    expect(await readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('outside-secret-3f1a\n');
  });
});

describe('voxform init writes no hidden character raw (docs/security.md §8)', () => {
  test('a prompt holding a terminal escape or a right-to-left override is written inline, escaped, and no prompt file is written or named', async () => {
    const dir = await tempDir();
    const values = { ...SAMPLE_VALUES.receptionist, business: 'Acme\u001b]0;pwned\u0007\u202eX', agent_id: AGENT };
    const result = await runCliInProcess(['init', '--template', 'receptionist', ...Object.entries(values).flatMap(([name, value]) => ['--var', `${name}=${value}`]), 'w2'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await listFiles(path.join(dir, 'w2'))).toEqual(['.gitignore', '.voxform/manifest.schema.json', 'voxform.yaml']);
    expect(result.stdout).not.toContain('prompts/');
    expect(await readFile(path.join(dir, 'w2', 'voxform.yaml'), 'utf8')).not.toMatch(/[\u001b\u0007\u202e]/);
  });
});

describe('voxform init on a terminal', () => {
  test('offers the templates, then asks for each missing value, re-asking when empty', async () => {
    const dir = await tempDir();
    const index = templateNames().indexOf('post-call-survey') + 1;
    const answers = [String(index), 'Acme Dental', '', 'https://hooks.acme.example/survey', AGENT, ''].join('\n');
    const term = terminalContext(dir, answers);
    const code = await runInit({ args: [], var: [] }, term.ctx);
    expect(code).toBe(0);
    expect(term.err()).toContain('Templates:');
    expect(term.err()).toContain('Template (number or name): ');
    expect(term.err()).toContain('  business — The business name');
    expect(term.err()).toContain('  results_webhook_url is required.');
    expect(term.err()).toContain(`agent_id — The id of the live agent this manifest manages (agents are adopted, not created) (try ${AGENT} with --local): `);
    const manifest = parse(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')) as { agents: Record<string, { id: string; name: string }> };
    expect(manifest.agents['post-call-survey']).toMatchObject({ id: AGENT, name: 'Acme Dental post-call survey' });
    expect(term.out()).toContain('Created agent post-call-survey');
  });

  test('a stop at a question says nothing was written', async () => {
    const dir = await tempDir();
    const index = templateNames().indexOf('post-call-survey') + 1;
    const term = terminalContext(dir, [String(index), 'Acme Dental', 'https://hooks.acme.example/survey', AGENT, ''].join('\n'));
    let leaves: StopAtOnce | undefined;
    term.ctx.stopLeaves = (atOnce) => void (leaves = atOnce);
    // What a signal while the template is asked for stops the run with: "voxform stopped at your request; nothing was written."
    let atQuestion: StopAtOnce | undefined;
    const stderr = term.ctx.stderr;
    term.ctx.stderr = { ...stderr, write: (text: string) => (text.includes('Template (number or name)') && (atQuestion = leaves), stderr.write(text)) };
    expect(await runInit({ args: [], var: [] }, term.ctx)).toBe(0);
    expect(atQuestion).toEqual({ leftUndone: 'nothing was written', hint: 'Run the command again to write the project.' });
  });

  test('a value that does not fit is asked for again at once, saying why, before the next question', async () => {
    const dir = await tempDir();
    const answers = ['Acme Dental', 'ftp://x', 'https://hooks.acme.example/survey', AGENT, ''].join('\n');
    const term = terminalContext(dir, answers);
    const code = await runInit({ args: [], template: 'post-call-survey', var: [] }, term.ctx);
    expect(code).toBe(0);
    const why = term.err().indexOf('  The value given for results_webhook_url does not fit template post-call-survey: ');
    expect(why).toBeGreaterThan(-1);
    expect(why).toBeLessThan(term.err().indexOf('  agent_id — '));
    expect(term.err().split('  results_webhook_url — ').length).toBe(3);
    const manifest = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    expect(manifest).toContain('https://hooks.acme.example/survey');
    expect(manifest).not.toContain('not a url');
  });

  test('a phone number that does not fit is asked for again before the questions after it', async () => {
    const dir = await tempDir();
    const { transfer_number: _asked, ...given } = SAMPLE_VALUES.receptionist ?? {};
    const term = terminalContext(dir, ['12345', '+15551239999', AGENT, ''].join('\n'));
    const code = await runInit({ args: [], template: 'receptionist', var: Object.entries(given).map(([name, value]) => `${name}=${value}`) }, term.ctx);
    expect(code).toBe(0);
    const why = term.err().indexOf('  The value given for transfer_number does not fit template receptionist: ');
    expect(why).toBeGreaterThan(-1);
    expect(why).toBeLessThan(term.err().indexOf('  agent_id — '));
    expect(term.err()).not.toContain('12345');
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toContain('+15551239999');
  });

  test('a number variable given a number past 2^53 − 1 is asked for again, and the answer is a number', async () => {
    const dir = await tempDir({ 'tpl/concierge/template.yaml': DELAY_TEMPLATE });
    const term = terminalContext(dir, '400\n');
    const code = await runInit({ args: [], template: './tpl/concierge', var: ['hotel=H', `agent_id=${AGENT}`, 'delay=9007199254740993'] }, term.ctx);
    expect(code).toBe(0);
    expect(term.err()).toContain('  The value given for delay does not fit template ./tpl/concierge: it is past the largest whole number kept exactly');
    expect(term.err()).toContain('  delay — delay: ');
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toContain('flow: { response_delay: 400 }\n');
  });

  test('an agent_id with a space is asked for again', async () => {
    const dir = await tempDir();
    const answers = ['Acme Dental', 'https://hooks.acme.example/survey', '-OKspare Agent', AGENT, ''].join('\n');
    const term = terminalContext(dir, answers);
    const code = await runInit({ args: [], template: 'post-call-survey', var: [] }, term.ctx);
    expect(code).toBe(0);
    expect(term.err()).toContain('  The value given for agent_id does not fit: ');
    expect(term.err().split('  agent_id — ').length).toBe(3);
    const manifest = parse(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')) as { agents: Record<string, { id: string }> };
    expect(manifest.agents['post-call-survey']?.id).toBe(AGENT);
  });

  test('an existing voxform.yaml stops it before a template is asked for', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n' });
    const term = terminalContext(dir, '1\n');
    let caught: unknown;
    await runInit({ args: [], var: [] }, term.ctx).catch((error: unknown) => (caught = error));
    expect(isVoxformError(caught) && caught.message).toBe('voxform init would overwrite voxform.yaml in ., which exists already; nothing was written.');
    expect(term.err()).not.toContain('Template (number or name)');
    expect(await readFile(path.join(dir, 'voxform.yaml'), 'utf8')).toBe('version: 1\n');
  });

  test('input that ends before every answer aborts without writing', async () => {
    const dir = await tempDir();
    const term = terminalContext(dir, 'Acme Dental\n');
    let caught: unknown;
    await runInit({ args: [], template: 'post-call-survey' }, term.ctx).catch((error: unknown) => (caught = error));
    expect(isVoxformError(caught) && caught.code).toBe('init_aborted');
    expect(await listFiles(dir)).toEqual([]);
  });
});
