/**
 * The `policy` block of a saved plan read back (what `planPolicyJson` wrote), so `plan show` prints
 * it as `plan` did. A saved plan is a kept file a pull request may have edited: every field is
 * checked, and a text holding a control character is refused as a hand edit.
 */
import { hasControlCharacter } from '../util/printable.js';
import { isPlainObject } from '../util/json-object.js';
import type { PlanPolicy } from './plan-policy.js';
import type { Finding, PolicyReport, WaiverStatus } from './types.js';

class Malformed extends Error {}

/** A name voxform wrote (a rule id, an address, a file): never a control character, which only a hand edit puts there. */
const name = (value: unknown): string => {
  if (typeof value !== 'string' || hasControlCharacter(value)) throw new Malformed();
  return value;
};
/** Text that may quote the manifest (a message, a reason): any string; every renderer escapes it. */
const text = (value: unknown): string => {
  if (typeof value !== 'string') throw new Malformed();
  return value;
};
const count = (value: unknown): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new Malformed();
  return value;
};
const list = (value: unknown): unknown[] => {
  if (!Array.isArray(value)) throw new Malformed();
  return value;
};
const object = (value: unknown): Record<string, unknown> => {
  if (!isPlainObject(value)) throw new Malformed();
  return value;
};
const optional = <T>(value: unknown, read: (v: unknown) => T): T | undefined => (value === null || value === undefined ? undefined : read(value));

function finding(value: unknown): Finding {
  const f = object(value);
  const level = f.level;
  if (level !== 'mandatory' && level !== 'advisory') throw new Malformed();
  return { rule: name(f.rule), level, resource: text(f.resource), message: text(f.message), hint: text(f.hint), location: { file: name(f.file), line: count(f.line), col: count(f.col) } };
}

function waiver(value: unknown): WaiverStatus {
  const w = object(value);
  const state = w.state;
  if (state !== 'in-force' && state !== 'expired' && state !== 'unused') throw new Malformed();
  return { rule: text(w.rule), resource: text(w.resource), reason: text(w.reason), expires: text(w.expires), state, location: { file: name(w.file), line: count(w.line), col: count(w.col) } };
}

/** The saved block as a PlanPolicy; undefined when the plan has none; `malformed` when it cannot be one. */
export function planPolicyFromJson(value: unknown): PlanPolicy | undefined | 'malformed' {
  if (value === undefined || value === null) return undefined;
  try {
    const p = object(value);
    const summary = object(p.summary);
    const report: PolicyReport = {
      tokenizer: name(p.tokenizer),
      rules: [],
      findings: list(p.findings).map(finding),
      waived: list(p.waived).map(finding),
      waivers: list(p.waivers).map(waiver),
      summary: { mandatory: count(summary.mandatory), advisory: count(summary.advisory), waived: count(summary.waived) },
    };
    return {
      report,
      promptTokens: list(p.prompt_tokens).map((entry) => {
        const t = object(entry);
        return { address: name(t.address), before: optional(t.before, count), after: count(t.after) };
      }),
      base: optional(p.base, text),
      relaxations: list(p.relaxations).map((entry) => {
        const r = object(entry);
        const file = optional(r.file, name);
        const line = optional(r.line, count);
        const column = optional(r.column, count);
        return { kind: name(r.kind), message: text(r.message), ...(file !== undefined ? { file } : {}), ...(line !== undefined ? { line } : {}), ...(column !== undefined ? { column } : {}) };
      }),
    };
  } catch (error) {
    if (error instanceof Malformed) return 'malformed';
    throw error;
  }
}
