/**
 * `text` as one word a POSIX shell reads back as it is (a path's spaces, a database URL's `?` and
 * `&`). Every command voxform prints for the user to paste quotes what it took from them this way.
 */
export function shellWord(text: string): string {
  return /^[\w./@:%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
