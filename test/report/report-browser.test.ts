/**
 * The HTML report in a real browser: headless Chromium (the system's when installed, else the one
 * @sparticuz/chromium ships inside its npm package, so `npm ci` alone provides it) opens the file
 * from disk. Every chart must have drawn its data and its deploy markers, the popups must show the
 * deploy, nothing may reach the network, no console error may appear, and hostile names from the
 * service or the repository must stay text. A browser that cannot start fails the test with the
 * reason. (The screenshots of a report are taken in report-walkthrough-browser.test.ts.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCallReport } from '../../src/report/build-report.js';
import { diffLinkFromEnv } from '../../src/report/diff-links.js';
import { renderReportHtml } from '../../src/report/render-html.js';
import { colourColumns, drawnPositions, launchBrowser, type Drawn } from './browser.js';
import { agentConfig, callRecord, historyRecord, newestFirst } from './helpers.js';

const HOSTILE = '"><img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>';
const DESK = '-OKagentFrontDesk001';
const BOOKING = `-OKbooking${HOSTILE}`;
const T0 = Date.parse('2026-04-01T08:00:00Z') / 1000;

async function reportHtml(): Promise<string> {
  const v1 = agentConfig('You are the receptionist.');
  const v2 = agentConfig('You are the receptionist. Offer the earliest slot.');
  const history = [
    historyRecord('2026-04-01T08:00:00.000Z', { [DESK]: { name: 'front-desk', config: v1 }, [BOOKING]: { name: `booking${HOSTILE}`, config: v1 } }, { commit: 'a'.repeat(40), pullRequest: 41 }),
    historyRecord('2026-04-02T08:00:00.000Z', { [DESK]: { name: 'front-desk', config: v2 }, [BOOKING]: { name: `booking${HOSTILE}`, config: v2 } }, {
      commit: 'b'.repeat(40),
      pullRequest: 42,
      branch: HOSTILE,
      ciJobUrl: 'javascript:window.__pwned=3',
    }),
  ];
  const calls = [DESK, BOOKING].flatMap((agentId) =>
    Array.from({ length: 96 }, (_, i) =>
      callRecord({ agentId, config: i < 48 ? v1 : v2, ts: T0 + 600 + i * 1800, status: i % 7 === 0 ? 'error' : i % 5 === 0 ? 'voicemail-hangup' : 'user-ended', duration: 40 + (i % 30) }),
    ),
  );
  const report = await buildCallReport({
    calls: [newestFirst(calls)],
    history,
    workspace: 'default@local',
    names: new Map(),
    now: new Date('2026-04-04T00:00:00Z'),
    diffLink: diffLinkFromEnv({ GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/agents' }),
  });
  return renderReportHtml(report);
}

/**
 * Two versions seconds apart, as right after a deploy: the second version's first calls came while
 * its apply was finishing, 150 ms and 40 ms before the apply recorded the deploy.
 */
async function finishingApplyHtml(): Promise<string> {
  const v1 = agentConfig('You are the receptionist.');
  const v2 = agentConfig('You are the receptionist. Offer the earliest slot.');
  const t = Date.parse('2026-04-01T08:00:00Z') / 1000;
  const history = [
    historyRecord('2026-04-01T08:00:00.000Z', { [DESK]: { name: 'front-desk', config: v1 } }, { commit: 'a'.repeat(40) }),
    historyRecord('2026-04-01T08:00:03.000Z', { [DESK]: { name: 'front-desk', config: v2 } }, { commit: 'b'.repeat(40) }),
  ];
  const stamps = [
    ...Array.from({ length: 60 }, (_, i) => ({ config: v1, ts: t + 0.05 + i * 0.04 })),
    { config: v2, ts: t + 2.85 },
    { config: v2, ts: t + 2.96 },
    ...Array.from({ length: 60 }, (_, i) => ({ config: v2, ts: t + 3.02 + i * 0.03 })),
  ];
  const report = await buildCallReport({
    calls: [newestFirst(stamps.map(({ config, ts }, i) => callRecord({ agentId: DESK, config, ts, status: i % 9 === 0 ? 'error' : 'user-ended', duration: 30 })))],
    history,
    workspace: 'default@local',
    names: new Map(),
    now: new Date('2026-04-01T09:00:00Z'),
    diffLink: () => null,
  });
  return renderReportHtml(report);
}

/**
 * A version changed outside voxform and healed: v1 deployed from outside a git checkout (no commit),
 * its calls, an edit on the dashboard and its calls, `drift --heal` putting v1 back (or, without
 * `heal`, v1 put back on the dashboard), v1's calls again.
 */
async function healedHtml(heal = true): Promise<string> {
  const v1 = agentConfig('You are the receptionist.');
  const edited = agentConfig('Edited on the dashboard.');
  const t = Date.parse('2026-04-01T08:00:00Z') / 1000;
  const deploy = historyRecord('2026-04-01T08:00:00.000Z', { [DESK]: { name: 'front-desk', config: v1 } });
  const healRecord = historyRecord('2026-04-01T08:02:13.000Z', { [DESK]: { name: 'front-desk', config: v1 } }, { healOf: [deploy.id] });
  const stamps = [
    ...Array.from({ length: 60 }, (_, i) => ({ config: v1, ts: t + 5 + i })),
    ...Array.from({ length: 60 }, (_, i) => ({ config: edited, ts: t + 70 + i })),
    ...Array.from({ length: 60 }, (_, i) => ({ config: v1, ts: t + 135 + i })),
  ];
  const report = await buildCallReport({
    calls: [newestFirst(stamps.map(({ config, ts }, i) => callRecord({ agentId: DESK, config, ts, status: i % 9 === 0 ? 'error' : 'user-ended', duration: 30 })))],
    history: heal ? [healRecord, deploy] : [deploy],
    workspace: 'default@local',
    names: new Map(),
    now: new Date('2026-04-01T09:00:00Z'),
    diffLink: () => null,
  });
  return renderReportHtml(report);
}

/** Per chart of the page: whether it rendered, its points and deploys, and how many pixels its canvas drew (all, and the deploy lines' colour). */
function drawnCharts(page: Page) {
  return page.$$eval('.chart', (hosts) =>
    hosts.map((host) => {
      const canvas = host.querySelector('canvas');
      const context = canvas?.getContext('2d');
      const pixels = canvas && context ? context.getImageData(0, 0, canvas.width, canvas.height).data : new Uint8ClampedArray();
      let drawn = 0;
      let deployLine = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        if ((pixels[i + 3] as number) > 0) drawn++;
        if (pixels[i] === 0x6c && pixels[i + 1] === 0x34 && pixels[i + 2] === 0x83) deployLine++;
      }
      return {
        rendered: host.getAttribute('data-rendered'),
        points: Number(host.getAttribute('data-points')),
        deploys: Number(host.getAttribute('data-deploys')),
        markers: host.querySelectorAll('.deploy-marker').length,
        drawn,
        deployLine,
      };
    }),
  );
}

function expectEveryChartDrawn(charts: Awaited<ReturnType<typeof drawnCharts>>, count: number): void {
  expect(charts).toHaveLength(count);
  for (const chart of charts) {
    expect(chart.rendered).toBe('true');
    expect(chart.points).toBeGreaterThan(10);
    expect(chart.deploys).toBe(2);
    expect(chart.markers).toBe(2);
    expect(chart.drawn).toBeGreaterThan(1000);
    expect(chart.deployLine).toBeGreaterThan(20);
  }
}

/** A new page that collects console errors and warnings, and page errors. */
async function watchedPage(on: Browser): Promise<{ page: Page; problems: string[] }> {
  const page = await on.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  return { page, problems };
}

let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-report-browser-'));
  browser = await launchBrowser(path.join(dir, 'profile'));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the HTML report in headless Chromium', () => {
  it('draws every chart with its data and deploy markers, offline and without errors', async () => {
    const file = path.join(dir, 'report.html');
    await writeFile(file, await reportHtml());
    const { page, problems } = await watchedPage(browser);
    await page.setViewport({ width: 1280, height: 1400 });
    const network: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) network.push(request.url());
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForSelector('body[data-charts-ready="2"]');

    expectEveryChartDrawn(await drawnCharts(page), 2);

    // The second deploy's popup, shown on hover: its pull request, commit and a link to the diff.
    const markers = await page.$$('.deploy-marker');
    await markers[1]?.hover();
    const popup = await page.$eval('.deploy-marker.open .deploy-popup', (box) => ({
      visible: box.ownerDocument.defaultView?.getComputedStyle(box).display !== 'none',
      text: box.textContent ?? '',
      links: [...box.querySelectorAll('a')].map((a) => a.getAttribute('href')),
    }));
    expect(popup.visible).toBe(true);
    expect(popup.text).toContain('Pull request #42');
    expect(popup.text).toContain(`Commit ${'b'.repeat(40)}`);
    expect(popup.text).toContain('Changed: prompt');
    expect(popup.links).toEqual([`https://github.example/acme/agents/compare/${'a'.repeat(40)}...${'b'.repeat(40)}`]);

    // The interval plots write each rate as the table does.
    const plotted = await page.$$eval('.rate-row', (rows) => rows.map((row) => row.querySelectorAll('text')[1]?.textContent ?? ''));
    const cells = await page.$$eval('td', (tds) => tds.map((td) => td.textContent ?? ''));
    expect(plotted.length).toBeGreaterThan(0);
    for (const text of plotted) expect(cells).toContain(text.replace(/, \d+ of \d+$/, ''));

    // Hostile names stayed text: no script of theirs ran, no element of theirs exists.
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$('img')).toHaveLength(0);
    expect(await page.$eval('h2', (h) => h.textContent)).toContain('booking"><img');

    expect(network).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('writes the time axis and the tooltip in UTC, as the rest of the page, whatever the browser\'s time zone', async () => {
    const file = path.join(dir, 'zones.html');
    await writeFile(file, await reportHtml());
    /** The texts drawn on the canvases, and the tooltip over the first chart, in a browser in `timeZone`. */
    const drawnIn = async (timeZone: string) => {
      const { page, problems } = await watchedPage(browser);
      await page.emulateTimezone(timeZone);
      await page.setViewport({ width: 1280, height: 1400 });
      await page.evaluateOnNewDocument(() => {
        const drawn: string[] = [];
        (globalThis as unknown as { __drawn: string[] }).__drawn = drawn;
        const { fillText } = CanvasRenderingContext2D.prototype;
        CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number) {
          drawn.push(text);
          return fillText.call(this, text, x, y);
        };
      });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      await page.waitForSelector('body[data-charts-ready="2"]');
      const offset = await page.evaluate(() => new Date('2026-04-01T08:00:00Z').getTimezoneOffset());
      const over = await page.$('#chart-0 .u-over');
      const box = await over?.boundingBox();
      // Over v1's calls, clear of the deploy markers (whose popups hide the tooltip).
      await page.mouse.move((box?.x ?? 0) + (box?.width ?? 0) * 0.3, (box?.y ?? 0) + (box?.height ?? 0) / 2);
      const tip = await page.$eval('#chart-0 .chart-tip', (node) => node.textContent ?? '');
      const texts = await page.evaluate(() => (globalThis as unknown as { __drawn: string[] }).__drawn);
      expect(problems).toEqual([]);
      await page.close();
      return { offset, texts, tip };
    };
    const utc = await drawnIn('Etc/UTC');
    const kolkata = await drawnIn('Asia/Kolkata');
    // The emulation took: the page's own clock is five and a half hours ahead of UTC.
    expect([utc.offset, kolkata.offset]).toEqual([0, -330]);
    expect(utc.texts.some((text) => /\d/.test(text))).toBe(true);
    expect(kolkata.texts).toEqual(utc.texts);
    expect(utc.tip).toMatch(/\d\d:\d\d UTC \+ /);
    expect(kolkata.tip).toBe(utc.tip);
  }, 120_000);

  it('says on the page that a chart could not be drawn, and still draws its legend and rate plots', async () => {
    const file = path.join(dir, 'no-chart.html');
    await writeFile(file, await reportHtml());
    const { page, problems } = await watchedPage(browser);
    await page.setViewport({ width: 1280, height: 1400 });
    // A browser whose number formatting fails: the chart library cannot load.
    await page.evaluateOnNewDocument(() => {
      Intl.NumberFormat = function () {
        throw new RangeError('no number formats in this browser');
      } as unknown as typeof Intl.NumberFormat;
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForSelector('body[data-charts-ready="2"]');
    const charts = await page.$$eval('.chart', (hosts) =>
      hosts.map((host) => {
        const notice = host.querySelector<HTMLElement>('.chart-failed');
        return { rendered: host.getAttribute('data-rendered'), canvas: host.querySelectorAll('canvas').length, notice: notice?.innerText ?? '', noticeHeight: notice?.getBoundingClientRect().height ?? 0 };
      }),
    );
    expect(charts).toHaveLength(2);
    for (const chart of charts) {
      expect(chart.rendered).toBe('false');
      expect(chart.notice).toMatch(/^The chart could not be drawn in this browser \(TypeError: uPlot is not a constructor\)\. The table below has every figure\.$/);
      expect(chart.noticeHeight).toBeGreaterThan(10);
    }
    expect(await page.$$('.rate-row')).not.toHaveLength(0);
    expect(await page.$$eval('#legend-0 li', (items) => items.map((item) => item.textContent ?? ''))).toHaveLength(3);
    expect(problems.some((problem) => problem.includes('no number formats in this browser'))).toBe(true);
    await page.close();
  }, 120_000);

  it('draws the calls made while an apply was finishing after their version\'s marker, which says so', async () => {
    const file = path.join(dir, 'finishing.html');
    await writeFile(file, await finishingApplyHtml());
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForSelector('body[data-charts-ready="1"]');
    const drawn = await drawnPositions(page, 0);
    expect(drawn.versions.map((v) => v.label)).toEqual(['v1', 'v2']);
    const [v1, v2] = drawn.versions as [Drawn['versions'][0], Drawn['versions'][0]];
    expect(v1.firstBar).toBeGreaterThanOrEqual(v1.marker - 1);
    expect(v1.lastBar).toBeLessThanOrEqual(v2.marker + 1);
    expect(v2.firstBar).toBeGreaterThanOrEqual(v2.marker - 1);
    await (await page.$('.deploy-marker[data-version="v2"]'))?.hover();
    expect(await page.$eval('.deploy-marker.open .deploy-popup', (box) => box.textContent)).toContain('Live from 08:00:02.850 — its first call, made while the apply was finishing');
    await page.close();
  }, 120_000);

  it('draws a version\'s calls after a heal in a period of their own, from the heal\'s marker', async () => {
    const { page, texts } = await openHealed();
    const heal = await page.$('.deploy-marker[data-heal]');
    expect(heal).not.toBeNull();
    expect(await heal?.evaluate((node) => node.getAttribute('data-version'))).toBe('v1');
    const { healX, canvasLeft } = await page.$eval('#chart-0', (host) => {
      const marker = (host.querySelector('.deploy-marker[data-heal]') as HTMLElement).getBoundingClientRect();
      return { healX: marker.left + marker.width / 2, canvasLeft: (host.querySelector('canvas') as HTMLCanvasElement).getBoundingClientRect().left };
    });
    const columns = await colourColumns(page, 0);
    const v1 = columns.v1 ?? [];
    const v2 = columns.v2 ?? [];
    // v1's calls after the heal are drawn after its marker, v2's all before it.
    expect(v1.filter((x) => x > healX + 1).length).toBeGreaterThan(100);
    expect(v1.filter((x) => x < healX - 1).length).toBeGreaterThan(100);
    expect(v2.length).toBeGreaterThan(100);
    expect(Math.max(...v2)).toBeLessThan(healX);
    // v1's band is labelled again from the heal on: the outside version's band ends there.
    const bandLabels = (await texts()).drawn.filter((drawn) => /^v\d/.test(drawn.text));
    expect(bandLabels.map((drawn) => drawn.text.split(' · ')[0])).toEqual(['v1', 'v2', 'v1']);
    expect((bandLabels[2]?.x ?? 0) + canvasLeft).toBeGreaterThanOrEqual(healX - 1);
    await heal?.hover();
    expect(await page.$eval('.deploy-marker.open .deploy-popup', (box) => box.textContent)).toContain('Put back v1 after a change outside voxform');
    await page.close();
  }, 120_000);

  it('draws a version put back outside voxform in a period of its own from where its calls resume', async () => {
    const { page, texts } = await openHealed(false);
    expect(await page.$$('.deploy-marker')).toHaveLength(1);
    const canvasLeft = await page.$eval('#chart-0 canvas', (canvas) => canvas.getBoundingClientRect().left);
    const bandLabels = (await texts()).drawn.filter((drawn) => /^v\d/.test(drawn.text));
    expect(bandLabels.map((drawn) => drawn.text.split(' · ')[0])).toEqual(['v1', 'v2', 'v1']);
    const columns = await colourColumns(page, 0);
    const back = (bandLabels[2]?.x ?? 0) + canvasLeft;
    expect(Math.max(...(columns.v2 ?? []))).toBeLessThan(back);
    expect((columns.v1 ?? []).filter((x) => x >= back).length).toBeGreaterThan(100);
    await page.close();
  }, 120_000);

  it('names each version in its band and legend once, by the table\'s rule', async () => {
    const { page, texts } = await openHealed();
    // Every label the bands tried: v1 by its record id (deployed with no commit), v2 as changed outside voxform, once.
    const candidates = (await texts()).measured.filter((text) => /^v\d/.test(text));
    expect(candidates.filter((text) => text.startsWith('v2 · ')).length).toBeGreaterThan(0);
    for (const text of candidates) {
      if (text.startsWith('v1 · ')) expect(text).toMatch(/^v1 · \d{8}T\d{6}Z-\d{6}( · by dev@laptop)?$/);
      if (text.startsWith('v2 · ')) expect(text).toMatch(/^v2 · changed outside voxform \([0-9a-f]{12}\)$/);
    }
    const legend = await page.$$eval('#legend-0 li', (items) => items.map((item) => item.textContent ?? ''));
    expect(legend[0]).toMatch(/^v1 \d{8}T\d{6}Z-\d{6} · by dev@laptop · deployed 2026-04-01 08:00:00 UTC · 120 calls$/);
    expect(legend[1]).toMatch(/^v2 changed outside voxform \([0-9a-f]{12}\) · 60 calls$/);
    await page.close();
  }, 120_000);
});

describe('the HTML report in headless Chromium in a C/POSIX locale', () => {
  let posixBrowser: Browser;

  beforeAll(async () => {
    posixBrowser = await launchBrowser(path.join(dir, 'posix-profile'), 'C.UTF-8');
  }, 120_000);

  afterAll(async () => {
    await posixBrowser?.close();
  });

  it('draws every chart and rate plot, though the browser reports a language Intl refuses', async () => {
    const { page, problems } = await watchedPage(posixBrowser);
    // The condition itself, on a blank page: Chromium's language here is one Intl throws on.
    const language = await page.evaluate(() => {
      try {
        new Intl.NumberFormat(navigator.language);
        return { tag: navigator.language, refused: false };
      } catch {
        return { tag: navigator.language, refused: true };
      }
    });
    expect(language).toEqual({ tag: 'en-US@posix', refused: true });
    const file = path.join(dir, 'posix.html');
    await writeFile(file, await reportHtml());
    await page.setViewport({ width: 1280, height: 1400 });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForSelector('body[data-charts-ready="2"]');
    expectEveryChartDrawn(await drawnCharts(page), 2);
    expect(await page.$$('.rate-row')).not.toHaveLength(0);
    expect(await page.$$('.chart-failed')).toHaveLength(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});

interface CanvasTexts {
  measured: string[];
  drawn: Array<{ text: string; x: number }>;
}

/** The healed report opened at 1280 px, and the texts its chart measured and drew on the canvas (x in CSS pixels from the canvas's left). */
async function openHealed(heal = true): Promise<{ page: Page; texts: () => Promise<CanvasTexts> }> {
  const file = path.join(dir, heal ? 'healed.html' : 'put-back.html');
  await writeFile(file, await healedHtml(heal));
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.evaluateOnNewDocument(() => {
    const seen: CanvasTexts = { measured: [], drawn: [] };
    (globalThis as unknown as { __canvasTexts: CanvasTexts }).__canvasTexts = seen;
    const { fillText, measureText } = CanvasRenderingContext2D.prototype;
    CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number) {
      seen.drawn.push({ text, x: x / devicePixelRatio });
      return fillText.call(this, text, x, y);
    };
    CanvasRenderingContext2D.prototype.measureText = function (text: string) {
      seen.measured.push(text);
      return measureText.call(this, text);
    };
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForSelector('body[data-charts-ready="1"]');
  return { page, texts: () => page.evaluate(() => (globalThis as unknown as { __canvasTexts: CanvasTexts }).__canvasTexts) };
}
