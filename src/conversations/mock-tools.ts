/**
 * `mock_tools:` in the config a test sends: each named tool's webhook replaced by a mock URL that
 * carries its fixed answer (src/util/tool-mocks.ts), so the agent's tool calls are answered without
 * the real webhook. Only the configuration voxform sends can be mocked (`--against desired`).
 */
import { VoxformError } from '../errors.js';
import type { AgentConfigUpdate } from '../schema/types.gen.js';
import { isPlainObject } from '../util/json-object.js';
import { toolMockUrl } from '../util/tool-mocks.js';

export function withToolMocks(config: AgentConfigUpdate, mocks: Readonly<Record<string, unknown>>): AgentConfigUpdate {
  const tools = Array.isArray(config.tools) ? config.tools : [];
  const names = new Set(tools.flatMap((tool) => (isPlainObject(tool) && typeof tool.name === 'string' ? [tool.name] : [])));
  const unknown = Object.keys(mocks).filter((name) => !names.has(name));
  if (unknown.length > 0) {
    throw new VoxformError('tests_invalid', `mock_tools names ${unknown.join(', ')}, which the agent has no tool of (its tools: ${[...names].join(', ') || 'none'}).`, { hint: 'Name only tools of the agent under mock_tools (docs/testing.md).' });
  }
  const mocked = tools.map((tool) => (isPlainObject(tool) && typeof tool.name === 'string' && Object.hasOwn(mocks, tool.name) ? { ...tool, webhook: toolMockUrl(mocks[tool.name]) } : tool));
  return { ...config, tools: mocked } as AgentConfigUpdate;
}
