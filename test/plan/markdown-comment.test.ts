import { describe, expect, it } from 'vitest';
import { COMMENT_SIZE_LIMIT } from '../../src/util/comment-blocks.js';
import { prepareMarkdownSection, renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { LineDiffBudget } from '../../src/plan/field-lines.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import type { FieldChange, Plan, ResourceChange } from '../../src/plan/types.js';
import { planOf } from '../helpers/plan.js';
import type { PlanPolicy, Relaxation } from '../../src/policy/plan-policy.js';
import type { Finding, PolicyReport, WaiverStatus } from '../../src/policy/types.js';

function field(path: string, before: unknown, after: unknown, extra: Partial<FieldChange> = {}): FieldChange {
  return { path, before, after, sensitive: false, drift: false, ...extra };
}

function agentChange(name: string, fieldChanges: FieldChange[], sensitivePaths: string[] = []): ResourceChange {
  return {
    address: `agent.${name}`,
    kind: 'agent',
    action: 'update',
    id: `-OK${name}`,
    before: null,
    after: null,
    fieldChanges,
    sensitivePaths,
    reason: undefined,
    dependsOn: [],
    requests: [],
    liveFingerprint: 'hmac-sha256:0',
  };
}

/** `count` numbered lines: `line 1` … `line N`, each with a newline. */
function numberedLines(count: number, change: (n: number) => string = (n) => `line ${n}`): string {
  return Array.from({ length: count }, (_, i) => `${change(i + 1)}\n`).join('');
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

describe('Markdown plan: prompt hunks', () => {
  it('keeps each hunk header, with the field path after it, so two hunks of one prompt never run together', () => {
    const before = numberedLines(12);
    const after = numberedLines(12, (n) => (n === 2 ? 'line two' : n === 11 ? 'line eleven' : `line ${n}`));
    const plan = planOf([agentChange('front-desk', [field('config.first_message', 'Hello', 'Hi'), field('config.prompt', before, after, { drift: true })])]);
    expect(renderPlanMarkdown(plan)).toBe(
      [
        '### voxform plan: 0 to create, 1 to update, 0 unchanged',
        '',
        '| Resource | Action | Fields |',
        '|---|---|---|',
        '| `agent.front-desk` | 🔄 update | `config.first_message`, `config.prompt` |',
        '',
        '<details><summary><code>agent.front-desk</code> will be updated in place</summary>',
        '',
        '```diff',
        '! config.first_message: "Hello" → "Hi"',
        '@@ -1,4 +1,4 @@ config.prompt   # drift: changed outside voxform',
        ' line 1',
        '-line 2',
        '+line two',
        ' line 3',
        ' line 4',
        '@@ -9,4 +9,4 @@ config.prompt',
        ' line 9',
        ' line 10',
        '-line 11',
        '+line eleven',
        ' line 12',
        '```',
        '',
        '</details>',
        '',
      ].join('\n'),
    );
  });
});

describe('Markdown plan: the size limit of a pull-request comment', () => {
  it('is 60,000 bytes, below GitHub\'s 65,536 characters with room for a wrapper', () => {
    expect(COMMENT_SIZE_LIMIT).toBe(60_000);
    const prompt = numberedLines(4000, (n) => `Rule ${n}: be brief and kind to every caller.`);
    const md = renderPlanMarkdown(planOf([agentChange('big', [field('config.prompt', '', prompt)])]), { savedPlan: 'plan.json' });
    expect(bytes(md)).toBeLessThanOrEqual(60_000);
    expect(bytes(md)).toBeGreaterThan(59_000);
  });

  it('shows the resources that fit whole, cuts the over-long one with a marker, and ends saying how to see the whole plan', () => {
    const plan = planOf([
      agentChange('a', [field('config.first_message', 'Hello', 'Hi')]),
      agentChange('big', [field('config.prompt', 'line 1\n', numberedLines(40))]),
      agentChange('c', [field('config.timezone', 'UTC', 'Europe/Paris')]),
    ]);
    expect(renderPlanMarkdown(plan, { savedPlan: 'plan.json', limit: 1000 })).toBe(
      [
        '### voxform plan: 0 to create, 3 to update, 0 unchanged',
        '',
        '| Resource | Action | Fields |',
        '|---|---|---|',
        '| `agent.a` | 🔄 update | `config.first_message` |',
        '| `agent.big` | 🔄 update | `config.prompt` |',
        '| `agent.c` | 🔄 update | `config.timezone` |',
        '',
        '<details><summary><code>agent.a</code> will be updated in place</summary>',
        '',
        '```diff',
        '! config.first_message: "Hello" → "Hi"',
        '```',
        '',
        '</details>',
        '',
        '<details><summary><code>agent.big</code> will be updated in place (cut)</summary>',
        '',
        '```diff',
        '@@ -1,1 +1,40 @@ config.prompt',
        ' line 1',
        '+line 2',
        '+line 3',
        '+line 4',
        '+line 5',
        '+line 6',
        '+line 7',
        '+line 8',
        '+line 9',
        '⋯ cut to fit the comment: 10 of 41 lines shown whole',
        '```',
        '',
        '</details>',
        '',
        '<details><summary><code>agent.c</code> will be updated in place</summary>',
        '',
        '```diff',
        '! config.timezone: "UTC" → "Europe/Paris"',
        '```',
        '',
        '</details>',
        '',
        "_This comment is cut to fit the size limit of a pull-request comment. To see the whole plan, download the saved plan `plan.json` (this job's artifact) and run `voxform plan show plan.json`._",
        '',
      ].join('\n'),
    );
  });

  it('without a saved plan, ends saying how to save one and look at it', () => {
    const plan = planOf([agentChange('big', [field('config.prompt', 'line 1\n', numberedLines(400))])]);
    const lines = renderPlanMarkdown(plan, { limit: 2000 }).trimEnd().split('\n');
    expect(lines.at(-1)).toBe(
      '_This comment is cut to fit the size limit of a pull-request comment. To see the whole plan, save the plan with `voxform plan --out plan.json` (keep it as a CI artifact) and run `voxform plan show plan.json`._',
    );
  });

  it('names a saved plan whose name has a space or a backtick so that the command runs as shown', () => {
    const plan = planOf([agentChange('big', [field('config.prompt', 'line 1\n', numberedLines(400))])]);
    const lines = renderPlanMarkdown(plan, { savedPlan: 'my plan`s.json', limit: 2000 }).trimEnd().split('\n');
    expect(lines.at(-1)).toBe(
      "_This comment is cut to fit the size limit of a pull-request comment. To see the whole plan, download the saved plan ``my plan`s.json`` (this job's artifact) and run ``voxform plan show 'my plan`s.json'``._",
    );
  });

  it('is not cut, and has no such last line, when it fits', () => {
    const plan = planOf([agentChange('big', [field('config.prompt', 'line 1\n', numberedLines(400))])]);
    const md = renderPlanMarkdown(plan, { savedPlan: 'plan.json' });
    expect(md).toContain('+line 400\n');
    expect(md).not.toContain('cut to fit');
  });

  it('five hundred changed prompts: keeps the sections that fit whole in plan order, cuts one, counts the rest (no empty stubs)', () => {
    const prompt = (tag: string) => numberedLines(60, (n) => `- Rule ${n}: confirm the caller's name for booking ${n} ${tag}.`);
    const agents = Array.from({ length: 500 }, (_, i) => agentChange(`agent-${i}`, [field('config.prompt', prompt('OLD'), prompt('NEW'))]));
    const knowledge = { ...agentChange('kb', [field('content', 'Open 8 to 18.', 'Open 9 to 18.')]), address: 'knowledge.kb-0', kind: 'knowledge' } as ResourceChange;
    const md = renderPlanMarkdown(planOf([...agents, knowledge]), { savedPlan: 'plan.json' });
    expect(bytes(md)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    const whole = md.match(/^<details><summary><code>agent\.agent-\d+<\/code> will be updated in place<\/summary>$/gm) ?? [];
    expect(whole.length).toBeGreaterThan(1);
    expect(whole.map((line) => line.match(/agent-(\d+)/)![1])).toEqual(whole.map((_, i) => String(i)));
    expect(md).toContain('<details><summary><code>knowledge.kb-0</code>');
    expect(md).not.toMatch(/cut to fit the comment: 0 of/);
    expect(md.match(/ \(cut\)<\/summary>/g)).toHaveLength(1);
    expect(md).toContain(`_…and ${500 - whole.length - 1} more changed resources, not shown here._\n`);
  });

  it('lists at most what fits of a plan with thousands of resources, saying how many it leaves out', () => {
    const changes = Array.from({ length: 3000 }, (_, i) => agentChange(`agent-number-${i}`, [field('config.timezone', 'UTC', 'Europe/Paris')]));
    const md = renderPlanMarkdown(planOf(changes, { environmentVariables: { names: Array.from({ length: 5000 }, (_, i) => `DEPLOY_TOKEN_NUMBER_${i}`), new: [], recorded: true } }));
    expect(bytes(md)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(md).toMatch(/\| ⋯ \d+ more changed resources, not listed here \| \| \|\n/);
    expect(md).toMatch(/_…and [\d,]+ more changed resources, not shown here\._\n/);
    expect(md).toMatch(/_1 more note \(the environment variables read\) not shown here\._\n/);
  });

  /** A thousand agents the state records and the manifests no longer name. */
  const manyUnmanaged = Array.from({ length: 1000 }, (_, i) => ({ address: `agent.bulk-${i}`, kind: 'agent' as const, id: `-OKbulk${String(i).padStart(8, '0')}`, attachedTo: [] }));
  const unmanagedHeading = '**Not managed any more** (the manifest files read: `voxform.yaml`):\n\n';
  const unmanagedCounts = (md: string) => ({
    listed: md.match(/^- `agent\.bulk-\d+` \(`-OKbulk\d{8}`\): no longer in the manifests; left as is on the service$/gm)?.length ?? 0,
    more: Number(/^- …and ([\d,]+) more not managed any more \(`voxform plan --format json` lists every one\)$/m.exec(md)?.[1]?.replace(/,/g, '') ?? Number.NaN),
  });

  it('cuts a long list of resources not managed any more like the other lists: its heading, the entries that fit, a count of the rest', () => {
    const variables = { names: ['HOOK_TOKEN'], new: [], recorded: true };
    const plan = planOf([agentChange('front-desk', [field('config.first_message', 'Hello', 'Hi')])], { noLongerManaged: manyUnmanaged, environmentVariables: variables });
    const md = renderPlanMarkdown(plan, { limit: 20_000 });
    expect(bytes(md)).toBeLessThanOrEqual(20_000);
    expect(md).toContain(unmanagedHeading);
    const { listed, more } = unmanagedCounts(md);
    expect(listed).toBeGreaterThan(10);
    expect(listed + more).toBe(1000);
    expect(md).toContain('**Environment variables read** (names only): `HOOK_TOKEN`.');
    expect(md).not.toMatch(/more notes? \(/);
  });

  it('cuts that list in a plan without changes too, within the cap', () => {
    const md = renderPlanMarkdown(planOf([], { noLongerManaged: manyUnmanaged, summary: { create: 0, update: 0, unchanged: 7, drifted: 0 } }));
    expect(bytes(md)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(md).toMatch(/^\*\*voxform plan:\*\* no changes/);
    expect(md).toContain(unmanagedHeading);
    const { listed, more } = unmanagedCounts(md);
    expect(listed).toBeGreaterThan(10);
    expect(listed + more).toBe(1000);
  });

  it('names the notes it leaves out', () => {
    const renamed = Array.from({ length: 300 }, (_, i) => ({ ...agentChange(`reception-${i}`, [field('config.first_message', 'Hello', 'Hi')]), movedFrom: `agent.front-desk-${i}` }));
    const md = renderPlanMarkdown(planOf(renamed, { environmentVariables: { names: ['HOOK_TOKEN'], new: [], recorded: true } }), { limit: 4000 });
    expect(md).not.toContain('**Renamed**');
    expect(md).toContain('_2 more notes (the keys renamed or swapped, the environment variables read) not shown here._\n');
  });
});

const SECRET = 'tok-planted-4f9a8b7c6d5e';

/** A plan meant to be cut everywhere: long one-line prompts full of markers, backticks, emoji, and a secret. */
function awkwardPlan(): Plan {
  const paragraph = 'Say `(sensitive)` never; 🎉 🎉 read back (known after apply) ``` fences ``` and (sensitive value changed) '.repeat(40);
  return planOf(
    [
      agentChange('one', [field('config.prompt', `${paragraph}\nshort\n`, `${paragraph}!\nshort\n`), field('config.first_message', 'a', 'b')]),
      agentChange('two', [field('config.session_data_webhook.headers.x-token', 'old-secret-value', SECRET, { sensitive: true })], ['config.session_data_webhook.headers']),
      agentChange('three', [
        field('config.tools', [{ name: 'find', header: { authorization: SECRET } }], [{ name: 'find', header: { authorization: SECRET }, description: paragraph }]),
      ], ['config.tools[].header']),
    ],
    { environmentVariables: { names: ['HOOK_TOKEN'], new: ['HOOK_TOKEN'], recorded: true } },
  );
}

const MARKERS = ['(sensitive value changed)', '(sensitive)', '(known after apply)'];

/** Whether `text`, a start of some line, stops inside one of the markers. */
function endsInsideMarker(text: string, whole: string): boolean {
  return MARKERS.some((marker) => {
    for (let at = whole.indexOf(marker); at !== -1; at = whole.indexOf(marker, at + 1)) if (at < text.length && text.length < at + marker.length) return true;
    return false;
  });
}

describe('Markdown plan: where a cut may fall', () => {
  const plan = awkwardPlan();
  const whole = renderPlanMarkdown(plan, { limit: Number.MAX_SAFE_INTEGER }).split('\n');

  it('stays within every limit, closes every fence it opens, never splits a marker or a character, never shows a secret', () => {
    for (let limit = 700; limit < bytes(whole.join('\n')); limit += 97) {
      const md = renderPlanMarkdown(plan, { savedPlan: 'plan.json', limit });
      expect(bytes(md), `limit ${limit}`).toBeLessThanOrEqual(limit);
      expect(md).not.toContain(SECRET);
      expect(md).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      const lines = md.trimEnd().split('\n');
      expect(lines.at(-1)).toContain('run `voxform plan show plan.json`');
      let open: string | undefined;
      for (const line of lines) {
        const fence = /^(`{3,})diff$/.exec(line);
        if (open === undefined && fence) open = fence[1];
        else if (open !== undefined && line === open) open = undefined;
        else if (open === undefined) expect(line, `limit ${limit}: outside a fence`).not.toMatch(/^[+-]/);
        if (line.endsWith(' ⋯')) {
          const start = line.slice(0, -2);
          const original = whole.find((candidate) => candidate.startsWith(start) && candidate !== start);
          expect(original, `limit ${limit}: a cut line is the start of a line of the plan`).toBeDefined();
          expect(endsInsideMarker(start, original!), `limit ${limit}: ${start.slice(-30)}`).toBe(false);
        }
      }
      expect(open, `limit ${limit}: a fence left open`).toBeUndefined();
    }
  });
});

describe('Markdown plan: a cut line', () => {
  it('is cut between characters as a reader sees them: a family emoji, a flag or an accented letter is never cut into a half', () => {
    // Each grapheme takes several code points: a family joined by U+200D, a flag of two regional indicators, e with an acute accent.
    const prompt = `xxxxx${'👩‍👩‍👧🇩🇪e\u0301'.repeat(200)}`;
    const plan = planOf([agentChange('one', [field('config.prompt', `a\n${prompt}\nb\n`, `a\n${prompt}!\nb\n`)])]);
    const boundaries = new Set([...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(prompt)].map(({ index }) => index));
    let cuts = 0;
    for (let limit = 2000; limit < 2060; limit += 1) {
      for (const line of renderPlanMarkdown(plan, { limit }).split('\n')) {
        if (!line.endsWith(' ⋯')) continue;
        cuts += 1;
        const shown = line.slice(1, -2);
        expect(prompt.startsWith(shown), `limit ${limit}`).toBe(true);
        expect(boundaries.has(shown.length), `limit ${limit}: ${JSON.stringify(shown.slice(-12))}`).toBe(true);
      }
    }
    expect(cuts).toBe(60);
  });
});

describe('Markdown plan: a secret the live side holds', () => {
  const SHORT_TOKEN = 'PLANTED-hook-7';
  const LONG_TOKEN = 'PLANTED-hook-a-much-longer-token-0123456789-abcdefghijklmnopqrstuvwxyz';
  /** The live prompt holds the token an earlier apply took from `${env:…}`; the manifests no longer read it, so the field is no secret place. */
  const planHolding = (token: string) =>
    planOf([agentChange('a', [field('config.prompt', `${'word '.repeat(60)}code ${token} ${'more '.repeat(60)}`, 'short new prompt')]), agentChange('b', [field('config.first_message', 'Hello', 'Hi')])]);
  const registryOf = (token: string) => {
    const secrets = new SecretRegistry();
    secrets.add(token);
    return secrets;
  };

  it('is hidden before the comment is measured and cut: no start of it is shown, and the comment is the same for tokens of two lengths at every limit', () => {
    const [short, long] = [SHORT_TOKEN, LONG_TOKEN].map((token) => ({ plan: planHolding(token), secrets: registryOf(token) }));
    for (let limit = 700; limit < 1_100; limit++) {
      const md = renderPlanMarkdown(short!.plan, { limit, secrets: short!.secrets });
      expect(md, `limit ${limit}`).not.toContain('PLANTED-h');
      expect(renderPlanMarkdown(long!.plan, { limit, secrets: long!.secrets }), `limit ${limit}`).toBe(md);
    }
  });

  it('is measured again when the secret became known after the section was measured ahead', () => {
    const secrets = new SecretRegistry();
    const plan = planHolding(LONG_TOKEN);
    prepareMarkdownSection(plan.changes[0]!, secrets, new LineDiffBudget());
    secrets.add(LONG_TOKEN);
    const fresh = planHolding(SHORT_TOKEN);
    const whole = bytes(renderPlanMarkdown(fresh, { limit: Number.MAX_SAFE_INTEGER, secrets: registryOf(SHORT_TOKEN) }));
    for (let limit = whole - 100; limit < whole + 100; limit++) {
      expect(renderPlanMarkdown(plan, { limit, secrets }), `limit ${limit}`).toBe(renderPlanMarkdown(fresh, { limit, secrets: registryOf(SHORT_TOKEN) }));
    }
  });
});

/** A policy with `count` of everything a comment lists: relaxations, findings, waivers in force, each with a long text. */
function hugePolicy(count: number): PlanPolicy {
  const long = 'approved by the privacy lead after review of the shared inbox, '.repeat(7);
  const at = (n: number) => ({ file: 'voxform.yaml', line: n, col: 5 });
  const findings: Finding[] = Array.from({ length: count }, (_, i) => ({ rule: 'pii-email-address', level: 'advisory', hint: 'remove it', resource: `agent.loc-${i}`, message: `${long}${i}`, location: at(i) }));
  const waivers: WaiverStatus[] = Array.from({ length: count }, (_, i) => ({ rule: 'pii-email-address', resource: `agent.loc-${i}`, reason: `${long}${i}`, expires: '2027-06-30', state: 'in-force', location: at(i) }));
  const relaxations: Relaxation[] = Array.from({ length: count }, (_, i) => ({ kind: 'waiver-added', message: `a waiver of pii-email-address for agent.loc-${i} was added: ${long}`, file: 'voxform.yaml', line: i }));
  const report: PolicyReport = { tokenizer: 'o200k_base', rules: [], findings, waived: [], waivers, summary: { mandatory: 0, advisory: count, waived: count } };
  return { report, promptTokens: Array.from({ length: count }, (_, i) => ({ address: `agent.loc-${i}`, before: 10, after: 20 })), base: 'main', relaxations };
}

describe('Markdown plan: the policy part within the size limit', () => {
  it('cuts each policy list to what fits with "…and N more", whatever their number, with changes or without', () => {
    const changes = planOf([agentChange('big', [field('config.prompt', '', numberedLines(4000, (n) => `Rule ${n}: be brief.`))])]);
    for (const plan of [{ ...changes, policy: hugePolicy(5000) }, planOf([], { policy: hugePolicy(5000) })]) {
      const md = renderPlanMarkdown(plan, { savedPlan: 'plan.json' });
      expect(bytes(md)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
      expect(md).toMatch(/^> \[!WARNING\]\n> \*\*Policy relaxed:\*\* this pull request weakens review \(5,000 relaxations\)\.\n/);
      expect(md).toMatch(/^> - …and [\d,]+ more \(`voxform plan` lists every one\)$/m);
      expect(md).toMatch(/^- …and [\d,]+ more \(`voxform validate --format json` lists up to 1,000\)$/m);
      expect(md).toMatch(/^\| …and [\d,]+ more \(`voxform validate` lists every one\) \| \| \| \|$/m);
      expect(md).toMatch(/^- …and [\d,]+ more \(`voxform plan` lists every one\)$/m);
    }
    expect(renderPlanMarkdown({ ...changes, policy: hugePolicy(5000) })).toContain('| `agent.big` | 🔄 update | `config.prompt` |');
  });

  it('lists at most 50 of each, counting the rest, even when they would fit', () => {
    const md = renderPlanMarkdown(planOf([], { policy: hugePolicy(60) }), { limit: Number.MAX_SAFE_INTEGER });
    expect(md).toContain('> - …and 10 more (`voxform plan` lists every one)');
    expect(md).toContain('- …and 10 more (`voxform validate --format json` lists up to 1,000)');
    // Findings past the run's cap are counted in the summary only: the line counts them too.
    const counted = hugePolicy(60);
    const past = renderPlanMarkdown(planOf([], { policy: { ...counted, report: { ...counted.report, summary: { ...counted.report.summary, advisory: 5_000 } } } }), { limit: Number.MAX_SAFE_INTEGER });
    expect(past).toContain('- …and 4,950 more (`voxform validate --format json` lists up to 1,000)');
    expect(md).toContain('| …and 10 more (`voxform validate` lists every one) | | | |');
    expect(md).toContain('- …and 10 more (`voxform plan` lists every one)');
  });

  it('cuts the prompt token counts like the other lists: long addresses neither take half the comment nor drop the policy heading', () => {
    const longName = (i: number) => `agent.${'front-desk-'.repeat(100)}${i}`;
    const tokens = Array.from({ length: 50 }, (_, i) => ({ address: longName(i), before: 10, after: 20 }));
    const withFindings = { ...hugePolicy(50), promptTokens: tokens, relaxations: [] };
    const changes = planOf([agentChange('big', [field('config.prompt', '', numberedLines(4000, (n) => `Rule ${n}: be brief.`))])]);
    const md = renderPlanMarkdown({ ...changes, policy: withFindings }, { savedPlan: 'plan.json' });
    expect(bytes(md)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(md).toMatch(/^### Policy: 0 mandatory violations, 50 advisory findings, 50 waived\n\n\*\*Prompt tokens\*\* \(`o200k_base`\):\n\n- `agent\.front-desk-/);
    expect(md).toMatch(/^- …and \d+ more \(`voxform plan` lists every one\)$/m);
    // The findings after the token counts keep room to show some.
    expect(md.match(/^- ⚠️ /gm)?.length ?? 0).toBeGreaterThan(3);
    // A policy with nothing else to report: the counts beside the variables read, cut the same way.
    const quiet = { ...withFindings, report: { ...withFindings.report, findings: [], waivers: [], summary: { mandatory: 0, advisory: 0, waived: 0 } } };
    const alone = renderPlanMarkdown({ ...changes, policy: quiet }, { savedPlan: 'plan.json' });
    expect(bytes(alone)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(alone).toMatch(/\n\*\*Prompt tokens\*\* \(`o200k_base`\):\n\n- `agent\.front-desk-/);
    expect(alone).toMatch(/^- …and \d+ more \(`voxform plan` lists every one\)$/m);
  });

  it('keeps each list a share of the room: long relaxations leave the token counts, findings and waivers rows of their own', () => {
    // As a pull request adding hundreds of waivers with long resources and reasons shows it.
    const resource = (i: number) => `agent.${'x'.repeat(140)}-${i}`;
    const reason = 'r'.repeat(490);
    const changes = planOf([agentChange('big', [field('config.prompt', '', numberedLines(4000, (n) => `Rule ${n}: be brief.`))])]);
    for (const count of [40, 499]) {
      const policy = hugePolicy(count);
      policy.report.waivers = policy.report.waivers.map((w, i) => ({ ...w, resource: resource(i), reason }));
      policy.relaxations = policy.relaxations.map((r, i) => ({ ...r, message: `a waiver of pii-email-address for ${resource(i)} was added: ${reason}` }));
      const md = renderPlanMarkdown({ ...changes, policy }, { savedPlan: 'plan.json' });
      expect(bytes(md)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
      expect(md.match(/^> - `voxform\.yaml/gm)?.length ?? 0, `${count}: relaxations`).toBeGreaterThan(0);
      expect(md.match(/^- `agent\.loc-\d+` 10 → 20/gm)?.length ?? 0, `${count}: token counts`).toBeGreaterThan(0);
      expect(md.match(/^- ⚠️ /gm)?.length ?? 0, `${count}: findings`).toBeGreaterThan(0);
      expect(md.match(/^\| `pii-email-address` \| `agent\.x+-\d+` \|/gm)?.length ?? 0, `${count}: waivers in force`).toBeGreaterThan(0);
    }
  });

  it('lists only the waivers in force: one that silences nothing, or has expired, is neither a row nor counted', () => {
    const policy = hugePolicy(60);
    const at = { file: 'voxform.yaml', line: 90, col: 5 };
    const unused: WaiverStatus = { rule: 'pii-phone-number', resource: 'x\n\n| injected | row |', reason: 'spoof', expires: '2027-06-30', state: 'unused', location: at };
    const expired: WaiverStatus = { ...unused, resource: 'agent.old', state: 'expired' };
    policy.report.waivers = [unused, ...policy.report.waivers, expired];
    const md = renderPlanMarkdown(planOf([], { policy }), { limit: Number.MAX_SAFE_INTEGER });
    expect(md).not.toContain('injected');
    expect(md).not.toContain('agent.old');
    expect(md).toContain('| …and 10 more (`voxform validate` lists every one) | | | |');
  });

  it('names the resource of each finding, but not of the policy section\'s own', () => {
    const policy = hugePolicy(0);
    const finding = (rule: string, resource: string, message: string): Finding => ({ rule, level: 'mandatory', hint: 'fix it', resource, message, location: { file: 'prompts/booking.md', line: 14, col: 6 } });
    policy.report.findings = [finding('pii-phone-number', 'agent.front-desk', 'prompt holds a phone number'), finding('policy-waiver-expired', 'agent.booking', 'the waiver of pii-phone-number for agent.booking expired on 2026-01-01')];
    const md = renderPlanMarkdown(planOf([], { policy }));
    expect(md).toContain('- ⛔ `mandatory[pii-phone-number]` `prompts/booking.md:14:6`: agent.front-desk: prompt holds a phone number\n  hint: fix it\n');
    expect(md).toContain('- ⛔ `mandatory[policy-waiver-expired]` `prompts/booking.md:14:6`: the waiver of pii-phone-number for agent.booking expired on 2026-01-01\n  hint: fix it\n');
  });

  it('shows each finding\'s hint under it, as the text does, escaped as the manifest\'s own text (a team rule\'s hint is the pull request\'s)', () => {
    const policy = hugePolicy(0);
    const hint = 'Greet </details><img src=x> `tick` @org/team\n# heading';
    policy.report.findings = [{ rule: 'greeting', level: 'advisory', hint, resource: 'agent.a', message: 'config.first_message does not match the pattern (team rule greeting)', location: { file: 'voxform.yaml', line: 7, col: 22 } }];
    const md = renderPlanMarkdown(planOf([], { policy }));
    expect(md).toContain('- ⚠️ `advisory[greeting]` `voxform.yaml:7:22`: agent.a: config.first\\_message does not match the pattern (team rule greeting)\n  hint: Greet &lt;/details&gt;&lt;img src=x&gt; \\`tick\\` @&#8203;org/team # heading\n');
  });

  it('keeps within every smaller limit too', () => {
    const plan = planOf([agentChange('a', [field('config.first_message', 'Hello', 'Hi')])], { policy: hugePolicy(200) });
    for (let limit = 2000; limit < 120_000; limit += 4999) expect(bytes(renderPlanMarkdown(plan, { limit })), `limit ${limit}`).toBeLessThanOrEqual(limit);
  });
});
