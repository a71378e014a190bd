/**
 * What a manifest may read from the environment, and where. Manifests come from whoever opens a pull
 * request; the environment is the operator's (CI secrets, cloud keys), so:
 * - `VOXFORM_*` variables are never readable: voxform's own settings, the service key among them;
 * - with `VOXFORM_ENV_ALLOW` (names and `PREFIX_*` patterns) only those are readable; empty allows none;
 * - ids, references and file paths (and `base_url`, `region`) never come from the environment: the
 *   manifest alone shows where requests go and which files are read.
 */
import { VoxformError } from '../errors.js';
import { FieldPattern, type PathSegment } from '../util/field-path.js';

type Env = Readonly<Record<string, string | undefined>>;

export const ENV_ALLOW_VARIABLE = 'VOXFORM_ENV_ALLOW';
/** Variables of this prefix are voxform's own configuration: a manifest never reads them. */
const RESERVED_PREFIX = 'VOXFORM_';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `allowed`, or why not: `reserved` (a `VOXFORM_*` variable) or `not_allowed` (outside `VOXFORM_ENV_ALLOW`). */
type EnvVerdict = 'allowed' | 'reserved' | 'not_allowed';

export interface EnvPolicy {
  check(name: string): EnvVerdict;
}

/** The policy an environment sets (through `VOXFORM_ENV_ALLOW`); throws `env_allow_invalid` on a malformed list. */
export function envPolicyOf(env: Env): EnvPolicy {
  const allowList = env[ENV_ALLOW_VARIABLE];
  const allow = allowList === undefined ? undefined : parseAllowList(allowList);
  return {
    check(name) {
      // In any letter case: Windows finds a variable whatever the case of its name (`voxform_api_key` is the key there).
      if (name.toUpperCase().startsWith(RESERVED_PREFIX)) return 'reserved';
      if (!allow) return 'allowed';
      return allow.names.has(name) || allow.prefixes.some((prefix) => name.startsWith(prefix)) ? 'allowed' : 'not_allowed';
    },
  };
}

function parseAllowList(raw: string): { names: Set<string>; prefixes: string[] } {
  const names = new Set<string>();
  const prefixes: string[] = [];
  for (const entry of raw.split(',')) {
    const written = entry.trim();
    if (written === '') continue;
    const prefix = written.endsWith('*') ? written.slice(0, -1) : undefined;
    if (prefix !== undefined && NAME.test(prefix)) prefixes.push(prefix);
    else if (prefix === undefined && NAME.test(written)) names.add(written);
    else {
      throw new VoxformError('env_allow_invalid', `${ENV_ALLOW_VARIABLE} holds "${written}", which is neither a variable name nor a PREFIX_* pattern.`, {
        hint: `Write names and patterns, comma-separated, such as ${ENV_ALLOW_VARIABLE}=HOOK_TOKEN,TWILIO_*; to allow every variable, unset ${ENV_ALLOW_VARIABLE}.`,
      });
    }
  }
  return { names, prefixes };
}

/**
 * The sentence for a reference the policy refuses; names the variable, never a value. In a history
 * record (`from: 'record'`, read by a rollback or a heal) no reference can be removed: the record is
 * never changed, and the way left is the operator's.
 */
export function refusalMessage(name: string, verdict: Exclude<EnvVerdict, 'allowed'>, from: 'manifest' | 'record' = 'manifest'): string {
  const reader = from === 'manifest' ? 'a manifest' : 'a recorded configuration';
  if (verdict === 'reserved') {
    const refused = `\${env:${name}} is refused: ${RESERVED_PREFIX}* variables are voxform's own settings (the service key among them) and ${reader} never reads them`;
    return from === 'manifest' ? `${refused}; remove the reference` : `${refused}: no apply records one, so this record was changed by hand; restore the agent from another record`;
  }
  const allow = `(as the operator) add ${name} to ${ENV_ALLOW_VARIABLE}`;
  const fix = from === 'manifest' ? `remove the reference, or ${allow}` : `${allow} where this command runs`;
  return `\${env:${name}} is refused: ${name} is not in ${ENV_ALLOW_VARIABLE}, so the ${from === 'manifest' ? 'manifest' : 'recorded configuration'} may not read it; ${fix}`;
}

/**
 * Where `${env:…}` is refused, by schema definition: field pattern (`[]` any index, `*` any key) →
 * what the place is called. A list of references is refused as a list or as a mapping alike.
 */
const FORBIDDEN_PLACES: Record<string, Record<string, string>> = {
  AgentSpec: { id: "an agent's id", 'knowledge[]': 'a reference to a knowledge file', 'knowledge.*': 'a reference to a knowledge file', 'config.prompt.file': 'a file path' },
  PhoneSpec: { agent: 'a reference to an agent', 'agent.id': "an agent's id" },
  CampaignSpec: { id: "a campaign's id", caller: 'a reference to a phone' },
  KnowledgeSpec: { file: 'a file path' },
  // A provider names its credential, and no two may share one: a check of a filled-in value would compare it with the pull request's guesses.
  CredentialSpec: { provider: "a credential's provider" },
};

type PlaceLookup = (path: readonly PathSegment[]) => string | undefined;
const lookups = new Map<string, PlaceLookup>();

/** Where `${env:…}` is refused inside an entry of `definition`: the place's name, or undefined where it is allowed. */
export function forbiddenEnvPlaces(definition: string): PlaceLookup {
  let lookup = lookups.get(definition);
  if (!lookup) {
    const places = Object.entries(FORBIDDEN_PLACES[definition] ?? {}).map(([pattern, what]) => ({ pattern: FieldPattern.parse(pattern), what }));
    lookup = (path) => places.find(({ pattern }) => pattern.matches(path))?.what;
    lookups.set(definition, lookup);
  }
  return lookup;
}

/** The fix for a reference in a forbidden place. */
export const FORBIDDEN_PLACE_FIX =
  'write the value itself (per-environment values belong in environments:), so that the manifest alone shows where requests go and which files are read';
