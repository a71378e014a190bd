import { describe, expect, it } from 'vitest';
import {
  placePath,
  dottedLeaves,
  FieldPattern,
  formatDotted,
  formatIndexed,
  isDottedAtOrUnder,
  joinDotted,
  parseDotted,
  PatternSet,
  setAtPath,
  valueAtPath,
} from '../../src/util/field-path.js';

describe('the written forms of a field path', () => {
  it('parses and formats the dotted form of plans and state', () => {
    expect(parseDotted('config.flow.response_delay')).toEqual(['config', 'flow', 'response_delay']);
    expect(parseDotted('')).toEqual([]);
    expect(formatDotted(['config', 'tools', 0, 'header'])).toBe('config.tools.0.header');
    expect(formatDotted(parseDotted('config.voice.speed'))).toBe('config.voice.speed');
    expect(joinDotted('config', 'voice', 'speed')).toBe('config.voice.speed');
    expect(joinDotted('', 'name')).toBe('name');
    expect(joinDotted('config')).toBe('config');
    // An empty property name is a segment of its own, not the prefix.
    expect(joinDotted('config.keywords', '')).toBe('config.keywords.');
    expect(parseDotted(joinDotted('config.keywords', ''))).toEqual(['config', 'keywords', '']);
    expect(dottedLeaves({ keywords: { '': 1, other: 2 } }, 'config')).toEqual(new Map([['config.keywords.', 1], ['config.keywords.other', 2]]));
  });

  it('formats the indexed form of diagnostics', () => {
    expect(formatIndexed(['tools', 0, 'header', 'x-token'])).toBe('tools[0].header.x-token');
    expect(formatIndexed([0, 'a'])).toBe('[0].a');
    expect(formatIndexed([])).toBe('');
  });

  it('tells whether a path is at or under another', () => {
    expect(isDottedAtOrUnder('config.voice.speed', 'config.voice')).toBe(true);
    expect(isDottedAtOrUnder('config.voiceover', 'config.voice')).toBe(false);
  });
});

describe('a place as the ledger writes it', () => {
  it('reads its digit steps as list indexes, and a key that only looks numeric as text', () => {
    expect(placePath('config.tools.0.header')).toEqual(['config', 'tools', 0, 'header']);
    expect(placePath('config.x.01.y')).toEqual(['config', 'x', '01', 'y']);
    expect(placePath('config.voice.settings.api\\.key')).toEqual(['config', 'voice', 'settings', 'api.key']);
  });
});

describe('values at paths', () => {
  const value = { config: { tools: [{ header: { 'x-token': 't' } }], voice: { speed: 1 } } };

  it('reads objects by name and arrays only by a numeric segment', () => {
    expect(valueAtPath(value, ['config', 'voice', 'speed'])).toBe(1);
    expect(valueAtPath(value, ['config', 'tools', 0, 'header', 'x-token'])).toBe('t');
    expect(valueAtPath(value, ['config', 'tools', '0'])).toBeUndefined();
    expect(valueAtPath(value, ['config', 'missing', 'deeper'])).toBeUndefined();
    expect(valueAtPath(value, ['config', 'voice', 'toString'])).toBeUndefined();
    expect(valueAtPath(value, [])).toBe(value);
  });

  it('sets deep values, creating parents, and deletes with undefined', () => {
    const target: Record<string, unknown> = { a: 'scalar' };
    setAtPath(target, ['a', 'b', 'c'], 1);
    expect(target).toEqual({ a: { b: { c: 1 } } });
    setAtPath(target, ['a', 'b', 'c'], undefined);
    expect(target).toEqual({ a: { b: {} } });
  });

  it('lists the leaves of an object by dotted path (lists and null are leaves)', () => {
    const leaves = dottedLeaves({ voice: { speed: 1, id: null }, tools: [{ a: 1 }] }, 'config');
    expect([...leaves]).toEqual([
      ['config.voice.speed', 1],
      ['config.voice.id', null],
      ['config.tools', [{ a: 1 }]],
    ]);
  });
});

describe('field patterns', () => {
  it('match `[]` only array indexes, `*` only property names, literals as text', () => {
    const header = FieldPattern.parse('tools[].header');
    expect(header.covers(['tools', 0, 'header'])).toBe(true);
    expect(header.covers(['tools', 0, 'header', 'x-token'])).toBe(true);
    expect(header.matches(['tools', 0, 'header', 'x-token'])).toBe(false);
    expect(header.matches(['tools', 3, 'header'])).toBe(true);
    expect(header.covers(['tools', 'a', 'header'])).toBe(false);
    expect(header.covers(['tools'])).toBe(false);
    const anyAgent = FieldPattern.parse('agents.*.config');
    expect(anyAgent.covers(['agents', 'desk', 'config', 'voice'])).toBe(true);
    expect(anyAgent.covers(['agents', 0, 'config'])).toBe(false);
    expect(FieldPattern.parse('tools.0.header').covers(['tools', 0, 'header'])).toBe(true);
  });

  it('parse nested lists', () => {
    expect(FieldPattern.parse('[]').covers([2])).toBe(true);
    expect(FieldPattern.parse('grid[][]').matches(['grid', 0, 1])).toBe(true);
  });

  it('find the places they name in a value', () => {
    const config = { tools: [{ header: { a: '1' } }, { name: 'no header' }, { header: 'h' }], session: { headers: { b: '2' } } };
    expect(FieldPattern.parse('tools[].header').placesIn(config)).toEqual([
      { path: ['tools', 0, 'header'], value: { a: '1' } },
      { path: ['tools', 2, 'header'], value: 'h' },
    ]);
    expect(FieldPattern.parse('session.*').placesIn(config).map((p) => p.path)).toEqual([['session', 'headers']]);
    expect(FieldPattern.parse('missing[].x').placesIn(config)).toEqual([]);
  });
});

describe('pattern sets', () => {
  const set = new PatternSet(['config.tools[].header', 'config.session_data_webhook.headers', 'config.tools.1.webhook', 'phones.*.import.api_key']);

  it('cover a path at or under any of their patterns', () => {
    expect(set.covers(['config', 'tools', 0, 'header'])).toBe(true);
    expect(set.covers(['config', 'tools', 1, 'webhook', 'url'])).toBe(true);
    expect(set.covers(['config', 'tools', 0, 'webhook'])).toBe(false);
    expect(set.covers(['config', 'session_data_webhook', 'headers', 'x'])).toBe(true);
    expect(set.covers(['config', 'session_data_webhook', 'url'])).toBe(false);
    expect(set.covers(['phones', '+15551230001', 'import', 'api_key'])).toBe(true);
    expect(set.covers(['config'])).toBe(false);
  });

  it('match exactly only the places themselves', () => {
    expect(set.matches(['config', 'tools', 4, 'header'])).toBe(true);
    expect(set.matches(['config', 'tools', 4, 'header', 'x'])).toBe(false);
  });

  it('follow a walk one segment at a time with a cursor', () => {
    const at = set.start().step('config').step('tools');
    expect(at.covered).toBe(false);
    expect(at.open).toBe(true);
    expect(at.step(0).step('header').covered).toBe(true);
    expect(at.step(0).step('header').step('anything').covered).toBe(true);
    expect(at.step(1).step('webhook').covered).toBe(true);
    expect(at.step(0).step('name').open).toBe(false);
    expect(set.start().step('campaigns').open).toBe(false);
  });

  it('give the cursor at a dotted path, the one a walk reaches', () => {
    for (const dotted of ['config.tools.0.header', 'config.tools', 'config.prompt', formatDotted(['config', 'session_data_webhook', 'headers', 'x.y']), 'campaigns']) {
      let walked = set.start();
      for (const segment of parseDotted(dotted)) walked = walked.step(segment);
      const at = set.cursorAt(dotted);
      expect({ covered: at.covered, open: at.open }).toEqual({ covered: walked.covered, open: walked.open });
    }
    expect(set.cursorAt('config.session_data_webhook.headers.x').covered).toBe(true);
    expect(set.cursorAt('config.voice').open).toBe(false);
  });

  it('cover nothing when empty, and everything with an empty pattern', () => {
    expect(new PatternSet([]).covers(['a'])).toBe(false);
    expect(new PatternSet(['']).covers(['a', 1])).toBe(true);
  });
});

describe('property names holding the characters of the written forms', () => {
  it('are escaped in the dotted form and read back as the same segments', () => {
    const path = ['config', 'voice', 'settings', 'api.key', 'a\\b', '*', 'x[]'];
    const dotted = formatDotted(path);
    expect(dotted).toBe('config.voice.settings.api\\.key.a\\\\b.\\*.x\\[\\]');
    expect(parseDotted(dotted)).toEqual(path);
    expect(joinDotted('config.voice', 'settings', 'api.key')).toBe('config.voice.settings.api\\.key');
    expect(formatDotted(['config', 'voice', 'speed'])).toBe('config.voice.speed');
  });

  it('are literal in patterns written that way', () => {
    const pattern = FieldPattern.exact(['config', 'voice', 'settings', 'api.key']);
    expect(pattern.covers(['config', 'voice', 'settings', 'api.key'])).toBe(true);
    expect(pattern.covers(['config', 'voice', 'settings', 'api', 'key'])).toBe(false);
    expect(FieldPattern.parse('a.\\*').covers(['a', 'other'])).toBe(false);
    expect(FieldPattern.parse('a.\\*').covers(['a', '*'])).toBe(true);
    expect(new PatternSet([formatDotted(['h', 'x.y'])]).covers(['h', 'x.y', 'deeper'])).toBe(true);
  });

  it('stay one leaf each when an object is flattened', () => {
    const leaves = dottedLeaves({ settings: { 'api.key': 'k' } }, 'config.voice');
    expect([...leaves.keys()]).toEqual(['config.voice.settings.api\\.key']);
    expect(valueAtPath({ config: { voice: { settings: { 'api.key': 'k' } } } }, parseDotted([...leaves.keys()][0]!))).toBe('k');
  });
});

describe('setAtPath with a path that is data', () => {
  it('writes a `__proto__` segment as an own key, never into Object.prototype', () => {
    const target = {};
    setAtPath(target, ['voice', 'settings', '__proto__', 'out'], '/elsewhere/plan.json');
    expect(({} as Record<string, unknown>).out).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'out')).toBe(false);
    expect(JSON.parse(JSON.stringify(target))).toEqual({ voice: { settings: { ['__proto__']: { out: '/elsewhere/plan.json' } } } });
    setAtPath(target, ['__proto__'], 'x');
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.hasOwn(target, '__proto__')).toBe(true);
  });

  it('deletes only own keys', () => {
    const target = { a: 1 };
    setAtPath(target, ['toString'], undefined);
    expect(typeof target.toString).toBe('function');
    setAtPath(target, ['a'], undefined);
    expect(target).toEqual({});
  });
});
