import path from 'node:path';
import { REGION_BASE_URLS } from '../../api/regions.js';
import { buildExport, type ExportedSecret, type ExportResult } from '../../export/build-manifest.js';
import { ENV_ALLOW_VARIABLE, envPolicyOf, type EnvPolicy } from '../../secrets/env-policy.js';
import { readLiveAgents } from '../../export/read-live.js';
import { TrustedSecrets } from '../../secrets/trusted.js';
import { noteEveryLedgerRecord } from '../../state/trusted-secrets.js';
import { GITIGNORE_ENTRIES } from '../../templates/gitignore.js';
import { refuseOutsideProject, refuseOwnFolder, writeScaffold } from '../../init/write-scaffold.js';
import { editedFiles, editedWarning, MANIFEST_FILE, shadowedManifest, shadowedWarning, type ScaffoldFile } from '../../init/scaffold.js';
import { SCHEMA_FILE } from '../../schema/load.js';
import { replacedManifest } from '../../init/replaced-manifest.js';
import { losesResources, type ManifestLosses } from '../../export/manifest-losses.js';
import { bundleManifestSchema } from '../../schema/load.js';
import { resolveConnection, type Connection } from '../connection.js';
import { loadManifests } from '../../manifest/index.js';
import { CheckoutFiles, TRUST_UNCOMMITTED_VARIABLE } from '../../project-files/checkout-files.js';
import { mandatoryOnly, renderFindingsText } from '../../policy/render.js';
import { formatDiagnostic } from '../diagnostics.js';
import { checkPolicy } from '../policy-check.js';
import { openOperatorBackend, ownFilesOf } from '../project.js';
import type { CommandContext, ConnectionOptions, StopAtOnce } from '../context.js';
import { plural, pluralNoun } from '../../util/plural.js';
import { MIN_SEARCHABLE_SECRET } from '../../secrets/redact.js';
import { shellWord } from '../../util/shell-word.js';
import { greatest } from '../../util/extremes.js';

interface ExportOptions extends ConnectionOptions {
  agent?: string[];
  fromPhones?: boolean;
  out?: string;
  force?: boolean;
  /** The state whose deploy ledger says which values `${env:…}` put there (`--state`, else VOXFORM_STATE). */
  state?: string;
}

/** `voxform export`: the live agents as a manifest, prompts and phone bindings; nothing overwritten without --force. */
export async function run(options: ExportOptions, ctx: CommandContext): Promise<number> {
  const agentIds = (options.agent ?? []).map((id) => id.trim()).filter((id) => id !== '');
  const fromPhones = options.fromPhones === true;
  const out = path.resolve(ctx.cwd, typeof options.out === 'string' ? options.out : '.');
  const force = options.force === true;
  const where = path.relative(ctx.cwd, out) || '.';
  const own = ownFilesOf(options, ctx);
  const checkout = CheckoutFiles.forRun(ctx.env);
  // The files are written all or nothing (writeScaffold): until they are in place, a stop leaves none.
  ctx.stopLeaves?.({ leftUndone: 'nothing was written', hint: 'Run the command again to export the agents.' });
  // Refused before the service is asked anything.
  await refuseOwnFolder(out, { displayDir: where, command: 'voxform export', own });
  // The files whose names the live agents do not decide: each prompt is checked once they are read.
  const existing = await refuseOutsideProject(out, [{ path: MANIFEST_FILE }, { path: SCHEMA_FILE }, { path: '.gitignore' }], { displayDir: where, command: 'voxform export', own, checkout });
  // Read before anything is written: a malformed list stops the run (env_allow_invalid).
  const policy = envPolicyOf(ctx.env);

  const connection = await resolveConnection(options, ctx);
  const live = await readLiveAgents(connection.client, { agentIds, fromPhones });
  const result = buildExport({
    agents: live.agents,
    phones: live.phones,
    region: connection.baseUrl === REGION_BASE_URLS.eu ? 'eu' : undefined,
    command: commandLine(agentIds, fromPhones),
    deployed: await deployedSecrets(options, ctx, connection),
    refusesVariable: (name) => policy.check(name) !== 'allowed',
  });

  const files: ScaffoldFile[] = [
    { path: MANIFEST_FILE, mode: 'create', content: result.manifest },
    ...result.prompts.map((prompt) => ({ path: prompt.path, mode: 'create' as const, content: prompt.content })),
    { path: SCHEMA_FILE, mode: 'refresh', content: `${JSON.stringify(bundleManifestSchema(), null, 2)}\n` },
    { path: '.gitignore', mode: 'merge', content: GITIGNORE_ENTRIES.join('\n') },
  ];
  // The prompts' names came with the live agents: their places are checked now.
  await refuseOutsideProject(out, result.prompts, { displayDir: where, command: 'voxform export', own, ...existing });
  const shadowed = await shadowedManifest(out);
  const replaced = await replacedManifest(path.join(out, MANIFEST_FILE), existing, result.manifest, 'voxform export');
  const edited = force ? await editedFiles(out, files, existing) : [];
  const written = await writeScaffold(out, files, { force, displayDir: where, command: 'voxform export', existing, losses: replaced?.refusal });
  // From here the export is complete: a stop cuts short only the check after it, and says so.
  ctx.stopLeaves?.(checkCutShort(where));

  const agents = result.localNames.size;
  ctx.stdout.write(
    `Exported ${plural(agents, 'agent')}${result.phones.length > 0 ? ` and ${plural(result.phones.length, 'phone binding')}` : ''} to ${where}:\n`,
  );
  for (const file of written.created) ctx.stdout.write(`  created      ${file}\n`);
  for (const file of written.overwritten) ctx.stdout.write(`  overwritten  ${file}\n`);
  for (const file of written.updated) ctx.stdout.write(`  updated      ${file}\n`);
  for (const file of written.kept) ctx.stdout.write(`  kept         ${file}\n`);
  writeVariableLists(result, ctx);
  const refused = writeWarnings(result, policy, ctx);
  if (shadowed !== undefined) ctx.stderr.write(shadowedWarning(shadowed, where));
  if (replaced !== undefined) ctx.stderr.write(replaced.warning);
  if (edited.length > 0) ctx.stderr.write(editedWarning(edited, 'voxform export'));
  // A manifest kept as it was is checked all the same: the live agents still break what they break.
  const check = await warnMandatoryFindings(path.join(out, MANIFEST_FILE), checkingEnv(ctx.env, result.secrets, policy), ctx);
  // No promise of "no changes" for a manifest plan cannot load, nor for one its policy or the
  // operator's VOXFORM_ENV_ALLOW stops: the way on is to fix what stops it.
  if (!check.loads) ctx.stdout.write(`\nNext: fix what the warning above names in the exported files, then ${validateStep(where)}   # plan shows no changes once it loads\n`);
  else if (check.mandatory > 0) ctx.stdout.write(`\nNext: ${nextStep(where, connection.local)}   # stops on the ${plural(check.mandatory, 'mandatory finding')} above until each is fixed or waived\n`);
  else if (refused.length > 0) ctx.stdout.write(`\nNext: ${nextStep(where, connection.local)}   # refuses the manifest until ${ENV_ALLOW_VARIABLE} allows ${refused.join(', ')} (the warning above)\n`);
  // The resources the replaced manifest defined are not managed any more: plan lists those applied.
  else if (replaced && losesResources(replaced.losses)) ctx.stdout.write(`\nNext: ${nextStep(where, connection.local)}   # ${droppedNote(replaced.losses)}\n`);
  else ctx.stdout.write(`\nNext: ${nextStep(where, connection.local)}   # shows no changes\n`);
  return 0;
}

/** The variables the exported files name: those an apply read (keep them set), then the secrets to set to their live values. */
function writeVariableLists(result: ExportResult, ctx: CommandContext): void {
  if (result.references.length > 0) {
    ctx.stdout.write('\nValues an apply took from the environment are written as the references that put them there (set here; keep them set for plan and apply):\n');
    const width = greatest(result.references.map((r) => r.name.length));
    for (const reference of result.references) ctx.stdout.write(`  ${reference.name.padEnd(width)}  ${reference.path}\n`);
  }
  if (result.secrets.length > 0) {
    ctx.stdout.write('\nSecrets are not exported; set these environment variables to their live values before plan and apply:\n');
    const width = greatest(result.secrets.map((s) => s.name.length));
    for (const secret of result.secrets) ctx.stdout.write(`  ${secret.name.padEnd(width)}  ${secret.path}${secret.short ? `  (under ${MIN_SEARCHABLE_SECRET} characters)` : ''}\n`);
    const short = result.secrets.filter((secret) => secret.short).length;
    if (short > 0) {
      ctx.stdout.write(
        `${plural(short, 'of these holds', 'of these hold')} a live value under ${MIN_SEARCHABLE_SECRET} characters, too short to hide in text: plan warns of each (env_value_short). Export makes every header and URL query value a reference, as it cannot tell which is secret; write one that is not as it is, in place of its reference.\n`,
      );
    }
  }
}

/**
 * What a stop once every file is in place leaves undone: only the check of the exported manifest.
 * The export itself is done, its files in place, so the way on is that check.
 */
function checkCutShort(where: string): StopAtOnce {
  return {
    leftUndone: `the export is complete: every file listed above is in ${where}; only the policy check of the exported manifest was cut short`,
    hint: `Run \`${validateStep(where)}\` for that check (the export itself is done: its files are in place).`,
  };
}

/**
 * The environment the exported manifest's policy is checked with: the variables export named that
 * the operator's `VOXFORM_ENV_ALLOW` refuses (warned about apart) are allowed for the check and read
 * as unset, so the manifest loads as it will once the operator allows them, and no value the
 * operator keeps from manifests is read.
 */
function checkingEnv(env: CommandContext['env'], secrets: readonly ExportedSecret[], policy: EnvPolicy): CommandContext['env'] {
  const refused = secrets.map((secret) => secret.name).filter((name) => policy.check(name) === 'not_allowed');
  if (refused.length === 0) return env;
  const checking: Record<string, string | undefined> = { ...env, [ENV_ALLOW_VARIABLE]: [env[ENV_ALLOW_VARIABLE], ...refused].join(',') };
  for (const name of refused) delete checking[name];
  return checking;
}

/** Whether the exported manifest loads here, and how many mandatory findings it has. */
interface ExportCheck {
  loads: boolean;
  mandatory: number;
}

/**
 * Warns what the live agents break of the mandatory policy (a token in a URL's query, a webhook
 * without authentication): the exported manifest shows no changes, yet plan and apply refuse it until
 * each finding is fixed or waived; or, when the manifest does not load here, why.
 * Its variables are not set yet, so their values read as withheld.
 */
async function warnMandatoryFindings(manifest: string, env: CommandContext['env'], ctx: CommandContext): Promise<ExportCheck> {
  // The files are those export just wrote, voxform's own: read in a CI job too, where a step's are not.
  const ownFiles = { ...env, [TRUST_UNCOMMITTED_VARIABLE]: '1' };
  const loaded = await loadManifests({ paths: [manifest], cwd: ctx.cwd, env: ownFiles, withholdUnsetEnv: true, onSecret: (secret) => ctx.secrets.add(secret) });
  if (!loaded.state) {
    // Said rather than skipped: the promise is that a manifest plan will refuse is never handed over silently.
    const error = loaded.diagnostics.find((d) => d.severity === 'error');
    ctx.stderr.write(`warning: the exported manifest does not load here (${error?.code ?? 'unknown'}), so its policy was not checked and plan would refuse it:\n`);
    if (error) ctx.stderr.write(`${formatDiagnostic(error, { color: ctx.color })}\n`);
    return { loads: false, mandatory: 0 };
  }
  const report = await checkPolicy(loaded.state, ctx);
  const mandatory = report.summary.mandatory;
  if (mandatory === 0) return { loads: true, mandatory };
  ctx.stderr.write(`\n${renderFindingsText(mandatoryOnly(report), { color: ctx.color })}\n`);
  ctx.stderr.write(
    `warning: the live agents break mandatory policy (${plural(report.summary.mandatory, 'finding')} above): plan shows no changes, but plan and apply refuse the manifest until each is fixed, or waived in its policy section with a reason (docs/policy.md).\n`,
  );
  return { loads: true, mandatory };
}

/**
 * The trusted evidence of what `${env:…}` put on the service: the places the operator's deploy
 * ledger recorded (every workspace's: its places are by agent id), and the values of the variables
 * it names that the operator lets a manifest read.
 */
async function deployedSecrets(options: ExportOptions, ctx: CommandContext, connection: Pick<Connection, 'liveSource'>): Promise<TrustedSecrets> {
  const trusted = new TrustedSecrets(ctx.env, ctx.secrets, connection.liveSource);
  const backend = await openOperatorBackend(options, ctx);
  await noteEveryLedgerRecord(trusted, backend);
  return trusted;
}

/** What the manifest leaves out, and the variables the operator's `VOXFORM_ENV_ALLOW` would refuse (returned). */
function writeWarnings(result: ExportResult, policy: EnvPolicy, ctx: CommandContext): string[] {
  for (const [local, fields] of result.withheld) {
    for (const { field, places } of fields) {
      ctx.stderr.write(
        `warning: agents.${local}.config.${field} was left out of the manifest: it holds secrets that are not text (${places.join(', ')}), and a \${env:…} reference would make them text. Keep managing it in the dashboard, or add it by hand.\n`,
      );
    }
  }
  for (const phone of result.skippedPhones) {
    ctx.stderr.write(`warning: phone ${phone} is not an E.164 number, so its binding was left out of the manifest.\n`);
  }
  const refused = result.secrets.filter((secret) => policy.check(secret.name) !== 'allowed').map((secret) => secret.name);
  if (refused.length > 0) {
    ctx.stderr.write(`warning: ${ENV_ALLOW_VARIABLE} does not allow ${refused.join(', ')}: plan will refuse the manifest until the operator adds ${pluralNoun(refused.length, 'it', 'them')} to ${ENV_ALLOW_VARIABLE}.\n`);
  }
  return refused;
}

/** The command that shows the export matches; `--local` data belongs to this folder, so that plan runs from here. */
function nextStep(where: string, local: boolean): string {
  if (local) return where === '.' ? 'voxform plan --local' : `voxform plan --local -f ${shellWord(path.join(where, 'voxform.yaml'))}`;
  return where === '.' ? 'voxform plan' : `cd ${shellWord(where)} && voxform plan`;
}

/** The command that checks the exported manifest, from where export ran. */
function validateStep(where: string): string {
  return where === '.' ? 'voxform validate' : `voxform validate -f ${shellWord(path.join(where, MANIFEST_FILE))}`;
}

function commandLine(agentIds: readonly string[], fromPhones: boolean): string {
  return ['voxform export', ...agentIds.map((id) => `--agent ${shellWord(id)}`), ...(fromPhones ? ['--from-phones'] : [])].join(' ');
}

/**
 * What the plan of a manifest that dropped resources shows of them: those applied without --env, as
 * not managed any more; an environment the new manifest no longer defines is planned no more, so
 * what only it applied is listed nowhere but in the warning above.
 */
function droppedNote(losses: ManifestLosses): string {
  const listed = `lists what the replaced ${MANIFEST_FILE} defined and this one drops as not managed any more, where it was applied`;
  return losses.sections.includes('environments') ? `${listed} without --env; the dropped environments are planned no more (the warning above names all)` : listed;
}
