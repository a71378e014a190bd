/**
 * The `policy` block of a saved plan read back (what `planPolicyJson` wrote), so `plan show` prints
 * it as `plan` did. A saved plan is a kept file a pull request may have edited: every field is
 * checked, and a name holding a control character is refused as a hand edit. Text that may quote the
 * manifest (a message, a reason) is any string: every renderer escapes it.
 */
import { each, isOneOf, name, object, optional, shaped, text, whole } from '../util/json-shape.js';
import type { JsonObject } from '../util/json-object.js';
import type { PlanPolicy } from './plan-policy.js';
import type { Finding, PolicyReport, WaiverStatus } from './types.js';

const LEVELS = ['mandatory', 'advisory'] as const;
const WAIVER_STATES = ['in-force', 'expired', 'unused'] as const;

/** Where a finding or waiver is written, as the saved block keeps it: `file`, `line`, `col` beside its other fields. */
function place(entry: JsonObject, where: string): Finding['location'] {
  return { file: name(entry.file, `${where}.file`), line: whole(entry.line, `${where}.line`), col: whole(entry.col, `${where}.col`) };
}

function finding(value: unknown, where: string): Finding {
  const f = object(value, where);
  return {
    rule: name(f.rule, `${where}.rule`),
    level: shaped(f.level, isOneOf(LEVELS), `${where}.level`, 'mandatory or advisory'),
    resource: text(f.resource, `${where}.resource`),
    message: text(f.message, `${where}.message`),
    hint: text(f.hint, `${where}.hint`),
    location: place(f, where),
  };
}

function waiver(value: unknown, where: string): WaiverStatus {
  const w = object(value, where);
  return {
    rule: text(w.rule, `${where}.rule`),
    resource: text(w.resource, `${where}.resource`),
    reason: text(w.reason, `${where}.reason`),
    expires: text(w.expires, `${where}.expires`),
    state: shaped(w.state, isOneOf(WAIVER_STATES), `${where}.state`, 'in-force, expired or unused'),
    location: place(w, where),
  };
}

/** The saved block as a PlanPolicy; undefined when the plan has none. Throws `ShapeError` at the first field out of shape. */
export function planPolicyFromJson(value: unknown): PlanPolicy | undefined {
  if (value === undefined || value === null) return undefined;
  const p = object(value, 'policy');
  const summary = object(p.summary, 'policy.summary');
  const report: PolicyReport = {
    tokenizer: name(p.tokenizer, 'policy.tokenizer'),
    rules: [],
    findings: each(p.findings, 'policy.findings', finding),
    waived: each(p.waived, 'policy.waived', finding),
    waivers: each(p.waivers, 'policy.waivers', waiver),
    summary: { mandatory: whole(summary.mandatory, 'policy.summary.mandatory'), advisory: whole(summary.advisory, 'policy.summary.advisory'), waived: whole(summary.waived, 'policy.summary.waived') },
  };
  return {
    report,
    promptTokens: each(p.prompt_tokens, 'policy.prompt_tokens', (entry, at) => {
      const t = object(entry, at);
      return { address: name(t.address, `${at}.address`), before: optional(t.before, `${at}.before`, whole), after: whole(t.after, `${at}.after`) };
    }),
    base: optional(p.base, 'policy.base', text),
    relaxations: each(p.relaxations, 'policy.relaxations', (entry, at) => {
      const r = object(entry, at);
      const file = optional(r.file, `${at}.file`, name);
      const line = optional(r.line, `${at}.line`, whole);
      const column = optional(r.column, `${at}.column`, whole);
      return { kind: name(r.kind, `${at}.kind`), message: text(r.message, `${at}.message`), ...(file !== undefined ? { file } : {}), ...(line !== undefined ? { line } : {}), ...(column !== undefined ? { column } : {}) };
    }),
  };
}
