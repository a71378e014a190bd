/// <reference lib="dom" />
/**
 * Headless Chromium for the report's browser tests: the system's when installed, else the one
 * @sparticuz/chromium ships inside its npm package (so `npm ci` alone provides it). A browser that
 * cannot start fails the test with the reason.
 */
import { existsSync } from 'node:fs';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The locale Chromium runs in, from its environment: `en_US.UTF-8`, or `C.UTF-8` — a container's or
 * CI's usual default, where Chromium reports `en-US@posix` as the page's language, a tag Intl refuses.
 */
export type BrowserLocale = 'en_US.UTF-8' | 'C.UTF-8';

export async function launchBrowser(userDataDir: string, locale: BrowserLocale = 'en_US.UTF-8'): Promise<Browser> {
  const system = SYSTEM_CHROMIUM.find((file) => existsSync(file));
  let executablePath: string;
  try {
    executablePath = system ?? (await chromium.executablePath());
  } catch (error) {
    throw new Error(`No browser: neither ${SYSTEM_CHROMIUM.join(' nor ')} exists, and @sparticuz/chromium could not unpack its Chromium: ${(error as Error).message}`);
  }
  const args = ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--lang=en-US', `--user-data-dir=${userDataDir}`];
  // LANG alone decides the locale: the variables that would outrank it are left out.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'LANGUAGE' && !name.startsWith('LC_')));
  try {
    return await puppeteer.launch({ executablePath, headless: true, args, userDataDir, env: { ...env, LANG: locale } });
  } catch (error) {
    throw new Error(`Chromium (${executablePath}) did not start: ${(error as Error).message}`);
  }
}

export interface Drawn {
  versions: Array<{ label: string; marker: number; firstBar: number; lastBar: number }>;
  plot: { left: number; right: number };
}

/** Where each version's marker and bars are on screen (CSS pixels), read from the marker elements and the canvas. */
export async function drawnPositions(page: Page, chart: number): Promise<Drawn> {
  return page.$eval(`#chart-${chart}`, (host, index) => {
    const canvas = host.querySelector('canvas') as HTMLCanvasElement;
    const box = canvas.getBoundingClientRect();
    const scale = canvas.width / box.width;
    const pixels = (canvas.getContext('2d') as CanvasRenderingContext2D).getImageData(0, 0, canvas.width, canvas.height).data;
    const over = (host.querySelector('.u-over') as HTMLElement).getBoundingClientRect();
    const swatches = [...document.querySelectorAll(`#legend-${index} li`)].filter((li) => /^v\d+/.test(li.querySelector('strong')?.textContent ?? ''));
    const versions = [...host.querySelectorAll<HTMLElement>('.deploy-marker[data-version]')].map((marker) => {
      const label = marker.getAttribute('data-version') as string;
      const swatch = swatches.find((li) => li.querySelector('strong')?.textContent?.trim() === label)?.querySelector('.swatch') as HTMLElement;
      const [r, g, b] = (getComputedStyle(swatch).backgroundColor.match(/\d+/g) ?? []).map(Number);
      let first = Number.POSITIVE_INFINITY;
      let last = Number.NEGATIVE_INFINITY;
      for (let y = 0; y < canvas.height; y++) {
        for (let x = 0; x < canvas.width; x++) {
          const i = (y * canvas.width + x) * 4;
          if (pixels[i] === r && pixels[i + 1] === g && pixels[i + 2] === b && pixels[i + 3] === 255) {
            first = Math.min(first, x);
            last = Math.max(last, x);
          }
        }
      }
      const m = marker.getBoundingClientRect();
      return { label, marker: m.left + m.width / 2, firstBar: box.left + first / scale, lastBar: box.left + (last + 1) / scale };
    });
    return { versions, plot: { left: over.left, right: over.right } };
  }, chart);
}


/** Per version of the legend, the on-screen columns (CSS pixels, left edges) where its colour is drawn on the chart. */
export async function colourColumns(page: Page, chart: number): Promise<Record<string, number[]>> {
  return page.$eval(`#chart-${chart}`, (host, index) => {
    const canvas = host.querySelector('canvas') as HTMLCanvasElement;
    const box = canvas.getBoundingClientRect();
    const scale = canvas.width / box.width;
    const pixels = (canvas.getContext('2d') as CanvasRenderingContext2D).getImageData(0, 0, canvas.width, canvas.height).data;
    const out: Record<string, number[]> = {};
    for (const li of document.querySelectorAll(`#legend-${index} li`)) {
      const label = li.querySelector('strong')?.textContent?.trim() ?? '';
      if (!/^v\d+$/.test(label)) continue;
      const [r, g, b] = (getComputedStyle(li.querySelector('.swatch') as HTMLElement).backgroundColor.match(/\d+/g) ?? []).map(Number);
      const columns = new Set<number>();
      for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i] === r && pixels[i + 1] === g && pixels[i + 2] === b && pixels[i + 3] === 255) columns.add(((i / 4) % canvas.width));
      }
      out[label] = [...columns].sort((x, y) => x - y).map((x) => box.left + x / scale);
    }
    return out;
  }, chart);
}
