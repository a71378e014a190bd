import { describe, expect, it } from 'vitest';
import { QuantileSketch } from '../../src/report/quantiles.js';
import { MIN_CALLS, RunningMoments, meanDifferenceInterval, rateDifferenceInterval, verdictOf, wilsonInterval } from '../../src/report/statistics.js';
import { binSecondsFor, TimeSeries } from '../../src/report/time-series.js';
import { seededRandom } from '../../src/util/seeded-random.js';

const close = (actual: number | undefined, expected: number) => expect(actual).toBeCloseTo(expected, 4);

describe('intervals', () => {
  // Published values: Newcombe (1998), "Two-sided confidence intervals for the single proportion"
  // (method 3) and "Interval estimation for the difference between independent proportions" (method 10).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 10, 0, 0.2775],
    [1, 29, 0.0061, 0.1718],
  ])('Wilson %d/%d is %f to %f', (successes, trials, low, high) => {
    const interval = wilsonInterval(successes, trials);
    close(interval?.low, low);
    close(interval?.high, high);
  });

  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [5, 56, 0, 29, -0.0381, 0.1926],
  ])('Newcombe %d/%d − %d/%d is %f to %f', (a, n, b, m, low, high) => {
    const interval = rateDifferenceInterval({ successes: a, trials: n }, { successes: b, trials: m });
    close(interval?.low, low);
    close(interval?.high, high);
  });

  it('has no interval without trials', () => {
    expect(wilsonInterval(0, 0)).toBeUndefined();
    expect(rateDifferenceInterval({ successes: 1, trials: 2 }, { successes: 0, trials: 0 })).toBeUndefined();
  });

  it('claims a difference only when the interval excludes zero, and never below the minimum', () => {
    expect(verdictOf({ low: 0.01, high: 0.2 }, true)).toBe('higher');
    expect(verdictOf({ low: -0.2, high: -0.01 }, true)).toBe('lower');
    expect(verdictOf({ low: -0.01, high: 0.2 }, true)).toBe('no clear difference');
    expect(verdictOf({ low: 0.5, high: 0.9 }, false)).toBe('not enough calls');
    expect(MIN_CALLS).toBe(30);
  });

  it('the mean difference interval follows Welch with the normal quantile', () => {
    const a = new RunningMoments();
    const b = new RunningMoments();
    for (const value of [10, 12, 14, 16, 18]) a.add(value);
    for (const value of [1, 2, 3, 4, 5]) b.add(value);
    expect(a.mean).toBe(14);
    expect(a.variance).toBe(10);
    expect(b.variance).toBe(2.5);
    const interval = meanDifferenceInterval(a, b);
    const half = 1.959964 * Math.sqrt(10 / 5 + 2.5 / 5);
    close(interval?.low, 11 - half);
    close(interval?.high, 11 + half);
  });
});

describe('QuantileSketch', () => {
  it('is exact for few values (nearest rank)', () => {
    const sketch = new QuantileSketch();
    for (const value of [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]) sketch.add(value);
    expect(sketch.quantile(0.5)).toBe(5);
    expect(sketch.quantile(0.9)).toBe(9);
    expect(sketch.isExact).toBe(true);
    expect(new QuantileSketch().quantile(0.5)).toBeNull();
  });

  it('stays within 0.5% of the exact quantile over many values, in bounded bins', () => {
    const random = seededRandom(7);
    const sketch = new QuantileSketch();
    const all: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      const value = Math.exp(random() * 8) / 10; // 0.1 s to 5 min, log-uniform
      sketch.add(value);
      all.push(value);
    }
    all.sort((a, b) => a - b);
    expect(sketch.isExact).toBe(false);
    for (const q of [0.5, 0.9]) {
      const exact = all[Math.ceil(q * all.length) - 1] as number;
      expect(Math.abs((sketch.quantile(q) as number) - exact) / exact).toBeLessThan(0.005);
    }
  });
});

describe('TimeSeries', () => {
  it('counts calls per bin, with empty bins between', () => {
    const series = new TimeSeries();
    series.add(120, 'completed');
    series.add(150, 'error');
    series.add(300, 'completed');
    series.widenTo(60);
    expect(series.binSeconds).toBe(60);
    expect(series.points().map((p) => [p.start, p.calls, p.outcomes.error])).toEqual([
      [120, 2, 1],
      [180, 0, 0],
      [240, 0, 0],
      [300, 1, 0],
    ]);
  });

  it('coarsens when the range needs too many bins, keeping every call', () => {
    const series = new TimeSeries();
    const day = 86_400;
    for (let i = 0; i < 30 * 24; i++) series.add(1_700_000_000 - i * 3600, i % 2 === 0 ? 'completed' : 'timeout');
    const points = series.points();
    expect(points.length).toBeLessThanOrEqual(400);
    expect(series.binSeconds).toBeGreaterThanOrEqual(3 * 3600);
    expect(series.binSeconds).toBeLessThanOrEqual(day);
    expect(points.reduce((sum, p) => sum + p.calls, 0)).toBe(720);
    expect(points.reduce((sum, p) => sum + p.outcomes.timeout, 0)).toBe(360);
  });
});

describe('TimeSeries widened to the width a chart\'s bins need', () => {
  it('merges bins for the chart until at most that many remain', () => {
    const series = new TimeSeries();
    for (let i = 0; i < 96; i++) series.add(1_700_000_000 + i * 1800, 'completed');
    expect(series.points().length).toBeGreaterThan(120);
    series.widenTo(binSecondsFor(95 * 1800, 120));
    const points = series.points();
    expect(points.length).toBeLessThanOrEqual(120);
    expect(points.reduce((sum, p) => sum + p.calls, 0)).toBe(96);
  });
});

describe('TimeSeries, bins chosen from the data', () => {
  it('spreads calls made within seconds of each other over sub-second bins', () => {
    const series = new TimeSeries();
    // Three seconds of traffic right after a deploy: a fixed minute would put every call in one bin.
    for (let i = 0; i < 300; i++) series.add(1_764_358_939.304 + i * 0.01, 'completed');
    series.widenTo(binSecondsFor(299 * 0.01, 80));
    expect(series.binSeconds).toBe(0.05);
    expect(series.points().length).toBeGreaterThan(50);
    expect(series.points()[0]?.start).toBeCloseTo(1_764_358_939.3, 6);
    expect(series.points().reduce((sum, p) => sum + p.calls, 0)).toBe(300);
  });

  it('picks the narrowest ladder width that shows a span in the chart\'s bins', () => {
    expect(binSecondsFor(3, 80)).toBe(0.05);
    expect(binSecondsFor(3, 80, 1)).toBe(1);
    expect(binSecondsFor(86_400, 80)).toBe(3600);
    expect(binSecondsFor(0, 80)).toBe(0.001);
  });
});
