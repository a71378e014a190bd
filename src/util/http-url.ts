/** An http(s) URL, as links, receivers and API bases must be; one with a user or password in it is refused. */

/** `text` parsed when it is an http:// or https:// URL without a user or password; else undefined. */
export function httpUrl(text: string, options: { credentials?: 'allow' } = {}): URL | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return options.credentials !== 'allow' && (url.username || url.password) ? undefined : url;
}
