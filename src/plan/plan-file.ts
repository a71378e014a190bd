import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import type { DesiredState } from '../manifest/types.js';
import { fingerprintKeyId, keyedHash } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';
import { redactStrings } from '../secrets/redact.js';
import { checkKeptFolder, keptJsonBytes, readKeptJson, type KeptJsonLimits } from '../project-files/kept-files.js';
import { MAX_KEPT_FILE_BYTES, MAX_KEPT_JSON_DEPTH, MAX_PLAN_JSON_VALUES } from '../project-files/limits.js';
import { describeWriteFailure, writeFileAtomic } from '../util/atomic-write.js';
import { PLAN_JSON_LEVELS, planToJson } from './render-json.js';
import { inChunks, jsonPieces } from '../util/json-pieces.js';
import { beginsAsSavedPlan, isPlanFormatRead, OLDEST_PLAN_FORMAT_READ, PLAN_JSON_FORMAT_VERSION } from './format-version.js';
import { planFromJson } from './saved-plan.js';
import type { Plan } from './types.js';
import type { WorkspaceState } from '../state/types.js';
import { placeOfIdentity, type StateBackend } from '../state/backend.js';

/**
 * A saved plan (`voxform plan --out FILE`): the JSON plan (secrets redacted) with its requests, plus
 * what binds it to its moment: the manifests' hash, the environment, the service, each resource's
 * live fingerprint and a digest of the secret values. Digests and fingerprints are keyed with the
 * fingerprint key (never in the file), so they cannot be tested against guesses offline;
 * `fingerprint_key_id` tells "made with another API key" from "changed". `plan_digest`, keyed over
 * everything else, means the requests and the changes shown cannot be edited without the API key.
 */
export interface SavedPlan {
  format_version: string;
  kind: 'voxform-plan';
  manifest_hash: string;
  files: string[];
  environment: string | null;
  base_url: string;
  targets: string[];
  /** Format 1.8, for a plan made with --take-over. */
  take_over?: string[];
  secrets_digest: string;
  fingerprint_key_id: string;
  plan_digest: string;
  resource_changes: Array<{ address: string; action: string; live_fingerprint: string }>;
  /** The folder `voxform plan` ran in (a real path), to say so when the plan is applied from another. */
  made_in?: string;
  /** The state's record of the workspace the plan was made against (`stateDigest`); absent from a plan saved before it was kept. */
  state_digest?: string;
  [key: string]: unknown;
}

/** What a saved plan is checked against at apply: the state of things now. */
interface PlanFreshnessInputs {
  /** The live fingerprint of each resource now, by address. */
  fingerprints: ReadonlyMap<string, string>;
  desired: DesiredState;
  /** The service this apply targets: its base URL, or `local` for the embedded emulator. */
  serviceId: string;
  fingerprintKey: string;
  /** The folder apply runs in (a real path), compared with the plan's `made_in` to explain changed manifests. */
  workingDir?: string | undefined;
  /** The command a refusal's hint names to make a new plan (default `voxform plan --out FILE`). */
  planCommand?: string | undefined;
  /** The state's record of the workspace this apply runs against, as it reads it now. */
  workspace: WorkspaceState;
  /** Where that state is kept (`statePlace`), when the plan's was recorded with it. */
  statePlace?: string | undefined;
}

const DEFAULT_PLAN_COMMAND = 'voxform plan --out FILE';

/** The secret values of the manifests, keyed (see `fingerprintKey`). */
function secretsDigest(desired: DesiredState, fingerprintKey: string): string {
  return keyedHash(fingerprintKey, [desired.manifestHash, [...desired.secrets].sort()]);
}

/**
 * The state's record of a workspace, keyed: a plan is made against what the state says voxform
 * applied, and applied against it again only if nothing wrote it since: no other apply, heal or
 * rollback, and no other state (`apply plan.json` without the `--state` the plan was made with
 * would record the deploy where the team's next plan never looks).
 */
export function stateDigest(workspace: WorkspaceState, fingerprintKey: string, place?: string): string {
  // What the last run said of itself, and the names of the variables it read, are left out: an apply
  // with nothing to do writes both, and changes no record of a resource.
  const { lastApply: _lastRun, environmentVariables: _variablesRead, ...recorded } = workspace;
  // A saved plan binds where the state is kept too (`statePlace`): a workspace no apply recorded yet
  // reads alike in every state, and a first deploy applied with another state would be recorded there.
  return keyedHash(fingerprintKey, place === undefined ? recorded : { place, recorded });
}

/** The digest of a saved plan's every other field (its `plan_digest`, if any, left out). */
function planDigest(saved: Record<string, unknown>, fingerprintKey: string): string {
  const { plan_digest: _ignored, ...rest } = saved;
  return keyedHash(fingerprintKey, rest, PLAN_JSON_LEVELS);
}

/** What a saved plan may be: the one bound savePlanFile writes within and readPlanFile reads within. */
export const PLAN_JSON_LIMITS: KeptJsonLimits = { maxBytes: MAX_KEPT_FILE_BYTES, maxValues: MAX_PLAN_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH };


/**
 * What a plan `plan()` made was made against: the state's record of the workspace, and the identity
 * of the state it was read from (asked for as the plan is made: the backend may be closed before the
 * plan is saved). Kept beside the plan object, not in it (the Plan contract is what renderers show),
 * so that every saved plan is bound to its state, whoever saves it.
 */
interface PlanBasis {
  workspace: WorkspaceState;
  identity: Promise<string>;
}

const basisOfPlan = new WeakMap<Plan, PlanBasis>();

/** Notes that `plan` was made against `workspace` as `backend` stores it (`plan()` calls it). */
export function recordPlanBasis(plan: Plan, workspace: WorkspaceState, backend: Pick<StateBackend, 'identity'>): void {
  const identity = backend.identity();
  // Awaited when the plan is saved; a plan never saved must not leave a rejection unhandled.
  identity.catch(() => undefined);
  basisOfPlan.set(plan, { workspace, identity });
}

/**
 * The saved plan's `state_digest`: the state's record it was made against, and where that state is
 * kept as seen from `madeIn` (the working folder apply compares with by default).
 */
async function savedStateDigest(plan: Plan, fingerprintKey: string, madeIn: string | undefined): Promise<string> {
  const basis = basisOfPlan.get(plan);
  if (basis === undefined) {
    throw new VoxformError('invalid_option', 'savePlanFile(): this plan was not made by plan() in this process, so the state it was made against is unknown; a saved plan is bound to it, and nothing was saved.', {
      hint: 'Save the Plan that plan() resolved to, as it is (not a copy or a plan read back from JSON), as docs/library.md shows.',
    });
  }
  const place = await placeOfIdentity(await basis.identity, madeIn ?? (await realpath(process.cwd())));
  return stateDigest(basis.workspace, fingerprintKey, place);
}

/**
 * Saves the plan, bound to the state it was made against (`recordPlanBasis`). `redact` takes out of what a reviewer sees any secret the schema's marks and the
 * `${env:…}` places do not cover (a live value an earlier `${env:…}` put there). Requests stay as planned.
 */
export async function savePlanFile(
  file: string,
  plan: Plan,
  desired: DesiredState,
  fingerprintKey: string,
  options: { redact?: ((text: string) => string) | undefined; madeIn?: string | undefined; limits?: KeptJsonLimits } = {},
): Promise<void> {
  const { redact } = options;
  const stateDigestOfPlan = await savedStateDigest(plan, fingerprintKey, options.madeIn);
  const json = planToJson(plan);
  if (redact) {
    const changes = json.resource_changes as Array<Record<string, unknown>>;
    json.resource_changes = changes.map(({ requests, ...shown }) => ({ ...(redactStrings(shown, redact) as Record<string, unknown>), requests }));
  }
  const body: Record<string, unknown> = {
    kind: 'voxform-plan',
    ...json,
    secrets_digest: secretsDigest(desired, fingerprintKey),
    fingerprint_key_id: fingerprintKeyId(fingerprintKey),
    ...(options.madeIn === undefined ? {} : { made_in: options.madeIn }),
    state_digest: stateDigestOfPlan,
  };
  body.plan_digest = planDigest(body, fingerprintKey);
  await checkKeptFolder(path.dirname(file));
  await refuseToOverwriteOther(file);
  try {
    await writeFileAtomic(file, keptJsonBytes(inChunks(savedPlanText(body)), options.limits ?? PLAN_JSON_LIMITS, (problem) => unreadable(file, problem)), 0o600);
  } catch (error) {
    if (error instanceof VoxformError) throw error;
    throw new VoxformError('plan_write_failed', `Cannot save the plan to ${file}: ${describeWriteFailure(error)}; nothing was saved.`, {
      hint: 'Name a file in a folder that exists and is writable with --out.',
    });
  }
}

/**
 * The saved plan's text in pieces, as it is written: at the plan budget, it is too large to be one string. As
 * JSON.stringify writes it: voxform reads it back, and `plan show` prints it escaped.
 */
function* savedPlanText(body: Record<string, unknown>): Generator<string> {
  yield* jsonPieces(body, PLAN_JSON_LEVELS, (value, indent) => JSON.stringify(value, null, indent));
  yield '\n';
}

/** A plan past what readPlanFile reads is not saved: `plan show` and `apply` would refuse it. */
function unreadable(file: string, problem: string): VoxformError {
  return new VoxformError('plan_write_failed', `Cannot save the plan to ${file}: it ${problem} for a saved plan, so \`voxform plan show\` and \`voxform apply\` could not read it; nothing was saved.`, {
    hint: 'Save a plan of fewer resources at a time: `voxform plan --out FILE --target ADDR` (repeatable) for a part, apply it, then plan the rest.',
  });
}

/** `--out` may replace a plan saved before, never another file (a mistyped `--out voxform.yaml`). */
async function refuseToOverwriteOther(file: string): Promise<void> {
  try {
    if ((await stat(file)).isDirectory()) return; // the write says it is a folder
  } catch {
    return; // nothing there: the write makes it
  }
  // A plan is replaced; for a file that cannot be read, the write says what is wrong.
  if (beginsAsSavedPlan(file) !== false) return;
  throw new VoxformError('plan_write_failed', `Cannot save the plan to ${file}: the file exists and is not a plan voxform saved; nothing was saved.`, {
    hint: 'Name another file with --out, or remove this one first if it is no longer needed.',
  });
}

export async function readPlanFile(file: string, limits: KeptJsonLimits = PLAN_JSON_LIMITS): Promise<SavedPlan> {
  // Read under the guards of kept files: a plan handed on between CI jobs may be a link to a FIFO or a device.
  const read = await readKeptJson(file, limits);
  if (read.found && !read.ok && read.syntax) {
    const { line, col, expected } = read.syntax;
    throw new VoxformError('plan_unreadable', `Cannot read the plan: it stops being JSON here, where JSON expected ${expected}; voxform saves plans as JSON, so it was damaged or is another file.`, {
      location: { file, line, col },
      hint: 'Make it again with `voxform plan --out FILE`; never edit a saved plan.',
    });
  }
  if (!read.found || !read.ok) {
    const reason = !read.found ? 'it does not exist' : read.reason === 'not_json' ? 'it is not a JSON plan file' : `it ${read.problem}`;
    throw new VoxformError('plan_unreadable', `Cannot read the plan ${file}: ${reason}.`, { hint: 'Make one with `voxform plan --out FILE`.' });
  }
  const parsed = (isPlainObject(read.value) ? read.value : {}) as Partial<SavedPlan>;
  if (parsed.kind !== 'voxform-plan' || !Array.isArray(parsed.resource_changes) || typeof parsed.manifest_hash !== 'string') {
    throw new VoxformError('plan_unreadable', `${file} is not a voxform plan file.`, { hint: 'Make one with `voxform plan --out FILE`.' });
  }
  if (!isPlanFormatRead(parsed.format_version)) {
    const newer = isNewerFormat(parsed.format_version, PLAN_JSON_FORMAT_VERSION);
    // Quoted only when it is a version: the file is anybody's, and its field may be any JSON, of any size.
    const format = isFormatVersion(parsed.format_version) ? `plan format ${parsed.format_version}` : 'a plan format this voxform does not know';
    throw new VoxformError('plan_unreadable', `${file} has ${format}${newer ? ', made by a newer voxform' : ''}; this voxform reads ${OLDEST_PLAN_FORMAT_READ} to ${PLAN_JSON_FORMAT_VERSION}.`, {
      hint: newer ? 'Upgrade voxform to the version that made the plan (or make the plan again with this version).' : 'Make the plan again with this version of voxform.',
    });
  }
  // Refused whole at reading, naming the file, rather than halfway through an apply.
  planFromJson(parsed as Record<string, unknown>, file);
  return parsed as SavedPlan;
}

/** A dotted format version (`1.5`, `2.0`), of at most nine digits a part and ten parts. */
function isFormatVersion(found: unknown): found is string {
  return typeof found === 'string' && /^\d{1,9}(\.\d{1,9}){0,9}$/.test(found);
}

/** Whether `found` is a dotted format version (`1.5`, `2.0`) after `known`, compared part by part as numbers. */
function isNewerFormat(found: unknown, known: string): boolean {
  if (!isFormatVersion(found)) return false;
  const theirs = found.split('.').map(Number);
  const ours = known.split('.').map(Number);
  for (let i = 0; i < Math.max(theirs.length, ours.length); i++) {
    const difference = (theirs[i] ?? 0) - (ours[i] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return false;
}

/**
 * How a service is named to the user: `--local`, or its URL without credentials, query or fragment
 * (a saved plan's URL comes from a file, which may say anything).
 */
function describeService(serviceId: string): string {
  if (serviceId === 'local') return '--local (the embedded emulator)';
  try {
    const url = new URL(serviceId);
    return `${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'another service';
  }
}

/**
 * A saved plan applied where it was not made: which service, or which folder, says why it cannot run.
 * `manifestsMissing`: the folder here holds none of the plan's manifests (else they differ).
 */
export function madeElsewhere(
  saved: Pick<SavedPlan, 'base_url' | 'made_in'>,
  here: Pick<PlanFreshnessInputs, 'serviceId' | 'workingDir' | 'planCommand'> & { manifestsMissing?: boolean },
): VoxformError | undefined {
  const hint = `Apply it where it was made, or run \`${here.planCommand ?? DEFAULT_PLAN_COMMAND}\` here, review it, and apply the new plan.`;
  if (saved.base_url !== here.serviceId) {
    const made = saved.base_url === 'local' ? 'made with --local' : `made for ${describeService(saved.base_url)}`;
    return new VoxformError('plan_stale', `The saved plan was ${made}; this apply targets ${describeService(here.serviceId)}. Nothing was applied.`, {
      hint,
      details: { reasons: ['made for another service'], resources: [] },
    });
  }
  if (saved.made_in !== undefined && here.workingDir !== undefined && saved.made_in !== here.workingDir) {
    const folder = here.manifestsMissing ? 'which does not hold its manifests' : 'whose manifests differ';
    return new VoxformError('plan_stale', `The saved plan was made from ${saved.made_in}; you are in ${here.workingDir}, ${folder}. Nothing was applied.`, {
      hint,
      details: { reasons: ['made in another project'], resources: [] },
    });
  }
  return undefined;
}

/**
 * Refuses a saved plan this run's key cannot vouch for: made with another key, or changed since it
 * was saved (its `plan_digest`, keyed over every other field, does not match). Nothing a plan names
 * (its manifests, its environment) is read before this holds: a plan handed on between CI jobs may
 * have been edited to name any file.
 */
export function assertPlanIntact(saved: SavedPlan, fingerprintKey: string, planCommand = DEFAULT_PLAN_COMMAND): void {
  if (saved.fingerprint_key_id !== fingerprintKeyId(fingerprintKey)) {
    // Every keyed digest differs under another key: comparing them would only blame the wrong thing.
    throw new VoxformError('plan_stale', 'The saved plan was made with another API key, so voxform cannot check it is still current. Nothing was applied.', {
      hint: `Run \`${planCommand}\` again with this VOXFORM_API_KEY, review it, and apply the new plan.`,
      details: { reasons: ['made with another API key'], resources: [] },
    });
  }
  if (saved.plan_digest !== planDigest(saved, fingerprintKey)) {
    throw new VoxformError('plan_unreadable', 'The saved plan was changed after voxform saved it (its plan_digest does not match), so what it would send is not what was reviewed. Nothing was applied.', {
      hint: 'Run `voxform plan --out FILE` again, review it, and apply the new plan; never edit a saved plan.',
    });
  }
}

/**
 * Refuses a saved plan that no longer describes what apply would do: made for another service or in
 * another project, the manifests, environment or secret values changed, or a resource's live
 * fingerprint moved. It plans nothing.
 */
export function assertPlanFresh(saved: SavedPlan, now: PlanFreshnessInputs): void {
  const { fingerprints, desired, serviceId, fingerprintKey } = now;
  const planCommand = now.planCommand ?? DEFAULT_PLAN_COMMAND;
  // Another service or project first: its key, and so every keyed digest, may differ too, and would only
  // blame the key. The same manifests in another checkout are fine; other manifests in another folder are another project.
  const manifestsChanged = saved.manifest_hash !== desired.manifestHash;
  const elsewhere = madeElsewhere(saved, { serviceId, workingDir: manifestsChanged ? now.workingDir : undefined, planCommand });
  if (elsewhere) throw elsewhere;
  assertPlanIntact(saved, fingerprintKey, planCommand);
  const reasons: string[] = [];
  if (manifestsChanged) reasons.push('the manifests (or files they include) changed');
  // Before the live fingerprints: those of the files, campaigns and credentials are compared with what the state recorded.
  const stateMoved = saved.state_digest !== undefined && saved.state_digest !== stateDigest(now.workspace, fingerprintKey, now.statePlace);
  if (stateMoved) reasons.push("the state's record of this workspace is not the one the plan was made against (an apply, heal or rollback ran since, or this apply reads another state)");
  if ((saved.environment ?? undefined) !== desired.environment) reasons.push('the environment differs');
  // The digest and fingerprints are keyed with the manifests' hash too: once it changed, naming them
  // would blame secrets and live state that did not change.
  const moved: string[] = [];
  if (!manifestsChanged) {
    if (saved.secrets_digest !== secretsDigest(desired, fingerprintKey)) reasons.push('the value of a ${env:…} secret changed');
    for (const change of saved.resource_changes) if (fingerprints.get(change.address) !== change.live_fingerprint) moved.push(change.address);
    if (moved.length > 0) reasons.push(`live state changed for ${moved.join(', ')}`);
  }
  if (reasons.length > 0) {
    const otherState = stateMoved ? ' If the plan was made with another --state (or VOXFORM_STATE), apply it with that one instead.' : '';
    throw new VoxformError('plan_stale', `The saved plan is stale: ${reasons.join('; ')}. Nothing was applied.`, {
      hint: `Run \`${planCommand}\` again, review it, and apply the new plan.${otherState}`,
      details: { reasons, resources: moved },
    });
  }
}
