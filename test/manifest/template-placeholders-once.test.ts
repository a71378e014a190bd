/**
 * A text's placeholders are found in one pass over it, however many names it holds: listing its
 * names searched the list so far for each one, each name was looked for among the template's
 * declared names, and placing each unknown one compiled a pattern for it and scanned the written
 * text again. The work is counted as the elements `Array.prototype.includes` searches and the
 * characters the patterns compiled during a load (`new RegExp`) scan.
 */
import { describe, expect, it } from 'vitest';
import { variablesIn } from '../../src/templates/substitute.js';
import { loadTree, summarize } from './helpers.js';

/** Runs `work` with the elements `Array.prototype.includes` searches counted, and puts it back. */
async function searching<T>(work: () => T | Promise<T>): Promise<{ result: T; searched: number }> {
  const original = Array.prototype.includes;
  let searched = 0;
  Array.prototype.includes = function (this: unknown[], ...args: Parameters<typeof original>) {
    searched += this.length;
    return original.apply(this, args);
  };
  try {
    return { result: await work(), searched };
  } finally {
    Array.prototype.includes = original;
  }
}

/**
 * Runs `work` with the characters scanned by each pattern it compiles counted: each is given an
 * `exec` of its own that counts, so the built-in patterns are left alone. Puts RegExp back.
 */
async function scanning<T>(work: () => Promise<T>): Promise<{ result: T; scanned: number }> {
  const original = globalThis.RegExp;
  let scanned = 0;
  globalThis.RegExp = new Proxy(original, {
    construct(target, args: [string | RegExp, string?], newTarget) {
      const pattern = Reflect.construct(target, args, newTarget) as RegExp;
      const exec = pattern.exec;
      pattern.exec = function (this: RegExp, text: string) {
        const from = this.global || this.sticky ? this.lastIndex : 0;
        const match = exec.call(this, text);
        scanned += (match ? match.index + match[0].length : text.length) - from;
        return match;
      };
      return pattern;
    },
  });
  try {
    return { result: await work(), scanned };
  } finally {
    globalThis.RegExp = original;
  }
}

const placeholders = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `{{${prefix}${i}}}`);

describe('placeholders are found in one pass over a text', () => {
  it('variablesIn lists 3,000 distinct names in order of first use without searching the list for each', async () => {
    const names = Array.from({ length: 3_000 }, (_, i) => `u${i}`);
    const text = `${placeholders('u', names.length).join(' ')} {{ u0 }} {{u1}}`;
    const { result, searched } = await searching(() => variablesIn(text));
    expect(result).toEqual(names);
    // Searching the names so far for each: about 3,000² / 2 elements.
    expect(searched).toBeLessThan(50 * names.length);
  });

  it('900 undeclared placeholders in one value are each reported where first written, the value scanned once', async () => {
    const count = 900;
    const written = [...placeholders('u', count), '{{ u0 }}'].join(' ');
    const line = `    config: { first_message: "${written}" }`;
    const manifest = `agents:\n  front-desk:\n    id: ag_1\n    template: desk\n${line}\n`;
    const template = 'description: A desk.\nvariables: {}\nagent:\n  name: Desk\n';
    const { result, scanned } = await scanning(() => loadTree({ 'voxform.yaml': manifest, 'templates/desk/template.yaml': template }, { templatesDir: 'templates' }));
    const reports = summarize(result);
    // A name used again is reported where it is first written: the same report, kept once.
    expect(reports).toHaveLength(count);
    const column = (name: string) => line.indexOf(`{{${name}}}`) + 1;
    expect(reports[0]).toBe(`voxform.yaml:5:${column('u0')} template_var_undeclared {{u0}} is not a variable of template "desk"`);
    expect(reports[count - 1]).toBe(`voxform.yaml:5:${column(`u${count - 1}`)} template_var_undeclared {{u${count - 1}}} is not a variable of template "desk"`);
    // A pattern compiled for each placeholder scans the value up to it: about 900 × 8,000 / 2 characters.
    expect(scanned).toBeLessThan(50 * written.length);
  });

  it('2,000 required variables left unset and used in one template value: each is known as declared without a search', async () => {
    const count = 2_000;
    const variables = Array.from({ length: count }, (_, i) => `  v${i}: { description: d, required: true }`).join('\n');
    const template = `description: A desk.\nvariables:\n${variables}\nagent:\n  name: Desk\n  config:\n    first_message: "${placeholders('v', count).join(' ')}"\n`;
    const manifest = 'agents:\n  front-desk:\n    id: ag_1\n    template: desk\n';
    const { result, searched } = await searching(() => loadTree({ 'voxform.yaml': manifest, 'templates/desk/template.yaml': template }, { templatesDir: 'templates' }));
    const reports = summarize(result);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^voxform\.yaml:4:15 template_var_missing template "desk" needs variables "v0" \(d\), "v1" \(d\), /);
    // The declared names searched for each placeholder, and the value's names for each: about 2 × 2,000² / 2 elements.
    expect(searched).toBeLessThan(50 * count);
  });
});
