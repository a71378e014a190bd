/**
 * URL tokens: the parts of an absolute URL where a token rides — its user info (user and password)
 * and its query values (`?token=…`). A webhook or tool URL is often its own credential, so every
 * command treats these parts as secrets (docs/security.md §5): `voxform test` withholds them
 * (withhold.ts), `export` writes them as `${env:…}` references, the emulator's log masks them, and the
 * CLI registers those of every URL in the service's answers for the last scrub (`registerUrlTokens`).
 * A manifest's own URL is not registered: it is in git, and a pull request that chose its query
 * values would hide any word it liked from every output. One splitter serves them all.
 */
import { isPlainObject } from '../util/json-object.js';
import { MIN_SEARCHABLE_SECRET } from './redact.js';

/**
 * An absolute URL, split where tokens ride: scheme, user info, host and path, query, fragment. As
 * URL parsers read it: white space before it, one slash after the scheme (`https:/host`), and user
 * info up to the last `@` before the path (a password may hold a raw `@`).
 */
const URL_PARTS = /^(\s*[a-z][a-z0-9+.-]*:\/\/?)(?:([^/?#]*)@)?([^?#]*)(?:\?([^#]*))?(#[\s\S]*)?$/i;

/** How a text that may be a URL starts: a short scheme and `:/` (cheap to test on any string). */
const SCHEME = /^\s*[a-z][a-z0-9+.-]{0,31}:\//i;

/** A query parameter as written (`token=abc`, `flag`, `x=`), `value` undefined when it has none. */
interface QueryParam {
  written: string;
  name: string;
  value: string | undefined;
}

/** An absolute URL that holds tokens, in its parts as written (values stay percent-encoded). */
interface TokenUrl {
  /** `https://` */
  scheme: string;
  /** The text before `@`, when there is one. */
  userInfo: string | undefined;
  /** Host and path. */
  rest: string;
  /** The query's parameters in order; undefined without a `?`. */
  query: QueryParam[] | undefined;
  /** `#…`, or empty. */
  fragment: string;
}

/** `text` split as a URL with tokens (user info, or a query parameter with a value); undefined for any other text. */
export function splitTokenUrl(text: string): TokenUrl | undefined {
  if (!SCHEME.test(text)) return undefined;
  const match = URL_PARTS.exec(text);
  if (!match) return undefined;
  const [, scheme, userInfo, rest, query, fragment] = match as unknown as [string, string, string | undefined, string, string | undefined, string | undefined];
  const params = query?.split('&').map((written): QueryParam => {
    const equals = written.indexOf('=');
    const hasValue = equals !== -1 && equals < written.length - 1;
    return { written, name: equals === -1 ? written : written.slice(0, equals), value: hasValue ? written.slice(equals + 1) : undefined };
  });
  if (userInfo === undefined && !params?.some((param) => param.value !== undefined)) return undefined;
  return { scheme, userInfo, rest, query: params, fragment: fragment ?? '' };
}

/** A URL with tokens rebuilt part by part, in order: its user info (before `@`), each query value, and `literal` for the rest; undefined for other text. */
export function mapUrlTokens(text: string, userInfo: (written: string) => string, queryValue: (name: string, value: string) => string, literal = (part: string) => part): string | undefined {
  const url = splitTokenUrl(text);
  if (!url) return undefined;
  let out = literal(url.scheme) + (url.userInfo === undefined ? '' : `${userInfo(url.userInfo)}@`) + literal(url.rest);
  if (url.query !== undefined) out += `?${url.query.map(({ written, name, value }) => (value === undefined ? literal(written) : `${literal(name)}=${queryValue(name, value)}`)).join('&')}`;
  return out + literal(url.fragment);
}

/** `https://user:pass@h/hook?token=abc&x` → `https://R@h/hook?token=R&x` with `replacement` as R; other text unchanged. */
export function replaceUrlTokens(text: string, replacement: string): string {
  return mapUrlTokens(text, () => replacement, () => replacement) ?? text;
}

/**
 * Where the tokens of a URL with tokens lie in `text`, as `[start, end)` offsets: its user info and
 * each query value, in order; none for other text.
 */
export function urlTokenRanges(text: string): Array<[number, number]> {
  const url = splitTokenUrl(text);
  if (!url) return [];
  const ranges: Array<[number, number]> = [];
  let at = url.scheme.length;
  if (url.userInfo !== undefined) {
    ranges.push([at, at + url.userInfo.length]);
    at += url.userInfo.length + 1;
  }
  at += url.rest.length;
  for (const { written, name, value } of url.query ?? []) {
    // The `?` before the first parameter, the `&` before each other one.
    at += 1;
    if (value !== undefined) ranges.push([at + name.length + 1, at + written.length]);
    at += written.length;
  }
  return ranges;
}

/** The user and the password of user info (`user:pass`); the password undefined without a `:`. */
export function splitUserInfo(userInfo: string): { user: string; password: string | undefined } {
  const colon = userInfo.indexOf(':');
  return colon === -1 ? { user: userInfo, password: undefined } : { user: userInfo.slice(0, colon), password: userInfo.slice(colon + 1) };
}

/** Each token of a URL with tokens: the user, the password and each query value, as written and percent-decoded. */
function tokensOf(url: TokenUrl): string[] {
  const tokens: string[] = [];
  if (url.userInfo !== undefined) {
    const { user, password } = splitUserInfo(url.userInfo);
    // Each part, and the whole: two short parts may make one searchable value.
    for (const part of password === undefined ? [user] : [user, password, url.userInfo]) tokens.push(part, safeDecode(part));
  }
  for (const { value } of url.query ?? []) if (value !== undefined) tokens.push(value, decodeQueryPart(value));
  return [...new Set(tokens)];
}

/** A query's name or value percent-decoded (`+` as a space), or itself where it does not decode. */
export function decodeQueryPart(text: string): string {
  return safeDecode(text.replace(/\+/g, ' '));
}

/** `text` percent-decoded, or itself where it does not decode. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Whether `url` is on a `.invalid` host, which never resolves (RFC 6761): voxform's own sink and
 * tool mocks (`?returns=…`, what a test file wrote). Its query guards nothing, and searching for it
 * would let a test file hide words of its own choosing.
 */
function reachesNothing(url: TokenUrl): boolean {
  const host = url.rest.split('/')[0]?.replace(/:\d*$/, '').toLowerCase() ?? '';
  return host.endsWith('.invalid') || host === 'invalid';
}

/**
 * Hands `add` the tokens of every URL among the strings of `value` (a parsed answer): strings that
 * are a URL, not a URL inside prose, nor one that reaches nothing. Only tokens the last scrub searches for are handed on: one under MIN_SEARCHABLE_SECRET
 * characters (`?v=2`, a user `u`) would be hidden in every word holding it, so it stays readable.
 * Linear in the size of `value`, without recursion (an answer may nest deeply), and a string is
 * only looked into when it starts with a scheme.
 */
export function registerUrlTokens(value: unknown, add: (secret: string) => void): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      const url = splitTokenUrl(current);
      if (url && !reachesNothing(url)) for (const token of tokensOf(url)) if (token.length >= MIN_SEARCHABLE_SECRET) add(token);
    } else if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
    } else if (isPlainObject(current)) {
      for (const key in current) pending.push(current[key]);
    }
  }
}
