/**
 * The last scrub searches for a secret in every form a renderer writes it in (docs/security.md §5):
 * a line diff shows a value of several lines a line at a time, a plan's diff line shows an invisible
 * or C1 character as `?`, and the Markdown escapers write `_` as `\_`. The renderers change the text
 * before the scrub reads it, so each changed form is one the scrub knows.
 */
import { structuredPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { MIN_SEARCHABLE_SECRET, REDACTED, SecretRegistry } from '../../src/secrets/redact.js';
import { markdownHtmlText, markdownText } from '../../src/util/markdown-escape.js';
import { controlsAsQuestionMarks, lineAsShown, printable, toJsonText } from '../../src/util/printable.js';

function registryOf(secret: string): SecretRegistry {
  const registry = new SecretRegistry();
  registry.add(secret);
  return registry;
}

/** The lines a line diff of `before` → `after` prints, each scrubbed on its own, as every printed line is. */
function diffLinesScrubbed(registry: SecretRegistry, before: string, after: string): string[] {
  const patch = structuredPatch('a', 'b', before, after);
  return patch.hunks.flatMap((hunk) => hunk.lines).map((line) => registry.redact(lineAsShown(line)));
}

describe('a secret holding line breaks', () => {
  it("searches each line without its indentation: a pretty-printed credential's brackets hide nothing else", () => {
    const registry = registryOf('{\n    "client": {\n        "id": "abc-123456"\n    },\n    "key": "zzz-999999"\n}');
    const other = JSON.stringify({ resources: [{ a: { b: 1 }, c: 2 }] }, null, 2);
    expect(registry.redact(other)).toBe(other);
    expect(registry.redact('id: "id": "abc-123456"')).toBe(`id: ${REDACTED}`);
  });

  it.each([
    ['a line feed', 'firsthalf-secret-AAAA\nsecondhalf-secret-BBBB'],
    ['CR LF', 'firsthalf-secret-AAAA\r\nsecondhalf-secret-BBBB'],
    ['a line feed, a line holding a zero-width joiner', 'firsthalf\u200dsecret-AAAA\nsecondhalf-secret-BBBB'],
    ['a PEM key', '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----\n'],
  ])('is hidden a line at a time where a line diff shows it so (%s)', (_name, secret) => {
    const registry = registryOf(secret);
    const printed = diffLinesScrubbed(registry, `Hello\nyour code ${secret} bye\nthird\n`, 'Hello\nnew\nthird\n').join('\n');
    for (const line of secret.split(/\r?\n/).filter((part) => part !== '')) expect(printed).not.toContain(lineAsShown(line));
    expect(printed).toContain(REDACTED);
    expect(printed).toContain('Hello');
  });

  it('a line of it shorter than MIN_SEARCHABLE_SECRET is not searched for on its own, as a short value is not', () => {
    const secret = 'long-secret-line\nab';
    expect('ab'.length).toBeLessThan(MIN_SEARCHABLE_SECRET);
    const registry = registryOf(secret);
    expect(registry.redact('-long-secret-line')).toBe(`-${REDACTED}`);
    expect(registry.redact('a cab ride')).toBe('a cab ride');
    expect(registry.redact(`whole: ${secret}`)).toBe(`whole: ${REDACTED}`);
  });
});

describe('a secret holding an invisible or C1 character', () => {
  it.each(['\u200d', '\u200b', '\u00ad', '\u0085', '\u202e', '\u0007'])('is hidden as a diff line and a table show it, each such character a `?` (%j)', (ch) => {
    const secret = `planted-secret${ch}value-123`;
    const registry = registryOf(secret);
    for (const shown of [lineAsShown, controlsAsQuestionMarks, printable]) {
      const printed = registry.redact(shown(`Hello ${secret} bye`));
      expect(printed).toBe(`Hello ${REDACTED} bye`);
    }
  });
});

describe('a secret as the Markdown escapers write it', () => {
  it.each(['planted_secret*value', 'planted@secret-value', 'https://planted.example/secret', '-planted[secret]', 'www.planted-secret.example', '#planted<secret>&x', 'planted_secret ##', '    planted_secret', '\tplanted_secret', '_www.planted-secret.example'])('is hidden at the start of a line, after other text and before it (%j)', (secret) => {
    const registry = registryOf(secret);
    for (const escape of [markdownText, markdownHtmlText]) {
      for (const text of [secret, `Say ${secret} now`, `say:${secret}`]) expect(registry.redact(escape(text))).not.toMatch(/planted/);
    }
  });
});

describe('a secret whose escaping the text around it changes', () => {
  // Each renders the secret's own characters otherwise than alone, after other text or before it.
  it.each([
    ['a `[` after `##` (a workflow command)', '[planted_secret', '##[planted_secret now'],
    ['`//` after a colon (a bare address)', '//planted_secret', 'see://planted_secret now'],
    ['a list number at the start and a closing `#` run together', '1)planted-secret #', '  1)planted-secret # more'],
    ['a `@` and a `[` after `##`', '[planted@secret', 'x ##[planted@secret.'],
  ])('is hidden in Markdown text and HTML: %s', (_name, secret, text) => {
    const registry = registryOf(secret);
    for (const escape of [markdownText, markdownHtmlText]) expect(registry.redact(escape(text))).not.toMatch(/planted/);
  });

  it('holding a backslash, is hidden in HTML after `##`, where the backslash is itself', () => {
    const registry = registryOf("[planted\\'secret");
    expect(registry.redact(markdownHtmlText("##[planted\\'secret<"))).not.toMatch(/planted/);
  });
});

describe('a secret in JSON text', () => {
  it('is hidden as voxform writes JSON (toJsonText: an invisible character escaped, other non-ASCII as it is), holding URL-encoded bytes', () => {
    // Its `%40` decodes in every reading, so only the form as written can find it; its quote keeps it from reading as printable writes it.
    const secret = '\u00a0p%40planted\u00ad"secret';
    const registry = registryOf(secret);
    const scrubbed = registry.redact(toJsonText({ value: `key ${secret} end` }));
    expect(JSON.parse(scrubbed)).toEqual({ value: `key ${REDACTED} end` });
  });

  it.each(['\tplanted-secret', '"planted-secret', '\\planted-secret'])('leaves the JSON whole where a backslash stands before it (%j)', (secret) => {
    const registry = registryOf(secret);
    for (const before of ['\\', 'x\\', '\\\\']) {
      const scrubbed = registry.redact(JSON.stringify({ value: `${before}${secret} end` }));
      const parsed = JSON.parse(scrubbed) as { value: string };
      expect(parsed.value).not.toMatch(/planted/);
      expect(parsed.value).toContain(REDACTED);
    }
  });
});
