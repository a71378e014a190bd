/**
 * The agent config `voxform test --against desired` sends, with its secrets withheld. `test` runs
 * on pull requests before review, and the config it sends names where the service (or the embedded
 * emulator) sends webhooks and tool calls — carrying the headers, and in the end-of-call payload the
 * whole config. So, unless the operator passes `--with-secrets`, every secret in it is replaced by
 * `WITHHELD` before it leaves voxform (docs/security.md §5):
 *   - every value at a place the schema marks secret (webhook and tool headers, app credentials),
 *     whether the manifest or the live agent put it there;
 *   - every `${env:…}` reference of the manifest: a value written as `Bearer ${env:TOKEN}` is sent
 *     as `Bearer withheld-by-voxform` (the text around the reference kept, so a URL stays a URL);
 *   - the user info and query values of every URL, where tokens ride (url-tokens.ts, as every command treats them).
 * Every policy rule and the plan's prompt token counts read every resource withheld the same way
 * (`withholdEntrySecrets`, through policy/withheld-state.ts); what output measures of a live text
 * (a prompt's token count before a change) reads it through `withheldLiveText`.
 */
import { literalParts } from './env-reference.js';
import type { SecretRegistry } from './redact.js';
import { configSecretSet, secretPatternSet } from './schema-paths.js';
import { replaceUrlTokens } from './url-tokens.js';
import { formatDotted, type PatternCursor, type PatternSet } from '../util/field-path.js';
import { isPlainObject, setOwn } from '../util/json-object.js';

/** What a secret becomes in the config `test` sends: valid in a header, a URL and any text field. */
export const WITHHELD = 'withheld-by-voxform';

/**
 * The agent's secret places, as withholding needs them (a desired agent has both): the dotted paths
 * under `config` whose values are secret, and each `${env:…}` value's text as the manifest wrote it.
 */
export interface SecretPlaces {
  readonly sensitivePaths: readonly string[];
  readonly envReferences?: Record<string, string> | undefined;
}

/** A copy of `config` with every secret replaced by `WITHHELD` (see above), sharing what holds none; `config` is left as it is. */
export function withholdSecrets<T extends object>(config: T, agent: SecretPlaces): T {
  return withheldCopy(config, configSecretSet(agent.sensitivePaths), agent.envReferences ?? {}, ['config']);
}

/**
 * A copy of a resource entry (`{ id, name, config }` of an agent, a campaign's fields) withheld the
 * same way, its places dotted from the entry: what a team rule of the manifest reads (docs/policy.md),
 * so no rule of a pull request's can test a secret's characters.
 */
export function withholdEntrySecrets<T extends object>(entry: T, places: SecretPlaces, copied: CopyNote = () => undefined, textWithheld = withholdUrlTokens): T {
  return withheldCopy(entry, secretPatternSet(places.sensitivePaths), places.envReferences ?? {}, [], copied, textWithheld);
}

/** Told of each object and list copied, with the one it copies: the policy keeps the source positions on the copy (a finding names its line). */
type CopyNote = (original: object, copy: object) => void;

/** `textWithheld`: a text outside the secret places as withheld (`withholdUrlTokens`, or the same remembered per text). */
function withheldCopy<T extends object>(value: T, secrets: PatternSet, references: Record<string, string>, prefix: Array<string | number>, copied: CopyNote = () => undefined, textWithheld = withholdUrlTokens): T {
  const noted = <C extends object>(original: object, copy: C): C => (copied(original, copy), copy);
  // The place walked, from the config's root: one list, each step pushed on the way in and popped on the way out.
  const path = [...prefix];
  const under = (step: string | number, child: unknown, at: PatternCursor): unknown => {
    path.push(step);
    const out = walk(child, at.step(step));
    path.pop();
    return out;
  };
  const walk = (current: unknown, at: PatternCursor): unknown => {
    if (path.length > prefix.length && at.covered) return withheldValue(current, references[formatDotted(path)], noted);
    if (typeof current === 'string') return textWithheld(current);
    // A list or object holding no secret is its own copy: only what is withheld is new, and an object is copied only once it holds some.
    if (Array.isArray(current)) {
      const items = current.map((item, index) => under(index, item, at));
      return items.every((item, index) => item === current[index]) ? current : noted(current, items);
    }
    if (!isPlainObject(current)) return current;
    let out: Record<string, unknown> | undefined;
    for (const [key, child] of Object.entries(current)) {
      const walked = under(key, child, at);
      if (walked !== child) setOwn((out ??= { ...current }), key, walked);
    }
    return out ? noted(current, out) : current;
  };
  return walk(value, secrets.start()) as T;
}

/**
 * A secret place's value: the manifest's written text with each reference withheld when it wrote one
 * there (`$${env:…}` is literal text, kept), else every text in it withheld (a header map keeps its names).
 */
function withheldValue(value: unknown, written: string | undefined, noted: <C extends object>(original: object, copy: C) => C): unknown {
  if (typeof value === 'string') {
    if (written === undefined) return value === '' ? value : WITHHELD;
    return withholdUrlTokens(literalParts(written).join(WITHHELD));
  }
  if (Array.isArray(value)) return noted(value, value.map((item) => withheldValue(item, undefined, noted)));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) setOwn(out, key, withheldValue(child, undefined, noted));
  return noted(value, out);
}

/** `https://user:pass@h/hook?token=abc&x` → `https://withheld-by-voxform@h/hook?token=withheld-by-voxform&x`; other text unchanged. */
export function withholdUrlTokens(text: string): string {
  return replaceUrlTokens(text, WITHHELD);
}

/**
 * A text read from the service as output may measure it (count its tokens, its size): every secret
 * the run knows (`SecretRegistry`: the values the manifests read, those the state's variables hold,
 * each operator value a live value was found to hold, headers, keys) and every URL token replaced by
 * `WITHHELD`, as the desired side's withheld view writes a secret. An earlier apply may have put a
 * value from `${env:…}` into the live text, and a count of it would print the value's length; so the
 * count never depends on a secret's length, and a text unchanged since its apply counts as its
 * desired side. A value shorter than MIN_SEARCHABLE_SECRET is not searched for, as in all output.
 */
export function withheldLiveText(text: string, secrets: Pick<SecretRegistry, 'replaced'>): string {
  return withholdUrlTokens(secrets.replaced(text, WITHHELD));
}
