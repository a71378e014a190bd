/**
 * The desired state as policy reads it: every rule (built-in, an operator's pack, the team's) and the
 * plan's prompt token counts see each resource with its secrets withheld as `voxform test` sends it
 * (src/secrets/withhold.ts): a value filled from `${env:…}` as the text written around the reference
 * with `withheld-by-voxform` in its place, a value at a place the schema marks secret as
 * `withheld-by-voxform` whole. The manifest around a reference is the pull request's, and findings
 * and counts are printed on it: a rule or a count that read the value would tell the author about
 * it (a card-number rule is one Luhn bit, a token count its length; docs/security.md §11). The live
 * side of a count is withheld by value instead (`withheldLiveText`, secrets/withhold.ts).
 */
import type { DesiredAgent, DesiredCampaign, DesiredCredential, DesiredKnowledgeFile, DesiredPhone, DesiredState } from '../manifest/types.js';
import { shallowCopy, shareSpans } from '../manifest/positions.js';
import { agentSensitivePatterns } from '../secrets/schema-paths.js';
import { WITHHELD, withholdEntrySecrets, withholdUrlTokens, type SecretPlaces } from '../secrets/withhold.js';
import { perDistinctText } from './distinct-texts.js';

/** The state every policy rule reads; `desired` is left as it is. */
export function withheldState(desired: DesiredState): DesiredState {
  const withheld = withholder();
  return {
    ...desired,
    agents: mapValues(desired.agents, (agent) => withheldAgent(agent, withheld)),
    phones: mapValues(desired.phones, (phone) => withheld(phone, { import: phone.import }, phone)),
    campaigns: mapValues(desired.campaigns, (c) => withheld(c, { name: c.name, caller: c.caller, include_metadata_in_prompt: c.include_metadata_in_prompt }, c)),
    knowledge: mapValues(desired.knowledge, (k) => withheld(k, { name: k.name, description: k.description }, k)),
    credentials: mapValues(desired.credentials, (credential): DesiredCredential => ({ ...credential, apiKey: WITHHELD })),
    secrets: [],
  };
}

/** Agents as `withheldState` holds them, each made when asked: the plan's token counts read only the agents whose prompt changed. */
export function withheldAgents(): (agent: DesiredAgent) => DesiredAgent {
  const withheld = withholder();
  return (agent) => withheldAgent(agent, withheld);
}

type Withholder = <R extends DesiredAgent | DesiredPhone | DesiredCampaign | DesiredKnowledgeFile, F extends Partial<R>>(resource: R, fields: F, places: SecretPlaces) => R;

/**
 * A copy of a resource (its source positions kept) with `fields` withheld at `places`, dotted from the
 * resource. Once per distinct text (distinct-texts.ts): a text many resources share stays one string
 * in the view, and rules read it once.
 */
function withholder(): Withholder {
  const textWithheld = perDistinctText(withholdUrlTokens);
  return (resource, fields, places) => Object.assign(shallowCopy(resource) as typeof resource, withholdEntrySecrets(fields, places, shareSpans, textWithheld));
}

function withheldAgent(agent: DesiredAgent, withheld: Withholder): DesiredAgent {
  return withheld(agent, { name: agent.name, config: agent.config, knowledge: agent.knowledge }, { sensitivePaths: agentSensitivePatterns(agent), envReferences: agent.envReferences });
}

function mapValues<K, V>(map: ReadonlyMap<K, V>, copy: (value: V) => V): Map<K, V> {
  return new Map([...map].map(([key, value]) => [key, copy(value)]));
}
