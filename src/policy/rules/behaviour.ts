/** How the agent behaves on a call: transfers, tool descriptions, settings within sensible bounds. */
import type { PathPart } from '../../manifest/positions.js';
import type { DesiredAgent, DesiredState } from '../../manifest/types.js';
import { isPlainObject } from '../../util/json-object.js';
import { formatCount } from '../../util/plural.js';
import { configLocation, numberAt, promptPlace } from '../places.js';
import { perDistinctText } from '../distinct-texts.js';
import { valueAtPath } from '../../util/field-path.js';
import type { PolicyRule, RuleHit } from '../types.js';

/** Longest a caller should wait in silence for a tool. */
const TOOL_TIMEOUT_MAX_MS = 15_000;

/** A prompt that tells the model to hand the caller to a person. */
const SPEAKS_OF_TRANSFER = /\btransfer(?:s|red|ring)?\b|\bput (?:them|you|the caller) through\b/i;

function agents(desired: DesiredState): DesiredAgent[] {
  return [...desired.agents.values()];
}

function hasTransferTarget(agent: DesiredAgent): boolean {
  const transfer = valueAtPath(agent.config, ['flow', 'call_transfer']);
  if (!isPlainObject(transfer)) return false;
  return (typeof transfer.phone === 'string' && transfer.phone !== '') || (Array.isArray(transfer.phones) && transfer.phones.length > 0);
}

/** Functions the model chooses by their description: tools and platform functions, with their paths. */
function functionsOf(agent: DesiredAgent): Array<{ path: PathPart[]; value: Record<string, unknown>; label: string }> {
  const out: Array<{ path: PathPart[]; value: Record<string, unknown>; label: string }> = [];
  for (const list of ['tools', 'platform_functions'] as const) {
    const items = agent.config[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item, index) => {
      if (isPlainObject(item)) out.push({ path: [list, index], value: item, label: `${list}[${index}]${typeof item.name === 'string' ? ` "${item.name}"` : ''}` });
    });
  }
  return out;
}

/** A test of whether a value is not a string or is white space only, made for one check: each distinct text is trimmed once. */
function blankTest(): (value: unknown) => boolean {
  const blankText = perDistinctText((text) => text.trim() === '');
  return (value) => typeof value !== 'string' || blankText(value);
}

/** A rule that a number of the config stays within bounds. */
function boundsRule(spec: { id: string; path: PathPart[]; min: number; max: number; unit: string; summary: string; hint: string; why: string }): PolicyRule {
  const shown = (value: number) => `${formatCount(value)}${spec.unit}`;
  return {
    id: spec.id,
    area: 'behaviour',
    level: 'advisory',
    summary: spec.summary,
    hint: spec.hint,
    check: ({ desired }) =>
      agents(desired).flatMap((agent): RuleHit[] => {
        const found = numberAt(agent, spec.path);
        if (!found || (found.value >= spec.min && found.value <= spec.max)) return [];
        return [{ resource: agent.address, message: `${spec.path.join('.')} is ${shown(found.value)}, outside ${shown(spec.min)} to ${shown(spec.max)}: ${spec.why}`, location: found.locate() }];
      }),
  };
}

export const BEHAVIOUR_RULES: PolicyRule[] = [
  {
    id: 'behaviour-transfer-target',
    area: 'behaviour',
    level: 'mandatory',
    summary: 'A prompt that speaks of transferring the caller has a transfer target (flow.call_transfer).',
    hint: 'Configure flow.call_transfer.phone (or phones), or take the transfer out of the prompt.',
    check: ({ desired }) => {
      const transferAt = perDistinctText((text) => SPEAKS_OF_TRANSFER.exec(text)?.index);
      return agents(desired).flatMap((agent): RuleHit[] => {
        const prompt = promptPlace(desired, agent);
        const at = prompt ? transferAt(prompt.text) : undefined;
        if (!prompt || at === undefined || hasTransferTarget(agent)) return [];
        return [{ resource: agent.address, message: 'the prompt speaks of transferring the caller, but flow.call_transfer has no number to transfer to', location: prompt.at(at) }];
      });
    },
  },
  {
    id: 'behaviour-tool-description',
    area: 'behaviour',
    level: 'mandatory',
    summary: 'Every tool and platform function has a description.',
    hint: 'Say what the tool does and when to use it: the model chooses tools by their descriptions.',
    check: ({ desired }) => {
      const blank = blankTest();
      return agents(desired).flatMap((agent) =>
        functionsOf(agent)
          .filter((fn) => blank(fn.value.description))
          .map((fn) => ({ resource: agent.address, message: `${fn.label} has no description, so the model cannot tell when to use it`, location: configLocation(agent, fn.path) })),
      );
    },
  },
  {
    id: 'behaviour-parameter-description',
    area: 'behaviour',
    level: 'advisory',
    summary: 'Every tool parameter has a description.',
    hint: 'Describe each parameter, with its format ("The day, as YYYY-MM-DD").',
    check: ({ desired }) => {
      const blank = blankTest();
      return agents(desired).flatMap((agent) =>
        functionsOf(agent).flatMap((fn) => {
          const params = fn.value.params;
          if (!Array.isArray(params)) return [];
          return params.flatMap((param, index): RuleHit[] =>
            isPlainObject(param) && blank(param.description)
              ? [{ resource: agent.address, message: `parameter ${typeof param.name === 'string' ? `"${param.name}"` : index} of ${fn.label} has no description`, location: configLocation(agent, [...fn.path, 'params', index]) }]
              : [],
          );
        }),
      );
    },
  },
  {
    id: 'behaviour-empty-prompt',
    area: 'behaviour',
    level: 'mandatory',
    summary: 'A prompt the manifest sets is not empty.',
    hint: 'Write the prompt, or leave `prompt` out to keep the live one.',
    check: ({ desired }) => {
      const blank = blankTest();
      return agents(desired).flatMap((agent): RuleHit[] => {
        const prompt = promptPlace(desired, agent);
        return prompt && blank(prompt.text) ? [{ resource: agent.address, message: 'the prompt is empty', location: prompt.at(0) }] : [];
      });
    },
  },
  boundsRule({
    id: 'behaviour-temperature',
    path: ['llm', 'temperature'],
    min: 0,
    max: 1,
    unit: '',
    summary: 'llm.temperature between 0 and 1.',
    hint: 'Use 0.2 to 0.6 for an agent that must follow a script; higher values make it improvise.',
    why: 'a phone agent that improvises says things no one reviewed',
  }),
  boundsRule({
    id: 'behaviour-response-delay',
    path: ['flow', 'response_delay'],
    min: 0,
    max: 1500,
    unit: ' ms',
    summary: 'flow.response_delay at most 1,500 ms.',
    hint: 'Use 100 to 500 ms: callers hear a longer pause as a dropped line.',
    why: 'callers hear a long pause as a dropped line',
  }),
  boundsRule({
    id: 'behaviour-max-duration',
    path: ['session_timeout', 'max_duration'],
    min: 60_000,
    max: 3_600_000,
    unit: ' ms',
    summary: 'session_timeout.max_duration between 1 minute and 1 hour.',
    hint: 'Set the longest call you expect, with room to spare (15 minutes is 900000).',
    why: 'too short cuts callers off, too long lets a stuck call run up cost',
  }),
  boundsRule({
    id: 'behaviour-idle-time',
    path: ['flow', 'inactivity_handling', 'idle_time'],
    min: 3_000,
    max: 60_000,
    unit: ' ms',
    summary: 'flow.inactivity_handling.idle_time between 3 and 60 seconds.',
    hint: 'Use 8000 to 15000 ms: long enough to think, short enough to notice a dropped caller.',
    why: 'the agent interrupts a thinking caller, or waits on a line that went dead',
  }),
  {
    id: 'behaviour-tool-timeout',
    area: 'behaviour',
    level: 'advisory',
    summary: `Tool time-outs of at most ${formatCount(TOOL_TIMEOUT_MAX_MS)} ms.`,
    hint: 'Make the tool answer faster, or say a message first (messages) and keep the time-out at most 15000 ms.',
    check: ({ desired }) =>
      agents(desired).flatMap((agent) =>
        functionsOf(agent).flatMap((fn): RuleHit[] => {
          const found = numberAt(agent, [...fn.path, 'timeout']);
          if (!found || found.value <= TOOL_TIMEOUT_MAX_MS) return [];
          const most = formatCount(TOOL_TIMEOUT_MAX_MS);
          return [{ resource: agent.address, message: `${fn.label} waits up to ${formatCount(found.value)} ms (at most ${most} ms): the caller waits in silence`, location: found.locate() }];
        }),
      ),
  },
];

