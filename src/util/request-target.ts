/**
 * The request target of a request to voxform's local servers, checked before anything reads it:
 * anyone who reaches the port writes it, so a target that is not a plain path (`*`, `//host/…`), no
 * URL (`//[`) or holds a malformed percent-escape is refused with a 400, never a crash or a guess
 * (Node's parser refuses a malformed request line first).
 */
/**
 * `path` and `search` as written (still percent-encoded), `decodedPath` the path decoded. A refused
 * target keeps its `path` too, for a line that names it: the query holds a prefetch's metadata
 * values, which are never printed.
 */
type RequestTarget = { ok: true; path: string; decodedPath: string; search: string } | { ok: false; message: string; path: string };

const BASE = 'http://local.invalid';

export function parseRequestTarget(raw: string | undefined): RequestTarget {
  const mark = raw?.indexOf('?') ?? -1;
  const path = raw === undefined ? '' : mark < 0 ? raw : raw.slice(0, mark);
  const notAPath: RequestTarget = { ok: false, message: 'The request target must be a path, such as /agents.', path };
  if (!raw?.startsWith('/')) return notAPath;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return { ok: false, message: 'The request target is not a valid URL.', path };
  }
  // `//host/path` is a path to HTTP but a host to a URL parser: refused rather than read either way.
  if (url.origin !== BASE) return notAPath;
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(path);
  } catch {
    return { ok: false, message: 'The request path holds a malformed percent-escape.', path };
  }
  return { ok: true, path, decodedPath, search: mark < 0 ? '' : raw.slice(mark + 1) };
}
