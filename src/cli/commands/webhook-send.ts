import type { GlobalCallHistoryRecord } from '../../schema/types.gen.js';
import { TrustedSecrets } from '../../secrets/trusted.js';
import { callById } from '../../api/call-by-id.js';
import { validateAgainst } from '../../schema/validate.js';
import { WebhookSender, type WebhookOutcome } from '../../emulator/webhooks.js';
import { END_CALL_STATUSES } from '../../emulator/types.js';
import { VoxformError } from '../../errors.js';
import { WEBHOOK_BUDGET_MS } from '../../webhooks/budget.js';
import { endOfCallPayload, prefetchQuery, type EndedCallRecord } from '../../webhooks/payload.js';
import { prefetchAnswerProblem } from '../../webhooks/receive.js';
import { sampleCallRecord } from '../../webhooks/sample.js';
import type { CommandContext } from '../context.js';
import type { ProjectOptions } from '../project.js';
import { headerNames, loadAgentWebhooks, WEBHOOK_FIELD, type AgentWebhooks, type WebhookEvent } from '../webhook-agent.js';
import { formatDotted } from '../../util/field-path.js';
import { printable } from '../../util/printable.js';
import { formatCount } from '../../util/plural.js';

interface WebhookSendOptions extends ProjectOptions {
  to?: string;
  toConfigured?: boolean;
  event: WebhookEvent;
  call?: string;
  agent?: string;
}

/**
 * Refuses a target the flags alone leave unclear (neither flag, both, --to-configured without
 * --agent), before any manifest is read: a folder without one must not hide the flags' problem.
 */
function checkTargetFlags(options: WebhookSendOptions): void {
  if ((options.to === undefined) === (options.toConfigured !== true)) {
    throw new VoxformError('webhook_target_missing', options.to === undefined ? 'Say where to send the webhook: --to URL, or --to-configured for the URL the agent configures.' : '--to and --to-configured contradict each other.', {
      hint: 'Give --to http://127.0.0.1:4020/hook for a receiver you run; --to-configured (with --agent) sends to the manifest\'s URL — only for manifests you have reviewed (docs/webhooks.md).',
    });
  }
  if (options.toConfigured && options.agent === undefined) {
    throw new VoxformError('webhook_target_missing', '--to-configured needs --agent NAME: the URL is the one that agent configures.', { hint: 'Add --agent NAME (an agent of the manifests), or give --to URL instead.' });
  }
}

/** Where the payload goes: the operator's `--to`, or (asked for explicitly) the agent's configured URL. */
function chooseTarget(options: WebhookSendOptions, agent: AgentWebhooks | undefined): URL {
  let raw = options.to;
  if (options.toConfigured && agent) {
    raw = agent.hooks[options.event].url;
    if (raw === undefined) {
      throw new VoxformError('webhook_not_configured', `Agent ${agent.localName} configures no ${WEBHOOK_FIELD[options.event]}, so there is no URL to send the ${options.event} webhook to.`, {
        hint: 'Give --to URL instead, or add the webhook to the agent\'s config.',
      });
    }
  }
  const flag = options.toConfigured ? `${agent?.localName ?? ''}'s ${WEBHOOK_FIELD[options.event]}` : '--to';
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    throw new VoxformError('webhook_url_invalid', `${flag} is not a URL.`, { hint: 'Give a full http:// or https:// URL, such as http://127.0.0.1:4020/hook.' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new VoxformError('webhook_url_invalid', `${flag} uses ${url.protocol.slice(0, -1)}; webhooks are http:// or https://.`, { hint: 'Give a full http:// or https:// URL.' });
  }
  return url;
}

/** Without --agent: the operator's service, else the one the manifests (if any) name, as for `voxform logs`. */
async function connectWithoutAgent(options: WebhookSendOptions, ctx: CommandContext) {
  const { service } = await (await import('../load-manifests.js')).manifestProject(options, ctx);
  return (await import('../connection.js')).resolveConnection({ ...options, manifest: service }, ctx);
}

/** The logged call `--call` names, searched newest first (only the agent's calls with `--agent`). */
async function findLoggedCall(callId: string, options: WebhookSendOptions, agent: AgentWebhooks | undefined, ctx: CommandContext): Promise<GlobalCallHistoryRecord> {
  // The HTTP client loads only here: a sample payload needs no service (and starts faster without it).
  const connection = agent ? await (await import('../project.js')).connectService(options, agent.desired, ctx) : await connectWithoutAgent(options, ctx);
  const record = await callById(connection.client, callId, {
    filters: agent ? { agent_id: agent.id } : {},
    whose: agent ? ` of agent ${agent.localName}` : '',
    hint: 'List calls with `voxform logs`, or leave out --call to send a sample payload.',
  });
  // Its headers, credentials and keys are secrets, unless the checkout served it (src/secrets/trusted.ts).
  new TrustedSecrets(ctx.env, ctx.secrets, connection.liveSource).noteCallRecord(record);
  return record;
}

interface Delivery {
  method: 'GET' | 'POST';
  query?: Record<string, string>;
  body?: unknown;
  /** What the payload came from, for the result line. */
  source: string;
  callId: string;
  sessionId: string;
}

/** The schema's first finding, for an error message: its path may name a key of the service's record, shown escaped. */
function schemaProblem(name: string, value: unknown): string | undefined {
  const issue = validateAgainst(name, value)[0];
  return issue ? printable(`${formatDotted(issue.path) || '(payload)'} ${issue.message}`) : undefined;
}

/** The request to send: a sample call's, or the logged call's, checked against the schema first. */
function buildDelivery(event: WebhookEvent, record: EndedCallRecord, logged: boolean): Delivery {
  const source = logged ? `the payload of call ${record.call_id ?? ''}` : 'a sample payload';
  const callId = record.call_id ?? '';
  const sessionId = record.session_id ?? '';
  if (event === 'prefetch') {
    const voip = record.voip ?? {};
    const query = prefetchQuery({ session_id: sessionId, agent_id: record.agent_id ?? '', from: voip.from as string | undefined, to: voip.to as string | undefined, metadata: record.metadata });
    const problem = schemaProblem('PrefetchWebhookQuery', query);
    if (problem) throw new VoxformError('webhook_payload_invalid', `Call ${callId} does not make a valid prefetch request: ${problem}.`, { hint: 'Pick another call with --call, or leave out --call to send a sample payload.' });
    return { method: 'GET', query, source, callId, sessionId };
  }
  if (logged && !END_CALL_STATUSES.includes(record.call_status as (typeof END_CALL_STATUSES)[number])) {
    throw new VoxformError('webhook_call_not_ended', `Call ${callId} has not ended (its status is ${printable(String(record.call_status ?? 'unknown'))}), so the service has sent no end-of-call webhook for it.`, {
      hint: 'Pick an ended call (`voxform logs`), or leave out --call to send a sample payload.',
    });
  }
  const body = endOfCallPayload(record);
  const problem = schemaProblem('EndOfCallPayload', body);
  if (problem) throw new VoxformError('webhook_payload_invalid', `Call ${callId} does not make a valid end-of-call payload: ${problem}.`, { hint: 'Pick another call with --call, or leave out --call to send a sample payload.' });
  return { method: 'POST', body, source, callId, sessionId };
}

interface SendVerdict {
  ok: boolean;
  line: string;
}

/** Whether the receiver's answer passes: 2xx within the budget, and for prefetch a `PrefetchWebhookResponse`. */
function judgeDelivery(event: WebhookEvent, outcome: WebhookOutcome): SendVerdict {
  const { delivery } = outcome;
  const timing = `in ${Math.round(delivery.duration_ms)} ms (the service waits ${formatCount(WEBHOOK_BUDGET_MS)} ms)`;
  if (!delivery.ok) {
    return { ok: false, line: `FAIL  the receiver ${delivery.error ?? 'failed'}; ${event === 'prefetch' ? 'the service would go on without the extra data' : 'the service expects a 2xx answer'}` };
  }
  if (event === 'end-of-call') return { ok: true, line: `PASS  answered ${delivery.status ?? ''} ${timing}` };
  if (outcome.answer === undefined) return { ok: false, line: `FAIL  answered ${delivery.status ?? ''} ${timing} with no JSON body; a prefetch answer is a PrefetchWebhookResponse such as {"metadata":{},"extra_prompt":"…"}` };
  const problem = prefetchAnswerProblem(outcome.answer);
  if (problem) return { ok: false, line: `FAIL  answered ${delivery.status ?? ''} ${timing}, but not with a PrefetchWebhookResponse: ${problem}; the service would ignore it` };
  const answer = outcome.answer as { metadata?: Record<string, unknown>; extra_prompt?: string };
  const metadata = Object.keys(answer.metadata ?? {});
  const parts = [`metadata ${metadata.length > 0 ? `keys ${metadata.join(', ')}` : 'none'}`, `extra_prompt ${answer.extra_prompt === undefined ? 'none' : `of ${answer.extra_prompt.length} characters`}`];
  return { ok: true, line: `PASS  answered ${delivery.status ?? ''} ${timing} with a PrefetchWebhookResponse: ${parts.join('; ')}` };
}

/** `voxform webhook send`: one webhook to a receiver, with the agent's headers, and a verdict (exit 0 on a pass). */
export async function run(options: WebhookSendOptions, ctx: CommandContext): Promise<number> {
  checkTargetFlags(options);
  const agent = options.agent === undefined ? undefined : await loadAgentWebhooks(options.agent, options, ctx, 'nothing was sent');
  const url = chooseTarget(options, agent);
  const record = options.call === undefined ? sampleCallRecord({ agentId: agent?.id, agentConfig: agent?.config, ts: Math.floor(Date.now() / 1000) }) : await findLoggedCall(options.call, options, agent, ctx);
  const delivery = buildDelivery(options.event, record, options.call !== undefined);
  const headers = agent?.hooks[options.event].headers ?? {};

  const sender = new WebhookSender(WEBHOOK_BUDGET_MS, 'all');
  ctx.onExit(() => sender.abortAll());
  const target = { url: url.href, headers };
  const hook = options.event === 'prefetch' ? 'prefetch' : 'end_of_call';
  const sent = `${delivery.method} ${url.origin}${url.pathname}`;
  const headerText = agent ? `headers of agent ${agent.localName}: ${headerNames(headers)}` : 'no headers (--agent NAME sends the agent\'s)';
  ctx.stdout.write(`${options.event}  ${sent}  (${delivery.source}; ${headerText})\n`);
  const outcome = await sender.send({ hook, target, call_id: delivery.callId, session_id: delivery.sessionId, ...(delivery.query ? { query: delivery.query } : {}), ...(delivery.body === undefined ? {} : { body: delivery.body }) });
  const verdict = judgeDelivery(options.event, outcome);
  // The verdict quotes the receiver's answer: its control characters are shown escaped.
  ctx.stdout.write(`${printable(verdict.line)}\n`);
  return verdict.ok ? 0 : 1;
}
