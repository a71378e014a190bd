// A seeded manifest fuzzer: generates hostile projects (a manifest plus the files it names) and
// checks that loading each ends in a clean verdict: a result with a desired state, or errors each
// with a file and a position; never an exception other than voxform's own, never a hang.
// Used by test/fuzz/manifest-fuzz.test.ts (a few hundred cases per run) and scripts/fuzz.mjs (the
// long run). Plain JavaScript so that the script runs it over the built package without a compiler.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
// The built module: this file also runs under plain node (npm run fuzz builds first, as npm test does).
import { seededRandom } from '../../dist/util/seeded-random.js';

/** Seeded (mulberry32, src/util/seeded-random.ts): a run is reproduced from its seed alone. */
export function createRandom(seed) {
  const next = seededRandom(seed);
  return {
    next,
    int: (max) => Math.floor(next() * max),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}

const BASE = `version: 1
defaults:
  config: { language: en-US, timezone: America/New_York }
agents:
  front-desk:
    id: ag_front
    name: Front desk
    config:
      prompt: { file: prompts/front.md }
      first_message: Thanks for calling!
      flow: { response_delay: 300, interruption: { allowed: true } }
      session_data_webhook: { url: https://hooks.example.com/end, headers: { x-token: "\${env:HOOK_TOKEN:-dev}" } }
    knowledge: [faq]
phones:
  "+15551230001": { agent: front-desk }
campaigns:
  spring: { id: cmp_1, name: Spring, caller: "+15551230001" }
knowledge:
  faq: { file: knowledge/faq.md, description: Opening hours }
credentials:
  - { provider: openai, api_key: "\${env:OPENAI_KEY:-sk-dev}" }
environments:
  staging:
    agents: { front-desk: { id: ag_staging } }
`;

const PIECES = [' ', '\n', '  ', ':', '- ', '"', "'", '{', '}', '[', ']', ',', 'null', '~', '${env:X}', '${env:', '{{v}}', '12', '-1e999', 'agents', 'id', 'config', '\t', '&a ', '*a', '<<: ', '---\n', '!!str ', '? ', '|', '>', '#', '\u0000', '\uFEFF', '\u202E', '\uD800', '💥', '__proto__', 'constructor'];

/** Paths a manifest may name: fine, outside the project, special files, nonsense. */
const PATHS = [
  'prompts/front.md',
  'prompts/../prompts/front.md',
  '../outside/secret.md',
  'prompts/../../outside/secret.md',
  '/proc/self/environ',
  '/etc/passwd',
  '/dev/zero',
  'links/out.md',
  'links/zero.md',
  'links/loop.md',
  'links/inside.md',
  'special/fifo.md',
  'prompts',
  'missing.md',
  '',
  '.',
  'C:\\Windows\\win.ini',
  '\\\\server\\share\\x.md',
  'a\u0000b.md',
  'x'.repeat(5000),
  'big.md',
];

/** What every case's project holds besides its manifest; `outside/` is beside the project, not in it. */
/** The files every case's project holds: prompts, knowledge, links in and out of it, a FIFO, and a secret outside it. */
async function writeFixedFiles(base, project) {
  await mkdir(path.join(base, 'outside'), { recursive: true });
  await writeFile(path.join(base, 'outside/secret.md'), `token=${PLANTED}\n`);
  for (const folder of ['prompts', 'knowledge', 'links', 'special']) await mkdir(path.join(project, folder), { recursive: true });
  await writeFile(path.join(project, 'prompts/front.md'), 'You are the front desk.\n');
  await writeFile(path.join(project, 'knowledge/faq.md'), 'Open 9 to 5.\n');
  await symlink(path.join(base, 'outside/secret.md'), path.join(project, 'links/out.md'));
  await symlink('/dev/zero', path.join(project, 'links/zero.md'));
  await symlink('loop.md', path.join(project, 'links/loop.md'));
  await symlink('../prompts/front.md', path.join(project, 'links/inside.md'));
  execFileSync('mkfifo', [path.join(project, 'special/fifo.md')]);
}

/** What differs from case to case besides the manifest: a 3 MiB file beside it, one time in ten. */
async function writeCaseFiles(project, random) {
  const big = path.join(project, 'big.md');
  if (random.chance(0.1)) await writeFile(big, Buffer.alloc(3 * 1024 * 1024, 0x61));
  else await rm(big, { force: true });
}

/** A value planted outside the project: it must never appear in a result. */
export const PLANTED = 'fuzz-planted-secret-5e2d';

function mutate(text, random) {
  let out = text;
  const edits = 1 + random.int(6);
  for (let e = 0; e < edits; e++) {
    const at = random.int(out.length + 1);
    const choice = random.int(4);
    if (choice === 0) out = out.slice(0, at) + random.pick(PIECES) + out.slice(at);
    else if (choice === 1) out = out.slice(0, at) + out.slice(at + 1 + random.int(12));
    else if (choice === 2) out = out.slice(0, at) + ' '.repeat(1 + random.int(3)) + out.slice(at); // indentation
    else out = out.slice(0, at) + out.slice(at, at + random.int(80)).repeat(1 + random.int(4)) + out.slice(at);
  }
  return out;
}

function deepNesting(random) {
  const depth = 1 + random.int(random.chance(0.5) ? 100 : 20_000);
  const kind = random.int(3);
  if (kind === 0) return `agents:\n  a:\n    id: ag_1\n    config:\n      llm: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
  if (kind === 1) return `agents:\n  a:\n    id: ag_1\n    config:\n      llm: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}\n`;
  const levels = Math.min(depth, 1_500);
  return `${Array.from({ length: levels }, (_, i) => `${' '.repeat(i * (1 + random.int(2)))}k${i}:`).join('\n')} 1\n`;
}

function aliases(random) {
  const kind = random.int(4);
  if (kind === 0) {
    // billion laughs
    const fan = 2 + random.int(12);
    const lines = [`a0: &a0 [${Array.from({ length: fan }, () => 'lol').join(', ')}]`];
    for (let i = 1; i < 4 + random.int(20); i++) lines.push(`a${i}: &a${i} [${Array.from({ length: fan }, () => `*a${i - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\n`;
  }
  if (kind === 1) return random.pick(['a: &a [*a]\n', 'defaults: &d\n  config: { x: *d }\n', 'a: &a\n  b: &b\n    c: *a\n', 'x: &x { <<: *x }\n']);
  if (kind === 2) {
    const items = Array.from({ length: 100 + random.int(20_000) }, (_, i) => i).join(', ');
    return `big: &big [${items}]\ncopies: [${Array.from({ length: 1 + random.int(200) }, () => '*big').join(', ')}]\n`;
  }
  const chain = [`l0: &l0 {v: 1}`];
  for (let i = 1; i < 2 + random.int(150); i++) chain.push(`l${i}: &l${i} {n: *l${i - 1}}`);
  return `${chain.join('\n')}\n`;
}

function hugeScalar(random) {
  const length = random.int(random.chance(0.2) ? 3_000_000 : 50_000);
  const alphabet = ['a', ' ', '"', "'", '\\', '#', ':', '\u00e9', '\u200b', '\u202e', '💥', '\u0000', '\uFFFF'];
  let text = '';
  const unit = Array.from({ length: 64 }, () => random.pick(alphabet)).join('');
  while (text.length < length) text += unit;
  const style = random.int(4);
  const value = style === 0 ? JSON.stringify(text) : style === 1 ? `|\n        ${text.replace(/\n/g, ' ')}` : style === 2 ? `'${text.replace(/'/g, "''")}'` : text;
  return `agents:\n  a:\n    id: ag_1\n    config:\n      prompt: ${value}\n`;
}

function manyProblems(random) {
  const count = 1 + random.int(random.chance(0.3) ? 60_000 : 2_000);
  const kind = random.int(3);
  if (kind === 0) return `agents:\n${Array.from({ length: count }, (_, i) => `  "bad name ${i}": { id: ag_${i} }`).join('\n')}\n`;
  if (kind === 1) return `agents:\n${Array.from({ length: count }, (_, i) => `  a${i}: { id: ag_${i}, config: { llm: { temperature: nope } } }`).join('\n')}\n`;
  return Array.from({ length: Math.min(count, 20_000) }, (_, i) => `---\nagents:\n  a${i % 50}: { id: ag_${i} }`).join('\n');
}

function namedFiles(random) {
  const prompt = random.pick(PATHS);
  const knowledge = random.pick(PATHS);
  const template = random.chance(0.2) ? `\n    template: ${random.pick(['receptionist', '../../etc', 'x'.repeat(300), 'nope'])}` : '';
  return `agents:\n  a:\n    id: ag_1${template}\n    config:\n      prompt: { file: ${JSON.stringify(prompt)} }\n    knowledge: [k]\nknowledge:\n  k: { file: ${JSON.stringify(knowledge)} }\n`;
}

function wrongTypes(random) {
  const values = ['1', '-1', '1e400', 'true', 'null', '[]', '{}', '[1, [2, [3]]]', '"\\u0000"', '.nan', '0x7fffffffffffffffff', '!!binary aGVsbG8=', '2001-12-14t21:59:43.10-05:00'];
  return BASE.replace(/: (?:[^\s{[].*)$/gm, (match) => (random.chance(0.15) ? `: ${random.pick(values)}` : match));
}

const GENERATORS = { mutation: (r) => mutate(BASE, r), deepNesting, aliases, hugeScalar, manyProblems, namedFiles, wrongTypes };

/** Case `index` of the run seeded `seed`: a project description, deterministic in both. */
export function generateCase(seed, index) {
  const random = createRandom((seed * 1_000_003 + index) >>> 0);
  const kind = random.pick(Object.keys(GENERATORS));
  let manifest = GENERATORS[kind](random);
  if (kind !== 'mutation' && random.chance(0.3)) manifest = mutate(manifest, random);
  const bytes = random.chance(0.05) ? Buffer.concat([Buffer.from(manifest), Buffer.from([0xff, 0xfe, 0xc3])]) : Buffer.from(manifest);
  return { name: `seed ${seed} case ${index} (${kind})`, kind, manifest: bytes, environment: random.chance(0.3) ? 'staging' : undefined, random };
}

/**
 * Manifest sections in block style, sorted wrong on purpose, for `generateLayoutCase`: nested maps,
 * lists of maps, flow collections and a block scalar (one entry: nothing is strewn inside it).
 */
const LAYOUT_SECTIONS = [
  ['agents:', '  front-desk:', '    name: Front desk', '    id: ag_front', '    config:', '      llm: { temperature: 0.3 }', '      tools:', '        - webhook: https://x.test/slots', '          name: find_slots', '          params:', '            - { type: string, name: date }', '      prompt: |\n        You are the front desk.\n\n        Be brief.', '    knowledge: [faq]', '  booking: { id: ag_booking }'],
  ['phones:', '  "+15551230001": { agent: front-desk }', '  "+15551230002":', '    import:', '      region: us-west', '      country: US', '    agent: booking'],
  ['knowledge:', '  faq:', '    description: Opening hours', '    file: knowledge/faq.md'],
  ['credentials:', '  - api_key: "${env:OPENAI_KEY:-sk-dev}"', '    provider: openai'],
  ['environments:', '  staging:', '    agents:', '      front-desk: { id: ag_staging }', '    region: eu'],
  ['defaults:', '  config:', '    timezone: America/New_York', '    language: en-US'],
  ['version: 1'],
  ['region: us'],
];

/** One document of a layout case: the sections shuffled, comments and blank lines strewn between lines. */
function layoutDocument(random) {
  const sections = LAYOUT_SECTIONS.filter(() => random.chance(0.6));
  sections.sort(() => random.next() - 0.5);
  const lines = [];
  for (const section of sections) {
    for (const line of section) {
      lines.push(line);
      if (random.chance(0.15)) lines.push('');
      if (random.chance(0.25)) {
        const indent = ' '.repeat(2 * random.int(5));
        for (let n = 1 + random.int(2); n > 0; n--) lines.push(`${indent}# note ${lines.length}`);
        if (random.chance(0.3)) lines.push('');
      }
    }
  }
  return lines.join('\n');
}

/**
 * Case `index` of the layout run seeded `seed`: a manifest (valid YAML, not necessarily a valid
 * manifest) with comments and blank lines at the ends of blocks and between keys, sections out of
 * order, and now and then several documents, empty ones and a header comment. For `voxform fmt`'s
 * idempotence: fmt(fmt(x)) = fmt(x).
 */
export function generateLayoutCase(seed, index) {
  const random = createRandom((seed * 1_000_003 + index) >>> 0);
  const documents = [layoutDocument(random)];
  while (random.chance(0.25)) documents.push(random.chance(0.3) ? (random.chance(0.5) ? '# an empty document' : '') : layoutDocument(random));
  let text = documents.map((doc) => (doc === '' ? doc : `${doc}\n`)).join('---\n');
  if (random.chance(0.15)) text += '---\n';
  if (random.chance(0.15)) text = `# yaml-language-server: $schema=.voxform/manifest.schema.json\n${random.chance(0.5) ? '\n' : ''}${text}`;
  return { name: `layout seed ${seed} case ${index}`, text };
}

/** Writes the case's project into a new temporary folder; returns it and a cleanup. */
export async function writeCase(testCase) {
  const workspace = await openWorkspace();
  const project = await workspace.write(testCase);
  return { project, cleanup: workspace.close };
}

/**
 * One project folder for many cases, one after the other: its fixed files are written once (a
 * FIFO costs a process: `mkfifo`), each case's manifest and files over the last one's. Loading
 * only reads, so a case finds the folder as a fresh one would be.
 */
export async function openWorkspace() {
  const base = await mkdtemp(path.join(tmpdir(), 'voxform-fuzz-'));
  const project = path.join(base, 'project');
  await mkdir(project);
  await writeFixedFiles(base, project);
  return {
    async write(testCase) {
      await writeCaseFiles(project, testCase.random);
      await writeFile(path.join(project, 'voxform.yaml'), testCase.manifest);
      return project;
    },
    close: () => rm(base, { recursive: true, force: true }),
  };
}

/**
 * Loads one case with `loadManifests` (the source or the built one) and judges the outcome:
 * `{ clean, why, ms }`. Clean: a state and no errors, or errors each at a file:line:col; a thrown
 * VoxformError (voxform's own, clear sentence) is clean too; anything else is not. In `workspace`
 * (openWorkspace) when given, else in a project of its own.
 */
export async function runCase(testCase, loadManifests, workspace) {
  const own = workspace === undefined ? await openWorkspace() : undefined;
  const project = await (workspace ?? own).write(testCase);
  const started = performance.now();
  try {
    const result = await loadManifests({ paths: [], cwd: project, env: {}, environment: testCase.environment });
    const ms = performance.now() - started;
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    if (JSON.stringify(result.diagnostics).includes(PLANTED)) return { clean: false, why: 'a file outside the project was read', ms };
    for (const d of result.diagnostics) {
      if (!d.file || !(d.line >= 1) || !(d.col >= 1) || typeof d.message !== 'string' || d.message === '') {
        return { clean: false, why: `a diagnostic without a place: ${JSON.stringify(d).slice(0, 300)}`, ms };
      }
    }
    if (result.state === undefined && errors.length === 0 && result.omitted.errors === 0) return { clean: false, why: 'no state and no error', ms };
    if (result.state !== undefined && errors.length > 0) return { clean: false, why: 'a state despite errors', ms };
    return { clean: true, why: errors.length > 0 || result.omitted.errors > 0 ? 'errors' : 'valid', ms };
  } catch (error) {
    const ms = performance.now() - started;
    if (error && error.name === 'VoxformError' && typeof error.code === 'string') return { clean: true, why: `refused: ${error.code}`, ms };
    return { clean: false, why: `threw ${error?.stack ?? error}`, ms };
  } finally {
    await own?.close();
  }
}
