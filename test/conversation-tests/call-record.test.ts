/**
 * Reading a conversation's call record back (src/conversations/call-record.ts): a test's
 * conversations may make records of about a megabyte each, so the call log is read in pages whose
 * answer stays far below the largest the client reads.
 */
import { expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { MAX_RESPONSE_BYTES } from '../../src/api/http.js';
import { findCallRecord } from '../../src/conversations/call-record.js';

/** The largest record a test's conversation makes: fifty turns of 10,000 characters each way. */
const LARGEST_RECORD_BYTES = 50 * 2 * 10_000 * 1.1;

it('reads the call log in pages a test\'s largest records keep below the largest answer read', async () => {
  const asked: Array<{ max?: number; pageSize?: number }> = [];
  const client = {
    async *iterateCallLogs(_filters: unknown, options: { max?: number; pageSize?: number }) {
      asked.push(options);
      yield { call_id: 'c1', session_id: 's1', call_status: 'chat_completion', chat: '[]' };
    },
  } as unknown as ApiClient;
  const record = await findCallRecord({ client, agentId: 'ag_1', sessionId: 's1', transcript: [] });
  expect(record?.call_id).toBe('c1');
  expect(asked).toHaveLength(1);
  const pageSize = asked[0]?.pageSize ?? 100;
  expect(pageSize * LARGEST_RECORD_BYTES).toBeLessThan(MAX_RESPONSE_BYTES / 4);
});
