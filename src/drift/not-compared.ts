/**
 * The places a drift check cannot compare: a `${env:…}` without a default whose variable is not set
 * where drift runs (a scheduled job holds no secrets). The manifests were loaded with such a value
 * withheld (`withholdUnsetEnv`), so their side of the place is not known: it is reported as not
 * compared, never as a difference, and a heal leaves the service's value there as it is.
 */
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import type { FieldChange, ResourceChange } from '../plan/types.js';
import { referencedNames } from '../secrets/env-reference.js';
import { WITHHELD } from '../secrets/withhold.js';
import { isDottedAtOrUnder } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';
import { isUnchanged } from '../plan/compare.js';
import type { TrustedSecrets } from '../secrets/trusted.js';

/** Whether the manifests' side of `field` holds a value withheld in place of an unset variable. */
function holdsWithheld(value: unknown): boolean {
  return typeof value === 'string' ? value.includes(WITHHELD) : value !== null && typeof value === 'object' && JSON.stringify(value).includes(WITHHELD);
}

/**
 * `after` with each withheld value replaced by what `before` holds at its place: what the manifests'
 * side would be were every unset variable's value the service's.
 */
function withLiveForWithheld(after: unknown, before: unknown): unknown {
  if (typeof after === 'string') return after.includes(WITHHELD) ? before : after;
  if (Array.isArray(after)) return after.map((item, index) => withLiveForWithheld(item, Array.isArray(before) ? before[index] : undefined));
  if (isPlainObject(after)) return Object.fromEntries(Object.entries(after).map(([key, value]) => [key, withLiveForWithheld(value, isPlainObject(before) && Object.hasOwn(before, key) ? before[key] : undefined)]));
  return after;
}

/**
 * `field` with the manifests' side read as `withLiveForWithheld` says: its difference is the one
 * outside its withheld values, which are taken to be what the service holds (they are not known).
 */
export function withheldAsLive(field: FieldChange): FieldChange {
  return { ...field, after: withLiveForWithheld(field.after, field.before) };
}

/**
 * Whether `field` differs whatever its withheld values are: outside them (a webhook re-pointed as a
 * plain URL, where the manifests give {url, headers} with a header not known). Such a field is a
 * difference, compared as any other; only one whose difference may lie in them alone is not compared.
 */
export function differsElsewhere(field: FieldChange): boolean {
  return !isUnchanged(withheldAsLive(field).after, field.before);
}

/**
 * For a drift check of `desired`: a function telling of a field the plan found differing the unset
 * variables its manifests' value reads (empty when the place does not say which: a credential's key),
 * or undefined when it reads none.
 */
export function notComparedFinder(desired: DesiredState): ((change: ResourceChange, field: FieldChange) => string[] | undefined) | undefined {
  const withheld = desired.withheldVariables ?? [];
  if (withheld.length === 0) return undefined;
  const agents = new Map([...desired.agents.values()].map((agent) => [agent.address, agent]));
  const credentials = new Map([...desired.credentials.values()].map((credential) => [credential.address, credential]));
  return (change, field) => {
    if (change.kind === 'credential') return holdsWithheld(credentials.get(change.address)?.apiKey) ? [] : undefined;
    if (!holdsWithheld(field.after)) return undefined;
    if (change.kind !== 'agent') return [];
    // An agent says where each reference is written: text that only looks withheld is compared as usual.
    const names = new Set(variablesReadAt(agents.get(change.address), field.path));
    const unset = withheld.filter((name) => names.has(name));
    return unset.length > 0 ? unset : undefined;
  };
}

/** The variables the references an agent's manifests write at or under `path` read (`${env:X:-d}` too), sorted. */
function variablesReadAt(agent: DesiredAgent | undefined, path: string): string[] {
  const references = Object.entries(agent?.envReferences ?? {}).filter(([at]) => isDottedAtOrUnder(at, path));
  return [...new Set(references.flatMap(([, written]) => referencedNames(written)))].sort();
}

/**
 * For a drift check: a function telling of an agent's field the variables the value the deploy ledger
 * recorded there reads (`${env:X:-d}` too), the value `--heal` would put back; empty when it reads
 * none. From the ledger's `${env:…}` places (`secrets`, noted as the check read the state); a run
 * without that evidence (a library caller passing no `secrets`) goes by the manifests' references.
 */
export function recordedVariablesFinder(desired: DesiredState, secrets: TrustedSecrets | undefined): (change: ResourceChange, field: FieldChange) => string[] {
  const agents = new Map([...desired.agents.values()].map((agent) => [agent.address, agent]));
  return (change, field) => {
    if (change.kind !== 'agent') return [];
    if (!secrets || change.id === undefined) return variablesReadAt(agents.get(change.address), field.path);
    const id = change.id;
    const read = field.path === 'name' ? secrets.ledgerNamesOf(id).flatMap(referencedNames) : secrets.ledgerPlaces(id).filter((place) => isDottedAtOrUnder(`config.${place}`, field.path)).flatMap((place) => secrets.ledgerVariablesAt(id, place));
    return [...new Set(read)].sort();
  };
}
