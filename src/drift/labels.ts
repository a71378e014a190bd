/** How each class of difference reads, in every format. */
import { liveUnknown, type DriftClass, type DriftedField, type DriftedResource, type DriftReport, type HealOutcome } from './types.js';
import { formatCount, plural, someOf } from '../util/plural.js';
import { UNSET_VALUE, type FieldView } from '../plan/field-lines.js';
import { missingStateWarning } from '../state/missing-state.js';
import { environmentInProse } from '../state/types.js';
import { healsField } from './classify.js';

/** How the service's side of a field reads where it holds no value: unset, or not known (`liveUnknown`): the plan's "cannot be read back". */
export function serviceSideAbsent(resource: DriftedResource, field: DriftedField): string {
  return liveUnknown(resource, field) ? '(cannot be read back)' : UNSET_VALUE;
}

/** What a field's line diff leaves unsaid in its heading: that the service's side holds no value (`absent`, as `serviceSideAbsent` says it; its lines are all the manifests'). */
export function diffSides(view: FieldView, absent = UNSET_VALUE): string {
  return view.marker === '+' ? ` ${absent} on the service` : '';
}

/** How many addresses a note or a one-line summary names before counting the rest. */
const ADDRESSES_SHOWN = 5;

const CLASS_LABEL: Record<DriftClass, string> = {
  outside: 'changed outside voxform',
  pending: 'in git, not applied yet',
  both: 'changed outside voxform and in git',
  unlabelled: 'not labelled (last applied under another API key)',
  environment: "changed by another environment's apply",
  unrecorded: 'differs, no apply recorded in this state',
};

/**
 * How a resource's or field's class reads: `changed by staging's apply` where the environment is
 * known. `name`: how an environment's name is written (it comes from the state: escaped in Markdown).
 */
export function classLabel(item: { class: DriftClass; environment?: string | undefined }, name: (environment: string) => string = (environment) => environment): string {
  if (item.class !== 'environment' || item.environment === undefined) return CLASS_LABEL[item.class];
  return `changed by ${environmentInProse(item.environment, name)}'s apply`;
}

/**
 * How a resource's class reads, with what happened to an agent, number or knowledge file the service
 * lost. Of a knowledge file only that no agent lists it: the service cannot list files, so one
 * deleted there and one only detached from its agents look the same.
 */
export function resourceLabel(resource: DriftedResource, name?: (environment: string) => string): string {
  if (!resource.gone) return classLabel(resource, name);
  return `${classLabel(resource, name)} (${resource.kind === 'knowledge' ? 'no agent lists it any more' : 'gone from the service'})`;
}

/** `1 changed outside voxform, 0 in git not applied yet, 0 both (5 resources checked)`; resources not labelled are counted when there are some. */
export function countsLine(report: DriftReport): string {
  const s = report.summary;
  const some = (count: number, words: string) => (count > 0 ? `, ${formatCount(count)} ${words}` : '');
  const rare = `${some(s.unlabelled, 'not labelled')}${some(s.environment, "changed by another environment's apply")}${some(s.unrecorded, 'with no apply recorded in this state')}`;
  return `${formatCount(s.outside)} changed outside voxform, ${formatCount(s.pending)} in git not applied yet, ${formatCount(s.both)} both${rare} (${checked(report)})`;
}

/**
 * What the service was found to match: the manifests, and the last apply when the state records one.
 * `code`: how a place or name from the state is written (a code span in Markdown).
 */
export function matchesLine(report: DriftReport, where: string, code: (text: string) => string = (text) => text, applyCommand = 'voxform apply'): string {
  const dropped = report.noLongerManaged ?? [];
  // What the last apply recorded beyond the manifests was not compared: the service is not said to match it.
  if (dropped.length > 0) {
    const them = dropped.length === 1 ? 'it' : 'them';
    return (
      `the service (${where}) matches the manifests (${checked(report)}). The last apply also recorded ${plural(dropped.length, 'resource')} the manifests no longer name, not compared ` +
      `(voxform leaves ${them} as ${dropped.length === 1 ? 'it is' : 'they are'} on the service; \`voxform plan\` lists ${them}): ${someOf(dropped.map(code), ADDRESSES_SHOWN)}.`
    );
  }
  if (!report.noApplyRecorded) return `the service (${where}) matches the manifests and the last apply (${checked(report)}).`;
  // A state that lost the workspace: an apply is refused (state_missing), so the way on is to restore it.
  const lost = report.missingState;
  if (lost) return `the service (${where}) matches the manifests (${checked(report)}). ${missingStateWarning(lost, report.workspace, 'Without it voxform cannot tell what it applied, so the service was compared with the manifests alone.', code)}`;
  return `the service (${where}) matches the manifests (${checked(report)}). ${noApplyLead(report, code)}, so it was compared with the manifests alone. ${noApplyAdvice(applyCommand)}`;
}

/** That the state holds no apply of this workspace; `code` as for `matchesLine`. */
function noApplyLead(report: DriftReport, code: (text: string) => string): string {
  return `No apply of workspace ${code(report.workspace)} is recorded in this state (${code(report.noApplyRecorded?.state ?? '')})`;
}

/** `applyCommand`: the `voxform apply` line with this run's options (`--env`, `-f`, `--state`), as written where the note goes. */
function noApplyAdvice(applyCommand: string): string {
  return `If the project was applied from another folder or with another state, run from that folder or name its state with --state (or VOXFORM_STATE); otherwise \`${applyCommand}\` records one.`;
}

/**
 * What a difference another environment's apply made means, and how to settle it; undefined when
 * there is none. `takeOver`: the commands (built by the CLI, with this run's options) that move the
 * resources to this environment on purpose; drift itself takes no `--take-over`.
 */
export function environmentNote(report: DriftReport, takeOver: TakeOverCommands | undefined, name: (address: string) => string = (address) => address): string | undefined {
  const taken = report.resources.filter((r) => r.fields.some((f) => f.class === 'environment'));
  if (taken.length === 0) return undefined;
  return (
    `Changed by another environment's apply: ${someOf(taken.map((r) => name(r.address)), ADDRESSES_SHOWN)}. A number, campaign, credential or agent named by one id is one per account: ` +
    `until the manifests of this environment set what that apply set, its plan and apply are refused there (shared_resource_conflict). To move it to this environment on purpose, ${takeOverHow(taken.map((r) => r.address), takeOver)}.`
  );
}

/**
 * The commands that take `addresses` over: with every address when the note names them all; else
 * with one `--take-over ADDRESS` to repeat, as a command of thousands of addresses is no line to paste.
 */
function takeOverHow(addresses: readonly string[], takeOver: TakeOverCommands | undefined): string {
  if (!takeOver) return 'plan and apply with --take-over ADDRESS';
  const named = addresses.length <= ADDRESSES_SHOWN;
  const { plan, apply } = takeOver(named ? addresses : ['ADDRESS']);
  return `review \`${plan}\`, then run \`${apply}\`${named ? '' : ', with one --take-over for each address (`--format json` lists every one)'}`;
}

/** `voxform plan … --take-over ADDRESS…` and `voxform apply … --take-over ADDRESS…`, as the user would paste them. */
export type TakeOverCommands = (addresses: readonly string[]) => { plan: string; apply: string };

/**
 * The agents the service lost since voxform applied them, and why `--heal` cannot put them back (the
 * service cannot create agents); undefined when there is none. `name`: how an address is written;
 * `applyCommand`: the `voxform apply` line with this run's options, as written where the note goes.
 */
export function goneAgentsNote(report: DriftReport, name: (address: string) => string = (address) => address, applyCommand = 'voxform apply'): string | undefined {
  const gone = report.resources.filter((r) => r.kind === 'agent' && r.gone);
  if (gone.length === 0) return undefined;
  const one = gone.length === 1;
  return (
    `Gone from the service: ${someOf(gone.map((r) => name(r.address)), ADDRESSES_SHOWN)}. voxform applied ${one ? 'it' : 'them'} there, and the service no longer has ${one ? 'it' : 'them'}; ` +
    `it cannot create agents, so \`--heal\` cannot put ${one ? 'it' : 'them'} back: create ${one ? 'it' : 'them'} again in the dashboard, put ${one ? 'its new id' : 'their new ids'} in the manifests, then run \`${applyCommand}\`.`
  );
}

/** Why some differences carry no class, and when they will again; undefined when every one has its class. `name`: how an address is written. */
export function unlabelledNote(report: DriftReport, name: (address: string) => string = (address) => address): string | undefined {
  const unlabelled = report.resources.filter((r) => r.fields.some((f) => f.class === 'unlabelled'));
  if (unlabelled.length === 0) return undefined;
  return (
    `Not labelled: ${someOf(unlabelled.map((r) => name(r.address)), ADDRESSES_SHOWN)}. What voxform last applied there was recorded under another API key ` +
    '(rotated since?), so it cannot be compared: the differences are shown, not where they came from. The next `voxform apply` records them under this key and drift labels them again.'
  );
}

/**
 * What the state says every difference of the report is worth, opening each rendering: that it lost
 * the workspace though its ledger records applies of it, what that does to the report and why to
 * restore it before an apply; else that it holds no apply of it, so which side of a difference moved
 * is not known; undefined when neither.
 * `code`: how a place, name or time from the state and its ledger is written; `applyCommand`: as for `goneAgentsNote`.
 */
export function stateNote(report: DriftReport, code: (text: string) => string = (text) => text, applyCommand = 'voxform apply'): string | undefined {
  if (report.missingState) {
    const consequence = 'Without it voxform cannot tell what it applied, so no difference can be told as in git or changed outside voxform, and knowledge files, credentials and campaigns already on the service count as never applied.';
    return missingStateWarning(report.missingState, report.workspace, consequence, code);
  }
  if (!report.noApplyRecorded || report.summary.unrecorded === 0) return undefined;
  return `${noApplyLead(report, code)}, so where a difference came from is not known: in git and not applied yet, or changed outside voxform since an apply this state does not hold. ${noApplyAdvice(applyCommand)}`;
}

/**
 * The places whose manifests' value reads a variable not set in this run: not compared, never
 * drift, and left as the service holds them by `--heal`; undefined when every place was compared.
 * `name`: how an address with its field path is written.
 */
export function notComparedNote(report: DriftReport, name: (place: string) => string = (place) => place): string | undefined {
  const places = report.notCompared ?? [];
  if (places.length === 0) return undefined;
  const one = places.length === 1;
  const variables = [...new Set(places.flatMap((place) => place.variables))].sort();
  // A place that does not record its variables (a credential's key) leaves the names to the operator.
  const named = places.every((place) => place.variables.length > 0) ? variables.join(', ') : 'the variables';
  const listed = someOf(places.map((place) => `${name(`${place.address} ${place.field.path}`)}${place.variables.length > 0 ? ` (${place.variables.join(', ')})` : ''}`), ADDRESSES_SHOWN);
  return (
    `Not compared, as a variable ${one ? 'it reads' : 'they read'} is not set: ${listed}. ` +
    `${one ? 'Its value' : 'Their values'} in the manifests cannot be known without ${one ? 'the variable' : 'their variables'}, so ${one ? 'it is' : 'they are'} not reported as differing, and \`--heal\` leaves the service's value there as it is. ` +
    `Set ${named} to compare ${one ? 'it' : 'them'}.`
  );
}

/**
 * How a field changed outside voxform at a place whose variable is not set reads (`valueNotShown`):
 * neither value, and what compares them. Undefined for any other field.
 */
export function valueNotShownNote(field: DriftedField): string | undefined {
  const variables = field.valueNotShown;
  if (variables === undefined) return undefined;
  return `value not shown; set ${variables.length > 0 ? variables.join(', ') : 'the variables it reads'} to compare the manifests with it`;
}

/** How many field paths a heal note names on each side before it counts the rest. */
const FIELDS_SHOWN = 5;

/**
 * What `--heal` does to a resource, after `--heal` (`puts it back`); undefined when it heals nothing
 * of it. When it leaves some of its fields as the service holds them (another environment's apply,
 * in git not applied yet, not labelled, knowledge files), names those it puts back and those it
 * leaves; of one it cannot put back in this run (`healNeeds`), the variables it needs. `name`: how a
 * field path is written.
 */
export function healNote(resource: DriftedResource, name: (path: string) => string = (path) => path): string | undefined {
  if (resource.healNeeds) return `needs ${healNeedsWords(resource.healNeeds)} set to put it back`;
  if (!resource.healable) return undefined;
  const left = resource.fields.filter((field) => !healsField(field));
  if (left.length === 0) return 'puts it back';
  const paths = (fields: DriftedResource['fields']) => someOf(fields.map((field) => name(field.field.path)), FIELDS_SHOWN);
  return `puts back ${paths(resource.fields.filter(healsField))}; leaves ${paths(left)} as the service holds ${left.length === 1 ? 'it' : 'them'}`;
}

/** The variables a heal needs (`DriftedResource.healNeeds`), as a note names them. */
function healNeedsWords(needs: readonly string[]): string {
  return needs.length > 0 ? needs.join(', ') : 'the variables it reads';
}

/**
 * What a heal that ran did to a healable resource, after `--heal`; of one it left for want of a
 * variable, what it needs; undefined for one it was not to heal.
 */
export function healedNote(resource: DriftedResource, outcome: HealOutcome): string | undefined {
  if (resource.healNeeds) return healNote(resource);
  if (!resource.healable) return undefined;
  return outcome.healed.includes(resource.address) ? 'put it back' : 'did not put it back';
}

/** `Heal complete: 1 healed, 0 failed`, or `Heal finished with errors: …`. */
export function healCounts(outcome: HealOutcome): string {
  return `Heal ${outcome.failed.length > 0 ? 'finished with errors' : 'complete'}: ${formatCount(outcome.healed.length)} healed, ${formatCount(outcome.failed.length)} failed`;
}

/**
 * Whether a heal leaves `field` as the manifests have it: a field only changed outside voxform of an
 * agent the heal puts back. One changed in git too (`both`) gets what voxform last applied, which
 * the manifests have since changed: it still differs, in git, not applied yet.
 */
export function settledByHeal(resource: DriftedResource, field: DriftedField): boolean {
  return resource.healable && field.class === 'outside' && healsField(field);
}

/**
 * What still differs after a heal that completed, or a `--heal` that found nothing to put back
 * (`lead`: `Still differs`), and what deals with it; undefined when nothing does. `applyCommand`: the
 * `voxform apply` line with this run's options. An agent gone from the service and a value another
 * environment's apply set are not apply's: the notes above say what to do.
 */
export function leftAfterHealNote(report: DriftReport, applyCommand: string, lead = 'Still differs after the heal'): string | undefined {
  const left: string[] = [];
  const needs = new Set<string>();
  let apply = false;
  let elsewhere = false;
  for (const resource of report.resources) {
    if (resource.fields.length === 0) {
      // An agent gone from the service: no field left, only the resource.
      left.push(`${resource.address} (gone from the service)`);
      elsewhere = true;
      continue;
    }
    for (const field of resource.fields) {
      if (settledByHeal(resource, field)) continue;
      if (resource.healNeeds && healsField(field)) {
        // Left for want of a variable: the heal puts it back once the variable is set.
        left.push(`${resource.address} ${field.field.path} (${classLabel(field)}: --heal needs ${healNeedsWords(resource.healNeeds)} set to put it back)`);
        for (const variable of resource.healNeeds) needs.add(variable);
        if (resource.healNeeds.length === 0) needs.add('the variables it reads');
        continue;
      }
      left.push(`${resource.address} ${field.field.path} (${field.class === 'both' && resource.healable ? CLASS_LABEL.pending : classLabel(field)})`);
      if (field.class === 'environment') elsewhere = true;
      else apply = true;
    }
  }
  if (left.length === 0) return undefined;
  const how = [...(needs.size > 0 ? [`set ${[...needs].join(', ')} and run --heal again`] : []), ...(apply ? [`run \`${applyCommand}\` to make the service match the manifests`] : []), ...(elsewhere ? ['the notes above say what to do about the rest'] : [])];
  return `${lead}: ${someOf(left, FIELDS_SHOWN, '; ')}. To settle it, ${how.join('; ')}.`;
}

/** `7 resources checked`. */
export function checked(report: DriftReport): string {
  return `${plural(report.summary.checked, 'resource')} checked`;
}

/** The resources that differ, one short line: `drift: 1 changed outside voxform, … — agent.front-desk`. */
export function oneLine(report: DriftReport): string {
  const places = report.notCompared?.length ?? 0;
  const notCompared = places > 0 ? `; ${plural(places, 'place')} not compared (a variable is not set)` : '';
  const dropped = report.noLongerManaged?.length ?? 0;
  const notNamed = dropped > 0 ? `; ${plural(dropped, 'resource')} the last apply recorded no longer in the manifests, not compared` : '';
  if (report.resources.length === 0) return `no drift (${checked(report)})${notCompared}${notNamed}`;
  return `drift: ${countsLine(report)}: ${someOf(report.resources.map((r) => r.address), ADDRESSES_SHOWN)}${notCompared}${notNamed}`;
}
