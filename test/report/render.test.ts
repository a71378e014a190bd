import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../src/report/compare.js';
import { percent, rateText, signedCredits, signedPoints, signedSeconds } from '../../src/report/format.js';
import { MetricsAccumulator } from '../../src/report/metrics.js';
import { escapeHtml, renderReportHtml } from '../../src/report/render-html.js';
import { renderReportMarkdown } from '../../src/report/render-markdown.js';
import { markdownHtmlText, markdownText } from '../../src/util/markdown-escape.js';
import type { CallReport } from '../../src/report/types.js';
import { COMMENT_SIZE_LIMIT } from '../../src/util/comment-blocks.js';
import { cspSourceHash } from '../../src/util/hash.js';

const HOSTILE = 'desk | [click](https://evil.example) <b>@team</b> `x` *y*\nnext';

function report(name: string): CallReport {
  const rate = { count: 1, of: 40, value: 0.025, low: 0.004, high: 0.128 };
  const metrics = {
    calls: 40,
    by_status: { 'user-ended': 39, error: 1 },
    error_rate: rate,
    transfer_rate: rate,
    duration_seconds: { calls: 40, median: 61, p90: 120.5, mean: 70, exact: true },
    credits: { total: 4, mean_per_call: 0.1 },
    tool_calls: { calls: 3, failed: 1, failure_rate: { count: 1, of: 3, value: 0.333333, low: 0.06, high: 0.79 } },
  };
  const deploy = { record_id: 'r2', at: '2026-03-02T00:00:00.000Z', by: 'dev', commit: `${'b'.repeat(40)}`, branch: HOSTILE, pull_request: 42, ci_job_url: null, uncommitted: null, changed_fields: ['prompt'], diff_url: null };
  const difference = { difference: 0.2, low: 0.05, high: 0.35, verdict: 'higher' as const };
  return {
    format_version: 1,
    generated_at: '2026-03-03T00:00:00.000Z',
    workspace: 'default@local',
    window: { since: null, until: null },
    min_calls: 30,
    calls: 80,
    test_traffic: { included: false, calls: 0 },
    other_environments: [],
    agents: [
      {
        agent_id: `id-${name}`,
        name,
        managed: true,
        service_name: null,
        calls: 80,
        test_calls: 0,
        series: { bin_seconds: 3600, points: [] },
        deploys: [deploy],
        versions: [
          { key: 'outside:abc', source: 'outside', config_hash: `sha256:${'c'.repeat(64)}`, deploy: null, first_call: '2026-03-01T00:00:00.000Z', last_call: '2026-03-01T00:00:00.000Z', metrics, series: [], comparison: null },
          {
            key: 'r2',
            source: 'voxform',
            config_hash: `sha256:${'d'.repeat(64)}`,
            deploy,
            first_call: '2026-03-02T00:00:00.000Z',
            last_call: '2026-03-02T00:00:00.000Z',
            metrics,
            series: [],
            comparison: {
              against: 'outside:abc',
              enough_calls: true,
              error_rate: difference,
              transfer_rate: { ...difference, verdict: 'no clear difference' },
              tool_failure_rate: { ...difference, verdict: 'not enough calls' },
              mean_duration_seconds: { difference: -12, low: -20, high: -4, verdict: 'lower' },
              mean_credits_per_call: { ...difference, verdict: 'no clear difference' },
            },
          },
        ],
      },
    ],
  };
}

describe('Markdown', () => {
  it('escapes names so they cannot break the table, link, mention or inject HTML', () => {
    expect(markdownText(HOSTILE)).toBe('desk \\| \\[click\\](https:&#47;&#47;evil.example) &lt;b&gt;@&#8203;team&lt;/b&gt; \\`x\\` \\*y\\* next');
  });

  it('writes an issue reference so that it links and cross-references no issue: #12, GH-12, owner/repo#12', () => {
    const name = 'N … @octocat #12 a|b GH-7 gh-8 acme/app#9 #x';
    expect(markdownText(name)).toBe('N … @&#8203;octocat #&#8203;12 a\\|b GH-&#8203;7 gh-&#8203;8 acme/app#&#8203;9 #x');
    expect(markdownText('#12 at a line start')).toBe('\\#&#8203;12 at a line start');
    // The entities the escaper writes itself stay entities; an author's is text.
    expect(markdownHtmlText('#3 https://x ##[e] &#35;4')).toBe('#&#8203;3 https:&#47;&#47;x ##&#91;e] &amp;#&#8203;35;4');
  });

  it('prints one table row per version with intervals and only the supported verdicts', () => {
    const text = renderReportMarkdown(report(HOSTILE));
    expect(text).toContain('### desk \\| \\[click\\]');
    expect(text).toContain('| changed outside voxform (cccccccccccc) | – | 40 | user-ended 39, error 1 |');
    // The ledger's pull request number is the service's text too: it reads as PR #42, and links and cross-references no issue.
    expect(text).toContain('| PR #&#8203;42 · bbbbbbb | 2026-03-02 00:00:00 UTC | 40 | user-ended 39, error 1 | 2.5% (0.4%–12.8%) |');
    expect(text).toContain('| 61.0s / 121s | 0.100 | 3 (1) | errors ▲ higher (+5.0 pts to +35.0 pts); mean duration ▼ lower (−20.0s to −4.0s) |');
    expect(text).not.toContain('transfers ▲');
    expect(text.split('\n').filter((line) => line.startsWith('| ')).every((line) => line.endsWith('|'))).toBe(true);
  });

  it('says when a version was deployed from a work tree with uncommitted changes', () => {
    const data = report('desk');
    const agent = data.agents[0] as (typeof data.agents)[number];
    const deployed = agent.versions[1] as (typeof agent.versions)[number];
    deployed.deploy = { ...(deployed.deploy as NonNullable<typeof deployed.deploy>), uncommitted: true };
    expect(renderReportMarkdown(data)).toContain('| PR #&#8203;42 · bbbbbbb with uncommitted changes | 2026-03-02 00:00:00 UTC |');
    deployed.deploy = { ...deployed.deploy, uncommitted: false };
    expect(renderReportMarkdown(data)).toContain('| PR #&#8203;42 · bbbbbbb | 2026-03-02 00:00:00 UTC |');
  });

  it('tells apart two versions that would read the same (applied from one work tree with changes): each with its record id', () => {
    const data = report('desk');
    const agent = data.agents[0] as (typeof data.agents)[number];
    const deployed = agent.versions[1] as (typeof agent.versions)[number];
    deployed.deploy = { ...(deployed.deploy as NonNullable<typeof deployed.deploy>), uncommitted: true, record_id: '20260302T000000000Z-bbbbbb' };
    agent.versions.push({ ...deployed, deploy: { ...deployed.deploy, record_id: '20260302T010000000Z-cccccc' } });
    const text = renderReportMarkdown(data);
    expect(text).toContain('| PR #&#8203;42 · bbbbbbb with uncommitted changes · 20260302T000000000Z-bbbbbb | 2026-03-02 00:00:00 UTC |');
    expect(text).toContain('| PR #&#8203;42 · bbbbbbb with uncommitted changes · 20260302T010000000Z-cccccc | 2026-03-02 00:00:00 UTC |');
    expect(text).toContain('| changed outside voxform (cccccccccccc) | – |');
  });

  it('says which version is short of calls: this one (not yet), or the one before (which will get no more)', () => {
    const data = report('desk');
    const agent = data.agents[0] as (typeof data.agents)[number];
    const deployed = agent.versions[1] as (typeof agent.versions)[number];
    deployed.comparison = { ...(deployed.comparison as NonNullable<typeof deployed.comparison>), enough_calls: false };
    expect(renderReportMarkdown(data)).toContain('| the version before has too few calls to compare (30 per version needed) |');
    deployed.metrics = { ...deployed.metrics, calls: 12 };
    expect(renderReportMarkdown(data)).toContain('| not enough calls yet (30 per version needed) |');
  });

  it('writes the window\'s ends as times in UTC to the second, and an open end as `the first call` or `now`, in Markdown and HTML', () => {
    const ends = [
      [{ since: null, until: null }, 'the first call to now'],
      [{ since: '2026-11-30T23:01:00.000Z', until: null }, '2026-11-30 23:01:00 UTC to now'],
      [{ since: null, until: '2026-12-01T08:30:00.000Z' }, 'the first call to 2026-12-01 08:30:00 UTC'],
      [{ since: '2026-11-30T23:01:00.000Z', until: '2026-12-01T08:30:00.000Z' }, '2026-11-30 23:01:00 UTC to 2026-12-01 08:30:00 UTC'],
      // Three seconds: two ends that must not read the same.
      [{ since: '2026-12-01T01:40:07.000Z', until: '2026-12-01T01:40:10.000Z' }, '2026-12-01 01:40:07 UTC to 2026-12-01 01:40:10 UTC'],
    ] as const;
    for (const [window, text] of ends) {
      const data = { ...report('desk'), window };
      expect(renderReportMarkdown(data)).toContain(`\nFrom ${text} · 80 calls · `);
      expect(renderReportHtml(data)).toContain(`Workspace default@local · from ${text} · 80 calls · `);
    }
  });

  it('writes deploy times in UTC to the second, so deploys seconds apart read apart, in Markdown and HTML', () => {
    const data = report('desk');
    const [agent] = data.agents;
    const [first, second] = agent?.versions ?? [];
    const deploy = second?.deploy as NonNullable<NonNullable<typeof second>['deploy']>;
    (first as NonNullable<typeof first>).deploy = { ...deploy, record_id: 'r1', at: '2026-12-01T01:53:04.120Z' };
    (second as NonNullable<typeof second>).deploy = { ...deploy, at: '2026-12-01T01:53:09.870Z' };
    const rows = renderReportMarkdown(data).split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| version'));
    expect(rows.map((row) => row.split(' | ')[1])).toEqual(['2026-12-01 01:53:04 UTC', '2026-12-01 01:53:09 UTC']);
    const html = renderReportHtml(data);
    expect(html).toContain('<td>2026-12-01 01:53:04 UTC</td>');
    expect(html).toContain('<td>2026-12-01 01:53:09 UTC</td>');
  });

  it('heads an agent voxform does not manage with its name on the service and its id, both Markdown-safe; the HTML names it so too', () => {
    const data = report('desk');
    const managed = data.agents[0]!;
    const byHand = { ...managed, agent_id: '-OKhandMade|`x`', name: '-OKhandMade|`x`', managed: false, service_name: '# Night line @team <b>' };
    const gone = { ...managed, agent_id: '-OKgone', name: '-OKgone', managed: false, service_name: null };
    const text = renderReportMarkdown({ ...data, agents: [managed, byHand, gone] });
    expect(text.match(/^### .*$/gm)).toEqual(['### desk', '### \\# Night line @&#8203;team &lt;b&gt; · `` -OKhandMade|`x` ``', '### `-OKgone`']);
    const html = renderReportHtml({ ...data, agents: [byHand] });
    expect(html).toContain('<h2># Night line @team &#60;b&#62; <span class="meta">');
  });

  it('two thousand agents: within a comment\'s size limit, the totals kept, the tables that fit whole, the rest counted', () => {
    const one = report('desk');
    const agents = Array.from({ length: 2000 }, (_, i) => ({ ...one.agents[0]!, agent_id: `id-${i}`, name: `agent-${i}` }));
    const text = renderReportMarkdown({ ...one, agents, calls: 160_000 });
    expect(text.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(text).toContain('From the first call to now · 160,000 calls · intervals are 95%');
    const shown = text.match(/^### agent-\d+$/gm) ?? [];
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.at(-1)).toBe(`### agent-${shown.length - 1}`);
    expect(text.endsWith(`|\n\n_…and ${(2000 - shown.length).toLocaleString('en-US')} more agents, not shown here (\`--format json\` has them all)._\n`)).toBe(true);
  });

  it('names the source environment of a promoted version', () => {
    const data = report('desk');
    const agent = data.agents[0] as (typeof data.agents)[number];
    const deployed = agent.versions[1] as (typeof agent.versions)[number];
    deployed.deploy = { ...(deployed.deploy as NonNullable<typeof deployed.deploy>), promoted_from: { workspace: 'staging@https://api.example', record: '20260301T000000000Z-aaaaaa' } };
    expect(renderReportMarkdown(data)).toContain('| PR #&#8203;42 · bbbbbbb · promoted from staging | 2026-03-02 00:00:00 UTC |');
  });
});

describe('numbers', () => {
  it('rounds a half away from zero on the decimal value, as a reader would: 28.75% is 28.8%, as 1.75% is 1.8%', () => {
    expect([23 / 80, 41 / 80, 7 / 400, 0.2875, 0.0005, 0.00049999, 1, 0].map((value) => percent(value))).toEqual(['28.8%', '51.3%', '1.8%', '28.8%', '0.1%', '0.0%', '100.0%', '0.0%']);
    expect(rateText({ count: 23, of: 80, value: 23 / 80, low: 0.2, high: 0.395 })).toBe('28.8% (20.0%–39.5%)');
    expect([signedPoints(-0.19125), signedPoints(0.00125), signedSeconds(-2.25), signedCredits(0.0125)]).toEqual(['−19.1 pts', '+0.1 pts', '−2.3s', '+0.013']);
  });

  it('never writes the bound of a claimed difference as zero: it shows the digits that tell it from zero', () => {
    expect([signedPoints(-0.000_12), signedPoints(0.000_004), signedSeconds(-0.03), signedCredits(0.000_2)]).toEqual(['−0.01 pts', '+0.0004 pts', '−0.03s', '+0.0002']);
    // 236 transfers of 6,000 against 4 of 40: the interval's upper end lies just below zero.
    const calls = (transfers: number, of: number) => {
      const metrics = new MetricsAccumulator();
      for (let i = 0; i < of; i++) metrics.add({ call_status: 'user-ended', function_calls: i < transfers ? [{ name: 'transfer_call' }] : [] } as never, i);
      return metrics;
    };
    const comparison = compareVersions(calls(236, 6000), 'before', calls(4, 40));
    expect(comparison.transfer_rate.verdict).toBe('lower');
    expect(comparison.transfer_rate.high).toBeLessThan(0);
    const data = report('desk');
    const deployed = data.agents[0]!.versions[1]!;
    deployed.comparison = { ...deployed.comparison!, transfer_rate: comparison.transfer_rate };
    const line = /transfers ▼ lower \(([^)]*)\)/.exec(renderReportMarkdown(data))?.[1];
    expect(line).toMatch(/^−\d+\.\d pts to −0\.0*[1-9]\d* pts$/);
    // A bound within six decimals of zero keeps its value in the report, and its side of zero in print.
    const credits = (values: number[]) => {
      const metrics = new MetricsAccumulator();
      values.forEach((credit, i) => metrics.add({ call_status: 'user-ended', cost_breakdown: [{ credit }] } as never, i));
      return metrics;
    };
    const spread = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 0.9 : 1.1));
    const halfWidth = compareVersions(credits(Array(30).fill(1)), 'before', credits(spread)).mean_credits_per_call.high!;
    const justBelow = compareVersions(credits(Array(30).fill(1 - halfWidth - 1e-8)), 'before', credits(spread)).mean_credits_per_call;
    expect(justBelow.verdict).toBe('lower');
    expect(justBelow.high).toBeLessThan(0);
    deployed.comparison.transfer_rate = { difference: -0.06, low: -0.19, high: -0.000_000_3, verdict: 'lower' };
    expect(renderReportMarkdown(data)).toContain('transfers ▼ lower (−19.0 pts to −0.00003 pts)');
  });
});

describe('the window line', () => {
  it.each([
    [1, 'versions with fewer than 1 call are not compared'],
    [1000, 'versions with fewer than 1,000 calls are not compared'],
  ])('counts the calls a version needs as every count is said (min_calls %d)', (minCalls, sentence) => {
    const data = { ...report('desk'), min_calls: minCalls };
    expect(renderReportHtml(data)).toContain(sentence);
    expect(renderReportMarkdown(data)).toContain(sentence);
  });
});

describe('HTML', () => {
  it('escapes every value and allows no network in its policy', () => {
    expect(escapeHtml(`<script>"'&`)).toBe('&#60;script&#62;&#34;&#39;&#38;');
    const html = renderReportHtml(report('<script>window.x=1</script>'));
    expect(html).not.toContain('<script>window.x=1</script>');
    expect(html).toContain('&#60;script&#62;window.x=1&#60;/script&#62;');
    // In the JSON block too: no `<` can end it.
    const data = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    expect(data).not.toContain('<');
    expect((JSON.parse(data) as CallReport).agents[0]?.name).toBe('<script>window.x=1</script>');
    // The policy allows by hash exactly the page's inline scripts.
    const scripts = [...html.matchAll(/<script>(.*?)<\/script>/gs)].map((match) => cspSourceHash(match[1] ?? ''));
    expect(scripts).toHaveLength(3);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${scripts.join(' ')}; style-src 'sha256-`);
  });

  it('puts no control or bidi character in the page raw, in its text or its data: a file written with --out is read by cat and a browser', () => {
    const hostile = 'Desk \u202e(staging)\u001b]52;c;cHduZWQ=\u0007\u009b';
    const html = renderReportHtml(report(hostile));
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/u);
    expect(html).toContain('<h2>Desk \\u202e(staging)\\u001b]52;c;cHduZWQ=\\u0007\\u009b');
    const data = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    expect((JSON.parse(data) as CallReport).agents[0]?.name).toBe('Desk \\u202e(staging)\\u001b]52;c;cHduZWQ=\\u0007\\u009b');
  });

  it('gives the page the rates as the table writes them, for the interval plots', () => {
    const data = report('desk');
    const version = data.agents[0]!.versions[1]!;
    version.metrics = { ...version.metrics, error_rate: { count: 23, of: 80, value: 23 / 80, low: 0.2, high: 0.395 } };
    const html = renderReportHtml(data);
    const labels = JSON.parse(/<script type="application\/json" id="report-labels">(.*?)<\/script>/s.exec(html)?.[1] ?? '[]') as Array<Array<{ rates: Record<string, string> }>>;
    expect(labels[0]?.[1]?.rates).toEqual({ error_rate: '28.8% (20.0%–39.5%)', transfer_rate: '2.5% (0.4%–12.8%)', tool_failure_rate: '33.3% (6.0%–79.0%)' });
    expect(html).toContain('<td>28.8% (20.0%–39.5%)</td>');
  });
});
