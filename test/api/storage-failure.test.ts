/**
 * The error for an upload the storage refused: the storage's own words (S3's `<Code>` and
 * `<Message>`, else its text), ending one sentence of voxform's with one full stop, and the hint
 * that fits the refusal.
 */
import { describe, expect, it } from 'vitest';
import { storageFailure } from '../../src/api/upload.js';

const TARGET = new URL('https://uploads.example.com/bucket?X-Amz-Signature=abc');

describe('a refused upload', () => {
  it.each([
    ['S3 XML, its message ending with a full stop', 403, '<Error><Code>AccessDenied</Code><Message>Invalid according to Policy: the form lacks the field x-amz-credential.</Message></Error>', 1, 'the storage answered 403 AccessDenied: Invalid according to Policy: the form lacks the field x-amz-credential.'],
    ['S3 XML after several attempts', 503, '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>', 3, 'the storage answered 503 SlowDown: Please reduce your request rate (after 3 attempts).'],
    ['plain text', 500, '  upstream timed out.\n', 1, 'the storage answered 500 upstream timed out.'],
    ['XML with no code or message', 400, '<Error/>', 1, 'the storage answered 400 no reason given.'],
  ])('%s: one full stop', (_name, status, body, attempts, said) => {
    const error = storageFailure(TARGET, status, body, attempts);
    expect(error.message).toBe(`POST https://uploads.example.com/bucket (knowledge upload) failed: ${said}`);
    expect(error.message).not.toContain('abc');
  });

  it('a file too large is told to be split; any other refusal, to run again', () => {
    expect(storageFailure(TARGET, 400, '<Error><Code>EntityTooLarge</Code></Error>', 1).hint).toBe('The file is larger than the upload target accepts; split it into smaller files.');
    expect(storageFailure(TARGET, 403, '<Error><Code>AccessDenied</Code></Error>', 1).hint).toBe('The presigned upload target refused the file (it may have expired); run again.');
  });
});
