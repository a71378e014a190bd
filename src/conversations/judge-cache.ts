/**
 * The judge's verdicts, cached by model, rubric and text judged (`.voxform/cache/judge/`), so a
 * test whose transcript did not change costs no judge call. An entry expires (14 days by default);
 * `--no-cache` neither reads nor writes it. Only live runs use it: recording notes what the judge
 * answers, and replaying asks the recording.
 *
 * Each run of a test has its own entries (keyed by file, test, target and run, as a recording's
 * exchanges are): a judge is not deterministic, and one verdict shared by a test's repeats would
 * make them all pass or all fail on the next run — whichever repeat wrote last — so pass^k, pass@k
 * and flaky would mean nothing, and a run would not reproduce the one before it.
 *
 * The folder is in the checkout, where a pull request could commit entries: with a judge key, an
 * entry is named by an HMAC under it (src/util/hash.ts `fingerprintKey`), so no one without the key
 * can name the entry a verdict would be looked up under, and sealed by another over its name and
 * what it holds, so no one without the key can write a verdict into an entry the cache has (turn a
 * fail into a pass, or revive an expired one): an entry whose seal does not hold is a miss. Entries are read as kept files
 * (readKeptJson: size and JSON budgets); one that is unreadable, malformed or expired is a miss.
 * Writing is best effort: a cache that cannot be written costs a judge call next time, nothing else.
 */
import path from 'node:path';
import { makeKeptFolder, readKeptJson, writeKeptFile } from '../project-files/kept-files.js';
import { isVoxformError } from '../errors.js';
import { canonicalJson, fingerprintKey, hashValue, keyedHash } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';
import type { Redact } from '../secrets/redact.js';
import type { JudgeQuestion, Verdict } from './judge.js';
import type { RunIdentity } from './recordings/exchange-key.js';
import { requireOptions } from '../util/required-options.js';
import { timingSafeEqual } from 'node:crypto';

/** Which run of which test a verdict was given in. */
type JudgedRun = Pick<RunIdentity, 'file' | 'test' | 'target' | 'run'>;

/** The cache as one run of a test reads and writes it (`JudgeCache.forRun`). */
export interface RunJudgeCache {
  get(question: JudgeQuestion): Promise<Verdict | undefined>;
  put(question: JudgeQuestion, verdict: Verdict): Promise<void>;
}

/** Where, under the project's folder. */
export const JUDGE_CACHE_FOLDER = path.join('.voxform', 'cache', 'judge');

/** How long a verdict is reused: a model behind the same name changes over weeks. */
const JUDGE_CACHE_MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;

/** One entry: a verdict and a reason of at most 1,000 characters. */
const ENTRY_LIMITS = { maxBytes: 16 * 1024, maxValues: 16, maxDepth: 2 };

interface JudgeCacheOptions {
  /** The cache folder (absolute). */
  folder: string;
  /** The judge's model name: a verdict is reused only from the same model. */
  modelName: string;
  /** The judge's API key, when it has one: entries are named by an HMAC under it. */
  apiKey: string | undefined;
  /** Hides secrets in what is written (a reason may quote one). */
  redact: Redact;
  /** Injected in tests. */
  now?: () => number;
}

export class JudgeCache {
  readonly #options: JudgeCacheOptions;
  readonly #hmacKey: string | undefined;

  constructor(options: JudgeCacheOptions) {
    requireOptions('new JudgeCache', options, { folder: 'text', modelName: 'text', redact: 'function' });
    this.#options = options;
    this.#hmacKey = options.apiKey ? fingerprintKey(options.apiKey) : undefined;
  }

  #file(question: JudgeQuestion, judged: JudgedRun): string {
    const { file, test, target, run } = judged;
    const subject = { model: this.#options.modelName, rubric: question.rubric, what: question.what, text: question.subject, file, test, target, run };
    const name = this.#hmacKey ? keyedHash(this.#hmacKey, subject) : hashValue(subject);
    return path.join(this.#options.folder, `${name.slice(name.indexOf(':') + 1)}.json`);
  }

  /** The seal of an entry's content at `file` under the judge key; none without a key (nothing to seal with). */
  #seal(file: string, content: { stored_at: string; verdict: string; reason: string }): string | undefined {
    return this.#hmacKey === undefined ? undefined : keyedHash(this.#hmacKey, { entry: path.basename(file), ...content });
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** The cache of one run: its verdicts are its own. */
  forRun(judged: JudgedRun): RunJudgeCache {
    return { get: (question) => this.get(question, judged), put: (question, verdict) => this.put(question, judged, verdict) };
  }

  async get(question: JudgeQuestion, judged: JudgedRun): Promise<Verdict | undefined> {
    // A cache voxform may not read (its folder a link: kept_folder_linked) is a miss, as an unreadable entry is.
    const file = this.#file(question, judged);
    const kept = await readKeptJson(file, ENTRY_LIMITS).catch((error: unknown) => {
      if (isVoxformError(error)) return { found: false as const };
      throw error;
    });
    if (!kept.found || !kept.ok || !isPlainObject(kept.value)) return undefined;
    const { stored_at: storedAt, verdict, reason, seal } = kept.value;
    if (typeof storedAt !== 'string' || (verdict !== 'pass' && verdict !== 'fail') || typeof reason !== 'string') return undefined;
    const expected = this.#seal(file, { stored_at: storedAt, verdict, reason });
    if (expected !== undefined && !(typeof seal === 'string' && sameText(seal, expected))) return undefined;
    const age = this.#now() - Date.parse(storedAt);
    if (!(age >= 0 && age <= JUDGE_CACHE_MAX_AGE_MS)) return undefined;
    return { pass: verdict === 'pass', reason };
  }

  async put(question: JudgeQuestion, judged: JudgedRun, verdict: Verdict): Promise<void> {
    const file = this.#file(question, judged);
    // The reason as written (a reason may quote a secret): the seal is over what the file holds.
    const content = { stored_at: new Date(this.#now()).toISOString(), verdict: verdict.pass ? 'pass' : 'fail', reason: this.#options.redact(verdict.reason) };
    const entry = { format_version: 2, ...content, seal: this.#seal(file, content) };
    try {
      await makeKeptFolder(this.#options.folder);
      await writeKeptFile(file, this.#options.redact(`${JSON.stringify(entry, null, 2)}\n`));
    } catch {
      // Best effort (see above): the verdict stands, and the next run asks the judge again.
    }
  }
}

/**
 * One verdict per question in a run, in every mode: a check that asks what an earlier check of the
 * run asked (the same rubric on the same text: two checks alike, an argument judged in two calls)
 * reads the verdict it got, from memory, before `cache`. A judge varies, so asked twice it could
 * pass one check and fail the other; and a recording keys an answer by its question, so it holds
 * one for both, and a replay would give both checks the same answer where the run recorded two.
 */
export function oneVerdictPerQuestion(cache: RunJudgeCache | undefined): RunJudgeCache {
  const verdicts = new Map<string, Verdict>();
  const keyOf = (question: JudgeQuestion) => canonicalJson([question.rubric, question.what, question.subject]);
  return {
    async get(question) {
      const key = keyOf(question);
      const verdict = verdicts.get(key) ?? (await cache?.get(question));
      if (verdict) verdicts.set(key, verdict);
      return verdict;
    },
    async put(question, verdict) {
      verdicts.set(keyOf(question), verdict);
      await cache?.put(question, verdict);
    },
  };
}

/** Whether two seals are the same, taking as long whichever character differs. */
function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
