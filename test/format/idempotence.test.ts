/**
 * `voxform fmt` is idempotent and keeps the meaning (docs/fmt.md): fmt(fmt(x)) = fmt(x), and fmt(x)
 * loads to the same values as x (merge keys applied, as the loader reads them), for every manifest of the
 * repository (the example, the templates and what init makes of them, the YAML of README.md and
 * docs/, the fuzzer's fixtures) and for seeded generated ones: comments and blank lines at the ends
 * of blocks and between keys, sections out of order, several documents, empty ones (the layout
 * generator of test/fuzz/manifest-fuzzer.mjs), and the fuzzer's mutated manifests. A text fmt
 * refuses (not YAML, fmt_unsafe) is left out; the seed is in the test name, VOXFORM_FUZZ_SEED
 * repeats a run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatManifest } from '../../src/format/format-manifest.js';
import { isVoxformError } from '../../src/errors.js';
import { readTemplate, templateNames } from '../../src/templates/catalog.js';
import { resolveVariables } from '../../src/init/expand.js';
import { planScaffold, MANIFEST_FILE } from '../../src/init/scaffold.js';
import { generateCase, generateLayoutCase } from '../fuzz/manifest-fuzzer.mjs';
import { repoRoot } from '../helpers/cli.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';
import { loadedValues } from '../helpers/loaded-yaml.js';
import { SAMPLE_VALUES } from '../templates/fixtures.js';

const SEED = fuzzSeed(20_261_125);
const LAYOUT_CASES = 400;
const MUTATED_CASES = 300;

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

/** `text`, unless fmt refuses it; then `undefined`. */
function fmt(text: string): string | undefined {
  try {
    return formatManifest(text, 'x.yaml').text;
  } catch (error) {
    if (isVoxformError(error) && ['yaml_syntax', 'fmt_unsafe'].includes(error.code)) return undefined;
    throw error;
  }
}

/** Each text fmt formats, checked by `failure` against what fmt made of it: the failures, and how many were checked. */
async function formattedFailures(
  corpus: ReadonlyArray<readonly [string, string]>,
  failure: (text: string, once: string) => string | undefined | Promise<string | undefined>,
): Promise<{ checked: number; failures: string[] }> {
  let checked = 0;
  const failures: string[] = [];
  for (const [name, text] of corpus) {
    const once = fmt(text);
    if (once === undefined) continue;
    checked++;
    const found = await failure(text, once);
    if (found !== undefined) failures.push(`${name}:\n${JSON.stringify(text)}\n${found}`);
  }
  return { checked, failures };
}

/** The texts for which fmt(fmt(x)) differs from fmt(x), each with what the second run made. */
function notIdempotent(corpus: ReadonlyArray<readonly [string, string]>): Promise<{ checked: number; failures: string[] }> {
  return formattedFailures(corpus, (_text, once) => {
    const twice = formatManifest(once, 'x.yaml');
    return twice.changed ? `once:  ${JSON.stringify(once)}\ntwice: ${JSON.stringify(twice.text)}` : undefined;
  });
}

/** The texts the loader reads otherwise once formatted, each with what fmt made of it. */
function meaningChanged(corpus: ReadonlyArray<readonly [string, string]>): Promise<{ checked: number; failures: string[] }> {
  return formattedFailures(corpus, async (text, once) =>
    isDeepStrictEqual(await loadedValues(text), await loadedValues(once)) ? undefined : `formatted: ${JSON.stringify(once)}`,
  );
}

function layoutCases(): Array<[string, string]> {
  return Array.from({ length: LAYOUT_CASES }, (_, index) => {
    const { name, text } = generateLayoutCase(SEED, index);
    return [name, text];
  });
}

let mutated: ReadonlyArray<readonly [string, string]> | undefined;

/**
 * The first MUTATED_CASES mutated manifests of the seed, made once for both tests that read them:
 * finding them generates every case before them, several times as many, the other kinds large.
 */
function mutatedCases(): ReadonlyArray<readonly [string, string]> {
  if (mutated) return mutated;
  const corpus: Array<[string, string]> = [];
  for (let index = 0; corpus.length < MUTATED_CASES; index++) {
    const testCase = generateCase(SEED, index);
    // The other kinds test the loader's limits, not the layout: hundreds of thousands of values each.
    if (testCase.kind === 'mutation' || testCase.kind === 'wrongTypes') corpus.push([testCase.name, testCase.manifest.toString('utf8')]);
  }
  mutated = corpus;
  return corpus;
}

/** Merge keys in the places a manifest uses them: block and flow mappings, one or several sources, before and after other keys. */
const MERGE_KEYS: Array<[string, string]> = [
  ['merge key after a key it overrides', 'defaults:\n  config: &base\n    language: en-US\n    first_message: Hello\nagents:\n  a:\n    config:\n      first_message: Hi\n      <<: *base\n    id: x\n'],
  ['merge key before a key that overrides it', 'version: 1\ndefaults:\n  config: &base\n    language: en-US\nagents:\n  a:\n    id: -OKspareAgent0000001\n    config:\n      <<: *base\n      language: fr-FR\n      first_message: Hi\n'],
  ['merge keys in a flow map and of a list', 'defaults:\n  config: &one { language: en-US, first_message: Hello }\n  vars: &two { first_message: Hey }\nagents:\n  a: { config: { <<: [*two, *one], first_message: Hi }, id: x }\n  b: { <<: *two, id: y }\n'],
  ['a quoted "<<" key beside a merge key', 'defaults:\n  vars: &one { a: 1 }\nagents:\n  a:\n    "<<": 2\n    <<: *one\n    id: x\n'],
];

async function repositoryManifests(): Promise<Array<[string, string]>> {
  const corpus: Array<[string, string]> = [['agents.example.yaml', read('agents.example.yaml')]];
  for (const name of await templateNames()) {
    corpus.push([`templates/${name}/template.yaml`, read(`templates/${name}/template.yaml`)]);
    const template = await readTemplate(name, { cwd: repoRoot });
    const { values } = resolveVariables(template, SAMPLE_VALUES[name] ?? {});
    const scaffold = planScaffold({ template, values, agentId: '-OKspareAgent0000001' });
    corpus.push([`voxform init --template ${name}`, scaffold.files.find((f) => f.path === MANIFEST_FILE)?.content ?? '']);
  }
  const docs = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  for (const file of docs) {
    [...read(file).matchAll(/```ya?ml\n([\s\S]*?)```/g)].forEach((match, index) => corpus.push([`${file} example ${index + 1}`, match[1] as string]));
  }
  for (const file of readdirSync(path.join(repoRoot, 'test/fuzz/fixtures'))) corpus.push([`test/fuzz/fixtures/${file}`, read(`test/fuzz/fixtures/${file}`)]);
  return corpus;
}

describe('fmt(fmt(x)) = fmt(x)', () => {
  it('for every manifest of the repository, the templates and what init writes from them', async () => {
    const corpus = await repositoryManifests();
    const { checked, failures } = await notIdempotent(corpus);
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(25);
  });

  it(`for ${LAYOUT_CASES} generated manifests with comments and blank lines at the ends of blocks, seed ${SEED}`, async () => {
    const { checked, failures } = await notIdempotent(layoutCases());
    expect(failures).toEqual([]);
    expect(checked).toBe(LAYOUT_CASES);
  });

  it(`for the fuzzer's mutated manifests, seed ${SEED}`, async () => {
    const { checked, failures } = await notIdempotent(mutatedCases());
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(40);
  });

  it('for manifests with merge keys', async () => {
    const { checked, failures } = await notIdempotent(MERGE_KEYS);
    expect(failures).toEqual([]);
    expect(checked).toBe(MERGE_KEYS.length);
  });
});

describe('fmt(x) loads as x', () => {
  it('for every manifest of the repository, the templates and what init writes from them', async () => {
    const { checked, failures } = await meaningChanged(await repositoryManifests());
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(25);
  });

  it(`for ${LAYOUT_CASES} generated manifests, seed ${SEED}`, async () => {
    const { checked, failures } = await meaningChanged(layoutCases());
    expect(failures).toEqual([]);
    expect(checked).toBe(LAYOUT_CASES);
  });

  it(`for the fuzzer's mutated manifests, seed ${SEED}`, async () => {
    const { checked, failures } = await meaningChanged(mutatedCases());
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(40);
  });

  it('for manifests with merge keys', async () => {
    const { checked, failures } = await meaningChanged(MERGE_KEYS);
    expect(failures).toEqual([]);
    expect(checked).toBe(MERGE_KEYS.length);
  });
});
