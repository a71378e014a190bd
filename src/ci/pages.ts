import type { RestClient } from './rest.js';

/** How comment lists are read: pages of the largest size both hosts allow, and at most this many pages. */
const PAGE_SIZE = 100;
/** A review with more comments than this is read only this far (its oldest): a marker comment is written early. */
const MAX_PAGES = 50;

/** The items of a paged list, page after page until a short one; `pagePath` adds the page's query to the host's path. */
export async function readPages(client: RestClient, pagePath: (pageQuery: string) => string): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const body = (await client.call('GET', pagePath(`per_page=${PAGE_SIZE}&page=${page}`))).body;
    if (!Array.isArray(body)) break;
    items.push(...body);
    if (body.length < PAGE_SIZE) break;
  }
  return items;
}
