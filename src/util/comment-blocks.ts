/**
 * The parts of a pull-request comment that may be shortened to fit the host's size limit: what a
 * section (the policy's lists) hands to the comment's fitting (src/plan/fit-comment.ts).
 */

/** A list the comment may shorten: `head`, one line per item (at most `most`), `foot`; `more(n)` is the line standing for n left out. */
export interface CommentList {
  head: string[];
  items: string[];
  foot: string[];
  most: number;
  more: (omitted: number) => string;
}

/** Lines kept whole or left out, or a list. */
export type CommentBlock = string[] | CommentList;
