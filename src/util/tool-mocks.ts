/**
 * Mocked tools (`mock_tools:` in a conversation test): the tool's webhook in the config a test
 * sends becomes a URL on the host `mock.voxform.invalid` that carries the fixed answer. The
 * emulator answers a call to such a URL with that answer and calls nothing; any other service
 * cannot reach it at all (`.invalid` never resolves, RFC 6761), so a mock can never send a tool's
 * arguments anywhere. The format is shared by the test runner (which writes it) and the emulator
 * (which reads it).
 */
const TOOL_MOCK_HOST = 'mock.voxform.invalid';

/** The webhook URL that answers `returns` (any JSON value; a string is answered as it is). */
export function toolMockUrl(returns: unknown): string {
  const answer = typeof returns === 'string' ? returns : JSON.stringify(returns ?? null);
  return `https://${TOOL_MOCK_HOST}/?returns=${encodeURIComponent(answer)}`;
}

/** The fixed answer a mock URL carries; undefined for any other URL. */
export function toolMockAnswer(url: URL): string | undefined {
  if (url.hostname !== TOOL_MOCK_HOST) return undefined;
  return url.searchParams.get('returns') ?? '';
}
