import { describe, expect, it } from 'vitest';
import { scrub } from '../../src/api/errors.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { echoedForms, MIN_SEARCHABLE_SECRET, REDACTED, redactNeedles, SecretRegistry } from '../../src/secrets/redact.js';
import { seededRandom } from '../../src/util/seeded-random.js';

/** What redactNeedles does, the plain way: every needle searched on its own, the spans merged. */
function redactOneByOne(text: string, needles: readonly string[]): string {
  const lower = text.toLowerCase();
  const spans: Array<[number, number]> = [];
  for (const needle of new Set(needles.map((n) => n.toLowerCase()))) {
    for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) spans.push([at, at + needle.length]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let cursor = 0;
  let open: [number, number] | undefined;
  for (const span of [...spans, [Infinity, Infinity] as [number, number]]) {
    if (open && span[0] <= open[1]) open[1] = Math.max(open[1], span[1]);
    else {
      if (open) (out += `${text.slice(cursor, open[0])}${REDACTED}`), (cursor = open[1]);
      open = span;
    }
  }
  return out + text.slice(cursor);
}

function registryOf(...values: string[]): SecretRegistry {
  const registry = new SecretRegistry();
  for (const value of values) registry.add(value);
  return registry;
}

describe('SecretRegistry.redact', () => {
  it('scrubs a value of 64 KB, and one made of regular-expression syntax, without throwing', () => {
    const long = 'x'.repeat(64 * 1024);
    const syntax = 'a(b[c{2,}\\d+?|^$'.repeat(3000);
    const registry = registryOf(long, syntax);
    expect(registry.redact(`one ${long} two ${syntax} three`)).toBe(`one ${REDACTED} two ${REDACTED} three`);
  });

  it.each([
    ['six characters', 'k9k9k9', 'k9k9k9k9k9k9 k', `${REDACTED} k`],
    ['seven characters', 'xyz-123', 'token=xyz-123;', `token=${REDACTED};`],
  ])('scrubs a secret as short as MIN_SEARCHABLE_SECRET (%s)', (_name, secret, text, expected) => {
    expect(registryOf(secret).redact(text)).toBe(expected);
  });

  it.each([
    ['one character', 'x', 'voxform.yaml excludes x'],
    ['five characters', 'Hello', 'Hello there'],
  ])('leaves a secret shorter than MIN_SEARCHABLE_SECRET to be masked by place, never inside words (%s)', (_name, secret, text) => {
    expect(secret.length).toBeLessThan(MIN_SEARCHABLE_SECRET);
    const registry = registryOf(secret);
    expect(registry.size).toBe(0);
    expect(registry.redact(text)).toBe(text);
  });

  it.each([
    ['JSON-escaped', 'pa"ss\\word', '{"detail":"bad value pa\\"ss\\\\word"}'],
    ['JSON with non-ASCII escaped (lower-case hex)', 'café-sécret', '{"input":"caf\\u00e9-s\\u00e9cret"}'],
    ['JSON with non-ASCII escaped (upper-case hex)', 'café-sécret', '{"input":"caf\\u00E9-s\\u00E9cret"}'],
    ['JSON with the slash escaped', 'a/b/c-token', '{"input":"a\\/b\\/c-token"}'],
    ['JSON escaped twice', 'q"uote-secret', '{"detail":"body was {\\"h\\":\\"q\\\\\\"uote-secret\\"}"}'],
    ['URL-encoded', 'p&ss=w rd/+', 'GET /x?token=p%26ss%3Dw%20rd%2F%2B'],
    ['URL-encoded, space as +', 'p&ss w', 'token=p%26ss+w'],
    ['URL-encoded, lower-case hex', 'p&ss=w', 'token=p%26ss%3dw'],
    ['URL-encoded as a path', 'p ss/x', 'https://h/p%20ss/x'],
    ['XML-escaped (JUnit)', "pa&ss<w>o\"r'd", '<system-out>pa&amp;ss&lt;w&gt;o&quot;r&apos;d</system-out>'],
    ['HTML-escaped with numeric entities (the report)', "pa&ss<w'd", '<td>pa&#38;ss&#60;w&#39;d</td>'],
    ['escaped in a Markdown table cell', 'a|b-secret', '| reply | a\\|b-secret |'],
    ['escaped in a Markdown <summary> and a table cell at once', 'a<b|c-42', '<summary>You said: a&lt;b\\|c-42</summary>'],
    ['host lower-cased by a URL parser', 'Planted-HOOK-7f3a', new URL('http://Planted-HOOK-7f3a.example.com/b').host],
    ['upper-cased in an echo', 'planted-hook-7f3a', 'INVALID TOKEN PLANTED-HOOK-7F3A'],
    ['path a URL parser wrote', 'p ss|[x]^`y', new URL('https://h/a/p ss|[x]^`y').href],
    ['query a URL parser wrote', "p ss|'x\"y", new URL(`https://h/?t=p ss|'x"y`).href],
    ['user info a URL parser wrote', 'us er|[x]', new URL('https://us er|[x]@h/').href],
    ['non-ASCII host a URL parser wrote as punycode', 'Sécret-hôte', new URL('https://Sécret-hôte/x').host],
    ['path a URL parser wrote without its tab and line breaks', 'abc\tSecret77\r\nxyz', new URL('https://h/a/abc\tSecret77\r\nxyz').href],
    ['query at the end of a URL, its trailing space dropped by the parser', 'realSecret123 \n', new URL('https://h/a?t=realSecret123 \n').href],
  ])('scrubs the %s form', (_name, secret, text) => {
    const out = registryOf(secret).redact(text);
    expect(out).toContain(REDACTED);
    for (const form of echoedForms(secret)) expect(out.toLowerCase()).not.toContain(form.toLowerCase());
  });

  it('scrubs overlapping secrets as one span and never re-scans the marker', () => {
    expect(registryOf('abcdefgh', 'efghijkl').redact('xxabcdefghijklyy')).toBe(`xx${REDACTED}yy`);
    // A secret that occurs in the marker itself does not loop or grow the output.
    expect(registryOf('sensitive').redact('a sensitive b')).toBe(`a ${REDACTED} b`);
  });

  it('leaves text alone when no secret is registered, and ignores empty values', () => {
    const registry = registryOf('');
    expect(registry.size).toBe(0);
    expect(registry.redact('plain')).toBe('plain');
  });

  it('a lone surrogate has no URL form, and is still scrubbed as written', () => {
    const odd = `x\ud800y-secret`;
    expect(registryOf(odd).redact(`a ${odd} b`)).toBe(`a ${REDACTED} b`);
  });

  it('with many secrets (URL tokens of a call log), finds what one search per secret finds', () => {
    const random = seededRandom(7);
    const word = (length: number) => Array.from({ length }, () => 'abAB-'[Math.floor(random() * 5)]).join('');
    // Short, ordinary, sharing their ends (more than a bucket holds), longer than a bucket takes, repeated.
    const needles = [word(3), ...Array.from({ length: 150 }, () => word(6 + Math.floor(random() * 10))), ...Array.from({ length: 8 }, () => `${word(4)}-end-x`), word(300), 'abab-a', 'abab-a'];
    for (let round = 0; round < 50; round++) {
      const text = Array.from({ length: 40 }, () => (random() < 0.3 ? needles[Math.floor(random() * needles.length)] : word(5))).join(random() < 0.5 ? '' : ' ');
      expect(redactNeedles(text, needles)).toBe(redactOneByOne(text, needles));
    }
  });

  it('scrubs the tokens of thousands of URLs from every line', () => {
    const registry = new SecretRegistry();
    const tokens = Array.from({ length: 5000 }, (_, i) => `sig-${i.toString(16).padStart(8, '0')}-${(i * 7919) % 10007}`);
    for (const token of tokens) registry.add(token);
    for (const token of [tokens[0], tokens[2500], tokens[4999]] as string[]) expect(registry.redact(`"recording_url": "https://s3.example/a.wav?X-Amz-Signature=${token}"`)).toBe(`"recording_url": "https://s3.example/a.wav?X-Amz-Signature=${REDACTED}"`);
  });

  it('stays linear on a long repetitive secret in long repetitive text', () => {
    const secret = 'a'.repeat(32 * 1024);
    const text = 'a'.repeat(2 * 1024 * 1024);
    const out = redactNeedles(text, [secret]);
    // Back-to-back occurrences touch, so they merge into one marker.
    expect(out).toBe(REDACTED);
  });
});

describe('SecretRegistry.redactPieces (a reply streamed in pieces)', () => {
  async function* stream(pieces: readonly string[]) {
    yield* pieces;
  }
  const streamed = async (registry: SecretRegistry, pieces: readonly string[]) => {
    const printed: string[] = [];
    for await (const text of registry.redactPieces(stream(pieces))) printed.push(text);
    return printed;
  };

  it('prints what the whole reply redacted prints, however the stream splits a secret', async () => {
    const registry = registryOf('Code SPRING-26 today', 'planted/hook=tok en');
    const text = 'Hello! Code SPRING-26 today, and planted/hook=tok en. Code SPR is not it.';
    for (let cut = 0; cut <= text.length; cut++) {
      const printed = await streamed(registry, [text.slice(0, cut), text.slice(cut)]);
      expect(printed.join(''), `cut at ${cut}`).toBe(registry.redact(text));
      expect(printed.some((part) => part.includes('SPRING'))).toBe(false);
    }
    expect((await streamed(registry, [...text])).join('')).toBe(registry.redact(text));
  });

  it('holds back only an end that could start a secret, and gives it back once the reply ends', async () => {
    const registry = registryOf('Code SPRING-26 today');
    expect(await streamed(registry, ['Hello, ', 'how are ', 'you? Code '])).toEqual(['Hello, ', 'how are ', 'you? ', 'Code ']);
    expect(await streamed(registry, ['Code ', 'SPR'])).toEqual(['Code SPR']);
    expect(await streamed(new SecretRegistry(), ['Hello, ', '', 'you'])).toEqual(['Hello, ', 'you']);
  });
});

describe('a secret a command prints in the form a URL parser gives it', () => {
  const tempDir = useTempDirs();
  const manifest = (url: string) =>
    ['version: 1', 'agents:', '  desk:', '    id: ag_1', '    config:', `      session_data_webhook: { url: "${url}" }`, `      tools: [{ name: t, description: d, webhook: "${url}" }]`, ''].join('\n');

  it('a host lower-cased: the scrub finds it; validate never sees it (the policy reads it withheld)', async () => {
    expect(registryOf('Planted-HOOK-7f3a').redact(`posting to ${new URL('http://Planted-HOOK-7f3a.example.com/b').href}`)).toBe(`posting to http://${REDACTED}.example.com/b`);
    const dir = await tempDir({ 'voxform.yaml': manifest('http://${env:HOOK_TOKEN}.example.com/b') });
    for (const format of ['text', 'json']) {
      const result = await runCliInProcess(['validate', '--format', format], { cwd: dir, env: { HOOK_TOKEN: 'Planted-HOOK-7f3a' } });
      const printed = `${result.stdout}${result.stderr}`;
      expect(printed).toContain('withheld-by-voxform.example.com');
      expect(printed.toLowerCase()).not.toContain('planted-hook-7f3a');
    }
  });

  it('a path percent-encoded: webhook send --to-configured shows (sensitive)', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest('http://127.0.0.1:9/${env:HOOK_TOKEN}') });
    const result = await runCliInProcess(['webhook', 'send', '--to-configured', '--agent', 'desk', '--event', 'end-of-call'], { cwd: dir, env: { HOOK_TOKEN: 'Planted HOOK|7f3a' } });
    const printed = `${result.stdout}${result.stderr}`;
    expect(printed).toContain(`POST http://127.0.0.1:9/${REDACTED}`);
    for (const form of echoedForms('Planted HOOK|7f3a')) expect(printed.toLowerCase()).not.toContain(form.toLowerCase());
  });

  it.each([
    ['a tab and a line break inside', 'Planted\tHOOK\n7f3a'],
    ['a tab at its end, as a pasted secret may have', 'Planted-HOOK-7f3a\t'],
  ])('a path the URL parser wrote without its white space (%s): webhook send --to-configured shows (sensitive)', async (_name, value) => {
    const dir = await tempDir({ 'voxform.yaml': manifest('http://127.0.0.1:9/${env:HOOK_TOKEN}') });
    const result = await runCliInProcess(['webhook', 'send', '--to-configured', '--agent', 'desk', '--event', 'end-of-call'], { cwd: dir, env: { HOOK_TOKEN: value } });
    const printed = `${result.stdout}${result.stderr}`;
    expect(printed).toContain(`POST http://127.0.0.1:9/${REDACTED}`);
    expect(printed.toLowerCase()).not.toMatch(/planted.?hook.?7f3a/);
  });
});

describe('scrub (the client’s own key scrubbing)', () => {
  it('scrubs a key of any length and its echoed forms', () => {
    expect(scrub('key=ab', 'ab')).toBe(`key=${REDACTED}`);
    expect(scrub('{"k":"k\\"ey"}', 'k"ey')).toBe(`{"k":"${REDACTED}"}`);
    expect(scrub('text', '')).toBe('text');
  });

  it('scrubs a key as Go\'s JSON writes it, the rest of what is not ASCII as it is, also quoted inside another JSON text', () => {
    const key = 'clé&secrète<42>\u2028x';
    // Go escapes <, >, &, U+2028 and U+2029 and writes the rest as UTF-8.
    const goJson = JSON.stringify(key).slice(1, -1).replace(/[<>&\u2028]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(goJson).toContain('clé\\u0026');
    for (const echoed of [goJson, JSON.stringify(goJson).slice(1, -1)]) expect(scrub(`bad key ${echoed}.`, key)).toBe(`bad key ${REDACTED}.`);
  });
});

describe('text that quotes what a service wrote is searched decoded, as often as it was encoded', () => {
  const KEY = 'sk9ZqT4mW2xV7bN1cR5yH8jL3pF6dG0a';
  /** Every character as a JSON `\u` escape. */
  const everyCharEscaped = (text: string) => [...text].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  /** A text quoted as a JSON string's content. */
  const quoted = (text: string) => JSON.stringify(text).slice(1, -1);

  it('a key every character of which is escaped inside a JSON error quoted in another, at each depth', () => {
    const detail = `upstream said: {"error": "bad key ${everyCharEscaped(KEY)}"}`;
    // As the error quotes it (the outer JSON decoded once), and as the body came (twice encoded), and once more.
    expect(scrub(detail, KEY)).toBe(`upstream said: {"error": "bad key ${REDACTED}"}`);
    expect(registryOf(KEY).redact(`{"detail": "${quoted(detail)}"}`)).toBe(`{"detail": "upstream said: {\\"error\\": \\"bad key ${REDACTED}\\"}"}`);
    expect(registryOf(KEY).redact(quoted(quoted(quoted(detail))))).not.toMatch(/u0073|sk9Z/);
  });

  it('decoding never hides the raw form, and keeps the rest of the text as it was written', () => {
    const text = `a\\u0041 ${KEY} \\"b\\" ${everyCharEscaped(KEY)} \\n`;
    expect(registryOf(KEY).redact(text)).toBe(`a\\u0041 ${REDACTED} \\"b\\" ${REDACTED} \\n`);
    // Nothing to decode: the text comes back as it is.
    expect(registryOf(KEY).redact('a \\q \\u12 \\')).toBe('a \\q \\u12 \\');
  });

  it("a secret HTML-escaped as Go's html.EscapeString writes it: named and numeric entities in one text", async () => {
    const secret = "k&ey'Zq7-secret-99";
    expect(registryOf(secret).redact('bad value &lt;k&amp;ey&#39;Zq7-secret-99&gt; &#34;here&#34;')).toBe(`bad value &lt;${REDACTED}&gt; &#34;here&#34;`);
    expect(scrub('<p>k&amp;ey&#39;Zq7-secret-99</p>', secret)).toBe(`<p>${REDACTED}</p>`);
    // JSON quoting HTML: decoded both ways, round after round.
    expect(scrub(`"k\\u0026amp;ey\\u0026#39;Zq7-secret-99"`, secret)).toBe(`"${REDACTED}"`);
    // Streamed, cut anywhere, a reference the next piece finishes is held back.
    const reply = 'Use k&amp;ey&#39;Zq7-secret-99 &amp; go.';
    for (let cut = 0; cut <= reply.length; cut++) {
      const printed: string[] = [];
      for await (const part of registryOf(secret).redactPieces((async function* () { yield reply.slice(0, cut); yield reply.slice(cut); })())) printed.push(part);
      expect(printed.join(''), `cut at ${cut}`).toBe(`Use ${REDACTED} &amp; go.`);
    }
  });

  it('a secret echoed URL-encoded over another escape, or as Python writes text: decoded round after round', () => {
    const quoted = 'sk-te"st\\9Zx7+QwE';
    expect(registryOf(quoted).redact('callback https://cb.example/?state=%7B%22k%22%3A%22sk-te%5C%22st%5C%5C9Zx7%2BQwE%22%7D rejected')).toBe(`callback https://cb.example/?state=%7B%22k%22%3A%22${REDACTED}%22%7D rejected`);
    const apostrophe = `sk-pa'ss"wd-77xQ`;
    expect(registryOf(apostrophe).redact(`Value error, key 'sk-pa\\'ss"wd-77xQ' is revoked.`)).toBe(`Value error, key '${REDACTED}' is revoked.`);
    expect(registryOf(apostrophe).redact(`key 'sk-pa\\x27ss\\x22wd-77xQ'`)).toBe(`key '${REDACTED}'`);
    const ampersand = 'k&ey-Zq7-secret-99';
    expect(registryOf(ampersand).redact('next=k%2526ey-Zq7-secret-99&x=1')).toBe(`next=${REDACTED}&x=1`);
    expect(registryOf(ampersand).redact('next=k%26amp%3Bey-Zq7-secret-99')).toBe(`next=${REDACTED}`);
    // Not UTF-8, or no escape at all: the text as it was written.
    expect(registryOf(ampersand).redact('50% off, %ZZ, %C3 alone')).toBe('50% off, %ZZ, %C3 alone');
  });

  it('an HTML-decoded reading never hides the raw form, and the rest stays as it was written', () => {
    const secret = "k&ey'Zq7-secret-99";
    const text = `a\\u0041 &amp; ${secret} \\"b\\" k&amp;ey&#39;Zq7-secret-99 &#x27;c&#x27;`;
    expect(registryOf(secret).redact(text)).toBe(`a\\u0041 &amp; ${REDACTED} \\"b\\" ${REDACTED} &#x27;c&#x27;`);
    // Nothing to decode: the text comes back as it is.
    expect(registryOf(secret).redact('a &bogus; &#xzz; &#99999999; &amp')).toBe('a &bogus; &#xzz; &#99999999; &amp');
  });

  /** What `registry` prints of `text` streamed in two pieces cut at `cut`. */
  async function printedCutAt(registry: SecretRegistry, text: string, cut: number): Promise<string> {
    const printed: string[] = [];
    for await (const part of registry.redactPieces((async function* () { yield text.slice(0, cut); yield text.slice(cut); })())) printed.push(part);
    return printed.join('');
  }

  it('a reply streamed in pieces holds back an escape that only decodes into the start of one: &amp; before #, \\u005c before u', async () => {
    const registry = registryOf(KEY);
    const references = [...KEY].map((ch) => `&amp;#${ch.charCodeAt(0)};`).join('');
    const quotedTwice = [...KEY].map((ch) => `\\u005cu${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const inHtml = [...KEY].map((ch) => `&#92;u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const longNumber = [...KEY].map((ch) => `&#${String(ch.charCodeAt(0)).padStart(7, '0')};`).join('');
    for (const written of [references, quotedTwice, inHtml, longNumber]) {
      const text = `Your key: ${written} ok`;
      expect(registry.redact(text), written).toBe(`Your key: ${REDACTED} ok`);
      for (let cut = 0; cut <= text.length; cut++) expect(await printedCutAt(registry, text, cut), `${written} cut at ${cut}`).toBe(`Your key: ${REDACTED} ok`);
    }
  });

  it('a reply of many pieces ending in backslashes is let go as it comes, not held back whole', async () => {
    const registry = registryOf(KEY);
    const sizes: number[] = [];
    async function* pieces() {
      for (let i = 0; i < 200; i++) yield '\\\\\\\\\\';
    }
    let printed = '';
    for await (const part of registry.redactPieces(pieces())) (sizes.push(part.length), (printed += part));
    expect(printed).toBe('\\'.repeat(1000));
    // A run of backslashes cannot all join the next piece: past a bounded tail, each piece lets go what came.
    expect(sizes.length).toBeGreaterThan(40);
    expect(Math.max(...sizes)).toBeLessThan(100);
  });

  it('a reply streamed in pieces holds back an escape the next piece may finish', async () => {
    const registry = registryOf(KEY);
    const text = `Your key is ${everyCharEscaped(KEY)}, keep it.`;
    for (let cut = 0; cut <= text.length; cut++) {
      const printed: string[] = [];
      for await (const part of registry.redactPieces((async function* () { yield text.slice(0, cut); yield text.slice(cut); })())) printed.push(part);
      expect(printed.join(''), `cut at ${cut}`).toBe(`Your key is ${REDACTED}, keep it.`);
    }
  });
});
