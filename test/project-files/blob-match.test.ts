/** BlobMatch: bytes read in pieces are a committed blob as they are, or with each CRLF read as LF. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlobMatch, isCommittedBlob, type CommittedBlob } from '../../src/project-files/checkout-files.js';

function blobOf(text: string, algorithm: 'sha1' | 'sha256' = 'sha1'): CommittedBlob {
  const bytes = Buffer.from(text);
  return { object: createHash(algorithm).update(`blob ${bytes.length}\0`).update(bytes).digest('hex'), size: bytes.length };
}

/** Whether `read`, fed in pieces cut at every place (and whole), matches `committed`'s blob; the answers must agree. */
function matchesAtEveryCut(committed: string, read: string): boolean {
  const bytes = Buffer.from(read);
  const answers = new Set<boolean>();
  for (let cut = 0; cut <= bytes.length; cut++) {
    const match = new BlobMatch(blobOf(committed));
    match.update(bytes.subarray(0, cut));
    match.update(bytes.subarray(cut));
    answers.add(match.matches());
  }
  expect(answers.size).toBe(1);
  return [...answers][0] as boolean;
}

describe('BlobMatch', () => {
  it('matches the bytes as committed, and with CRLF where the commit holds LF', () => {
    expect(matchesAtEveryCut('a\nb\n', 'a\nb\n')).toBe(true);
    expect(matchesAtEveryCut('a\nb\n', 'a\r\nb\r\n')).toBe(true);
    expect(matchesAtEveryCut('a\nb\n', 'a\r\nb\n')).toBe(true);
    expect(matchesAtEveryCut('a\r\nb\r\n', 'a\r\nb\r\n')).toBe(true);
  });

  it('refuses any other difference: a lone CR, one more byte, another letter', () => {
    expect(matchesAtEveryCut('a\nb\n', 'a\rb\n')).toBe(false);
    expect(matchesAtEveryCut('a\nb\n', 'a\r\nb\r\n\r')).toBe(false);
    expect(matchesAtEveryCut('a\nb\n', 'a\r\r\nb\n')).toBe(false);
    expect(matchesAtEveryCut('a\nb\n', 'a\r\nc\r\n')).toBe(false);
    expect(matchesAtEveryCut('a\nb\r', 'a\nb\r')).toBe(true);
    expect(matchesAtEveryCut('a\nb', 'a\nb\r')).toBe(false);
  });

  it('names a SHA-256 repository\'s blobs by their SHA-256', () => {
    expect(isCommittedBlob(blobOf('x\n', 'sha256'), Buffer.from('x\r\n'))).toBe(true);
    expect(isCommittedBlob(blobOf('x\n', 'sha256'), Buffer.from('y\r\n'))).toBe(false);
  });
});
