/// <reference lib="dom" />
/**
 * The README's walk-through, run for real in a copy of the example (apply, the example's
 * conversation tests, traffic, a prompt line appended, apply, traffic, `report --format html`), and
 * the page it makes opened in headless Chromium at a desktop width (1280 px) and a phone's (390 px).
 * Read from the rendered page — the chart's pixels and the markers' positions, not the report's
 * data: each version's bars lie after its own deploy marker and before the next one; the cursor's
 * tooltip stays inside the plot and each deploy popup inside the chart, both inside the viewport; no
 * placeholder legend; nothing wider than the viewport but the table's own scroll box; the tests'
 * calls left out. The screenshots are kept in test-artifacts/report-1280.png and report-390.png.
 */
import { appendFile, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCliInProcess } from '../helpers/cli.js';
import { initRepository } from '../helpers/git.js';
import { drawnPositions, launchBrowser } from './browser.js';

let browser: Browser;
let dir: string;
let project: string;

async function voxform(...args: string[]): Promise<string> {
  const result = await runCliInProcess(args, { cwd: project });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-walkthrough-'));
  project = path.join(dir, 'project');
  await mkdir(project);
  await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(project, 'agents.example.yaml'));
  await cp(path.join(repoRoot, 'example'), path.join(project, 'example'), { recursive: true });
  initRepository(project, 'the example');
  // The README's steps, as written there.
  const traffic = ['emulator', 'traffic', '-f', 'agents.example.yaml', '--local', '--profile', 'volatile', '--agent', 'front-desk', '--seed', '1'];
  await voxform('apply', '-f', 'agents.example.yaml', '--local', '--auto-approve');
  // The example's conversation tests, as "Try it" suggests: test traffic the report leaves out.
  await voxform('test', 'example/tests', '-f', 'agents.example.yaml', '--local');
  await voxform(...traffic);
  await appendFile(path.join(project, 'example/prompts/front-desk.md'), "Always confirm the caller's name before ending the call.\n");
  await voxform('apply', '-f', 'agents.example.yaml', '--local', '--auto-approve');
  await voxform(...traffic);
  await voxform('report', '-f', 'agents.example.yaml', '--local', '--since', '1h', '--format', 'html', '--out', 'report.html');
  browser = await launchBrowser(path.join(dir, 'profile'));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function inside(inner: { left: number; right: number; top: number; bottom: number }, outer: { left: number; right: number; top: number; bottom: number }): boolean {
  return inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
}

const rectOf = (node: Element) => {
  const r = node.getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
};

describe('the walk-through report in headless Chromium', () => {
  for (const width of [1280, 390]) {
    it(`draws each version's calls after its deploy, tooltips inside the chart, at ${width} px`, async () => {
      const page = await browser.newPage();
      await page.setViewport({ width, height: 900 });
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warn') problems.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
      await page.goto(pathToFileURL(path.join(project, 'report.html')).href, { waitUntil: 'load' });
      await page.waitForSelector('body[data-charts-ready="1"]');

      // The conversation tests' calls are labelled and left out: the chart holds the traffic's 800.
      expect(await page.$eval('.test-traffic', (p) => p.textContent)).toMatch(/^\d+ test calls? \(made by voxform test or voxform chat\) left out of every figure/);
      expect(await page.$eval('h2', (h) => h.textContent)).toContain('front-desk · 800 calls (');

      const drawn = await drawnPositions(page, 0);
      expect(drawn.versions.map((v) => v.label)).toEqual(['v1', 'v2']);
      drawn.versions.forEach((version, i) => {
        expect(version.firstBar, `${version.label}'s bars start after its marker`).toBeGreaterThanOrEqual(version.marker - 1);
        const next = drawn.versions[i + 1];
        if (next) expect(version.lastBar, `${version.label}'s bars end before the next marker`).toBeLessThanOrEqual(next.marker + 1);
        // The traffic spreads a version's calls from its deploy to the traffic run, a share of its band
        // that the machine's pace sets (the next apply's time is in the band too): not one point.
        const bandEnd = next ? next.marker : drawn.plot.right;
        expect(version.lastBar - version.firstBar, `${version.label}'s calls are spread over its band, not one point`).toBeGreaterThan((bandEnd - version.marker) / 10);
      });
      // The versions are apart: the second marker is right of the first.
      expect((drawn.versions[1]?.marker as number) - (drawn.versions[0]?.marker as number)).toBeGreaterThan(20);

      // Bands are labelled with the version, its commit and who deployed (in the legend at every width).
      const legend = await page.$$eval('#legend-0 li', (items) => items.map((item) => item.textContent ?? ''));
      expect(legend[0]).toMatch(/^v1 [0-9a-f]{7} (with uncommitted changes )?· by \S+ · deployed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · 400 calls$/);
      expect(legend.join('\n')).not.toMatch(/--/);
      expect(await page.$('.u-legend')).toBeNull();

      // The rates are drawn as intervals: a line from the low to the high end with the estimate on it.
      const intervals = await page.$$eval('#rates-0 .rate-row', (rows) =>
        rows.map((row) => {
          const line = (row.querySelector('.interval') as SVGLineElement).getBoundingClientRect();
          const dot = (row.querySelector('.estimate') as SVGCircleElement).getBoundingClientRect();
          return { width: line.width, dot: dot.left + dot.width / 2, from: line.left, to: line.right };
        }),
      );
      expect(intervals.length).toBeGreaterThanOrEqual(4);
      for (const interval of intervals) {
        expect(interval.width).toBeGreaterThan(2);
        expect(interval.dot).toBeGreaterThanOrEqual(interval.from - 1);
        expect(interval.dot).toBeLessThanOrEqual(interval.to + 1);
      }

      const viewport = { left: 0, top: 0, right: width, bottom: 900 };
      await page.evaluate(() => window.scrollTo(0, 0));
      const plot = await page.$eval('#chart-0 .u-over', rectOf);
      const chart = await page.$eval('#chart-0 .uplot', rectOf);
      // The tooltip, at the left edge, the middle and the right edge of the plot.
      for (const at of [0.01, 0.5, 0.99]) {
        await page.mouse.move(plot.left + plot.width * at, plot.top + 20);
        const tip = await page.$eval('#chart-0 .chart-tip', (node) => ({ shown: getComputedStyle(node).display !== 'none', rect: (node as HTMLElement).getBoundingClientRect().toJSON() as DOMRect }));
        if (!tip.shown) continue;
        expect(inside(tip.rect, plot), `tooltip at ${at} inside the plot`).toBe(true);
        expect(inside(tip.rect, viewport), `tooltip at ${at} inside the viewport`).toBe(true);
      }
      await page.mouse.move(plot.left + plot.width * 0.3, plot.top + plot.width * 0);
      // Each deploy popup, opened by hover, inside the plot and the viewport.
      const markers = await page.$$('#chart-0 .deploy-marker');
      expect(markers).toHaveLength(2);
      for (const marker of markers) {
        await marker.hover();
        const popup = await page.$eval('#chart-0 .deploy-marker.open .deploy-popup', (node) => ({ text: node.textContent ?? '', rect: node.getBoundingClientRect().toJSON() as DOMRect }));
        expect(popup.text).toMatch(/Commit [0-9a-f]{40}( with uncommitted changes)? on main/);
        expect(popup.text).toMatch(/By \S+/);
        expect(inside(popup.rect, chart), 'popup inside the chart').toBe(true);
        expect(inside(popup.rect, viewport), 'popup inside the viewport').toBe(true);
      }
      await page.mouse.move(0, 0);
      // Wherever a deploy falls in the plot (the data decides), its popup opens inside the chart: the
      // first marker moved across the plot, opened by focus at each place.
      const placed = await page.$$eval('#chart-0 .deploy-marker', ([marker], steps) => {
        const node = marker as HTMLElement;
        const width = (node.parentElement as HTMLElement).clientWidth;
        const drawnAt = node.style.left;
        const rects: DOMRect[] = [];
        for (let i = 0; i <= steps; i++) {
          node.style.left = `${(width * i) / steps}px`;
          node.focus();
          rects.push((node.querySelector('.deploy-popup') as HTMLElement).getBoundingClientRect().toJSON() as DOMRect);
          node.blur();
        }
        node.style.left = drawnAt; // the screenshot below shows the marker where the data put it
        return rects;
      }, 40);
      for (const rect of placed) expect(inside(rect, chart), `popup at x=${rect.left} inside the chart`).toBe(true);

      // Nothing but the table's scroll box is wider than the viewport.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await mkdir(path.join(repoRoot, 'test-artifacts'), { recursive: true });
      await page.screenshot({ path: path.join(repoRoot, `test-artifacts/report-${width}.png`), fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    }, 120_000);
  }
});
