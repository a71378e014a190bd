import { describe, expect, it } from 'vitest';
import { callToolWebhook } from '../../src/emulator/llm-tools.js';
import { toolMockAnswer, toolMockUrl } from '../../src/util/tool-mocks.js';
import { withToolMocks } from '../../src/conversations/mock-tools.js';

describe('mocked tools (mock_tools:)', () => {
  it('a mock URL carries its answer, and the emulator answers it without calling anything, whatever its webhook policy', async () => {
    const url = toolMockUrl({ slots: ['09:00', '11:30'], note: 'a & b = "c"' });
    expect(new URL(url).hostname).toBe('mock.voxform.invalid');
    expect(toolMockAnswer(new URL(url))).toBe('{"slots":["09:00","11:30"],"note":"a & b = \\"c\\""}');
    expect(toolMockAnswer(new URL(toolMockUrl('plain text')))).toBe('plain text');
    expect(toolMockAnswer(new URL('https://api.example.com/?returns=x'))).toBeUndefined();
    for (const policy of ['none', 'loopback', 'all'] as const) {
      expect(await callToolWebhook({ tool: { name: 'find_slots', webhook: url } as never, args: { date: '2026-03-03' }, sessionId: 's', metadata: {}, policy })).toBe(
        '{"slots":["09:00","11:30"],"note":"a & b = \\"c\\""}',
      );
    }
  });

  it('replaces the named tools’ webhooks in the config sent, and refuses a name the agent has no tool of', () => {
    const config = { tools: [{ name: 'find_slots', webhook: 'https://api.example.com/slots', header: { authorization: 'x' } }, { name: 'book', webhook: 'https://api.example.com/book' }] };
    const mocked = withToolMocks(config as never, { find_slots: [] }) as { tools: Array<{ name: string; webhook: string; header?: unknown }> };
    expect(mocked.tools.map((tool) => tool.webhook)).toEqual([toolMockUrl([]), 'https://api.example.com/book']);
    expect(mocked.tools[0]?.header).toEqual({ authorization: 'x' });
    expect(() => withToolMocks(config as never, { transfer: 'ok' })).toThrow('mock_tools names transfer, which the agent has no tool of (its tools: find_slots, book).');
  });
});
