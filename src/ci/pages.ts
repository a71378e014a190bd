/** How comment lists are read: pages of the largest size both hosts allow, and at most this many pages. */
export const PAGE_SIZE = 100;
/** A review with more comments than this is read only this far (its oldest): a marker comment is written early. */
export const MAX_PAGES = 50;
