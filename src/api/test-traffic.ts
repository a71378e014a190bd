/**
 * Sessions voxform starts itself — `voxform test` conversations and `voxform chat` — carry one key
 * in their session metadata, which the service keeps in the call record; so a report can tell them
 * from production calls (docs/report.md, "Test traffic"). The key is set after any metadata a test
 * file gives, so a test cannot drop the label.
 */
import { isPlainObject } from '../util/json-object.js';

export const TEST_TRAFFIC_KEY = 'voxform_source';
const TEST_TRAFFIC_SOURCES = ['test', 'chat'] as const;
type TestTrafficSource = (typeof TEST_TRAFFIC_SOURCES)[number];

/** The session metadata to start a session of `source` with: `metadata` plus the label. */
export function labelAsTestTraffic(metadata: Record<string, unknown> | undefined, source: TestTrafficSource): Record<string, unknown> {
  return { ...metadata, [TEST_TRAFFIC_KEY]: source };
}

/** Which of voxform's own sessions a call record is, or undefined for any other call. */
export function testTrafficSource(record: { metadata?: unknown }): TestTrafficSource | undefined {
  const value = isPlainObject(record.metadata) ? record.metadata[TEST_TRAFFIC_KEY] : undefined;
  return TEST_TRAFFIC_SOURCES.find((source) => source === value);
}
