/**
 * The key of a recorded exchange: the hash of everything that determines its answer, so a replay
 * finds an answer exactly when the same request would be made again. For an agent turn: the
 * agent's configuration hash (src/history/config-hash.ts: its secrets masked), the session's
 * metadata, and the conversation so far; for a model call: the model and its messages (the rubric
 * and the text judged, or the caller's persona and the conversation); for a call record: the
 * transcript. Always with the test, target and run, so a flaky test's runs replay as they went.
 *
 * The texts are hashed as they are written to the recording — redacted — so a key computed while
 * recording (from replies that may hold a secret) is the key computed when replaying (from the
 * redacted replies the recording holds).
 */
import { canonicalJson, sha256 } from '../../util/hash.js';
import type { Redact } from '../../secrets/redact.js';
import type { Target } from '../types.js';

export interface RunIdentity {
  /** The test file as reports show it. */
  file: string;
  test: string;
  target: Target;
  /** 1-based. */
  run: number;
  /** The configuration hash of the agent talked to (see RecordingAgent). */
  agentHash: string;
}

export function exchangeKey(run: RunIdentity, kind: string, request: unknown, redact: Redact): string {
  const { test, target, run: index, agentHash } = run;
  return sha256(redact(canonicalJson({ kind, test, target, run: index, agent: agentHash, request })));
}

