/**
 * The request target of a request to voxform's local servers, checked before anything reads it:
 * anyone who reaches the port writes it, so a target that is not a plain path (`*`, `//host/…`), no
 * URL (`//[`) or holds a malformed percent-escape is refused with a 400, never a crash or a guess
 * (Node's parser refuses a malformed request line first).
 */
/** `path` and `search` as written (still percent-encoded), `decodedPath` the path decoded. */
type RequestTarget = { ok: true; path: string; decodedPath: string; search: string } | { ok: false; message: string };

const BASE = 'http://local.invalid';

export function parseRequestTarget(raw: string | undefined): RequestTarget {
  const notAPath: RequestTarget = { ok: false, message: 'The request target must be a path, such as /agents.' };
  if (!raw?.startsWith('/')) return notAPath;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return { ok: false, message: 'The request target is not a valid URL.' };
  }
  // `//host/path` is a path to HTTP but a host to a URL parser: refused rather than read either way.
  if (url.origin !== BASE) return notAPath;
  const mark = raw.indexOf('?');
  const path = mark < 0 ? raw : raw.slice(0, mark);
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(path);
  } catch {
    return { ok: false, message: 'The request path holds a malformed percent-escape.' };
  }
  return { ok: true, path, decodedPath, search: mark < 0 ? '' : raw.slice(mark + 1) };
}
