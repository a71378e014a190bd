/**
 * `drift --notify URL`: the report posted to a receiver the operator named (a flag, never a file of
 * the repository), as the JSON report or as a Slack-compatible message (`{text, blocks}`: addresses,
 * field paths and classes, no value). Every body passes the run's secret scrub before it leaves.
 */
import { formatTimeout } from '../api/errors.js';
import { VoxformError } from '../errors.js';
import type { Redact } from '../secrets/redact.js';
import { httpUrl } from '../util/http-url.js';
import { toJsonText } from '../util/printable.js';
import { checked, classLabel, countsLine, goneAgentsNote, healCounts, healedNote, healNote, notComparedNote, resourceLabel, stateNote, valueNotShownNote } from './labels.js';
import { driftToJson } from './render-json.js';
import type { DriftedField, DriftReport } from './types.js';

export type NotifyFormat = 'json' | 'slack';

/** Resources listed in a Slack message: a message holds at most 50 blocks. */
const SLACK_RESOURCES = 20;

/** Slack's mrkdwn gives `&`, `<` and `>` meaning (links, mentions): escaped as Slack documents. */
function slackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A field of a resource in a Slack message: its path and class, and why its value is not shown when it is not. */
function slackFieldLine(field: DriftedField): string {
  const notShown = valueNotShownNote(field);
  return `${slackText(field.field.path)} (${classLabel(field, slackText)}${notShown ? `: ${notShown}` : ''})`;
}

function slackMessage(report: DriftReport, applyCommand: string | undefined): Record<string, unknown> {
  const where = slackText(`${report.workspace}`);
  const apply = applyCommand === undefined ? undefined : slackText(applyCommand);
  const notes = [goneAgentsNote(report, slackText, apply), notComparedNote(report, slackText)].filter((note) => note !== undefined);
  const noteBlocks = notes.map((note) => ({ type: 'context', elements: [{ type: 'mrkdwn', text: note }] }));
  if (report.resources.length === 0) {
    const text = `voxform drift: no drift on ${where} (${checked(report)}).`;
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, ...noteBlocks] };
  }
  const healed = report.heal ? ` ${healCounts(report.heal)}.` : '';
  const text = `voxform drift on ${where}: ${slackText(countsLine(report))}.${healed}`;
  const shown = report.resources.slice(0, SLACK_RESOURCES);
  const blocks: Array<Record<string, unknown>> = [{ type: 'section', text: { type: 'mrkdwn', text: `*voxform drift* on ${where}\n${slackText(countsLine(report))}.${healed}` } }];
  // Why no difference is told as in git or changed outside voxform: the text and Markdown reports open with it too.
  const state = stateNote(report, slackText, apply);
  if (state) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: state }] });
  for (const resource of shown) {
    const fields = resource.fields.map(slackFieldLine).join(', ');
    const note = report.heal ? healedNote(resource, report.heal) : healNote(resource, slackText);
    const heal = note ? ` \`--heal\` ${note}.` : '';
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*${slackText(resource.address)}*: ${resourceLabel(resource, slackText)}.${heal}${fields ? `\n${fields}` : ''}` } });
  }
  if (report.resources.length > shown.length) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `and ${report.resources.length - shown.length} more: run \`voxform drift\` to see them all.` }] });
  }
  return { text, blocks: [...blocks, ...noteBlocks] };
}

/**
 * The body posted: the report in `format`, scrubbed of every secret the run knows. `applyCommand`:
 * the `voxform apply` line with this run's options, for a Slack message's note on agents the service lost.
 */
export function notificationBody(report: DriftReport, format: NotifyFormat, redact: Redact, applyCommand?: string): string {
  const document = format === 'slack' ? slackMessage(report, applyCommand) : driftToJson(report);
  return redact(toJsonText(document));
}

/** The receiver's URL, checked: http or https, no user or password in it. */
export function parseNotifyUrl(text: string): URL {
  const url = httpUrl(text);
  if (!url) {
    throw new VoxformError('drift_notify_url_invalid', '--notify must be an http:// or https:// URL without a user or password in it.', {
      hint: 'Give the receiver\'s URL as your chat tool or alerting service shows it, e.g. https://hooks.slack.com/services/….',
    });
  }
  return url;
}

/** The receiver's answer is read and dropped (it is not ours to show): one heavier than this is a failed delivery. */
const MAX_RECEIVER_ANSWER_BYTES = 1024 * 1024;

/**
 * Posts `body` as JSON; anything but a 2xx answer is an error saying why. The URL is named by its
 * origin only: a chat tool's webhook URL holds its token in the path.
 */
export async function sendNotification(url: URL, body: string, options: { timeoutMs: number; signal?: AbortSignal | undefined }): Promise<void> {
  // Loaded with the first notification: `drift` without --notify needs no HTTP client.
  const { HostClient, isHostTimeout } = await import('../util/host-client.js');
  const failed = (reason: string) =>
    new VoxformError('drift_notify_failed', `The drift notification to ${url.origin} was not delivered: ${reason}.`, {
      hint: 'Check the --notify URL and that the receiver is up; `voxform drift` without --notify shows the report.',
    });
  const receiver = new HostClient({ timeoutMs: options.timeoutMs, maxAnswerBytes: MAX_RECEIVER_ANSWER_BYTES });
  let status: number;
  try {
    ({ status } = await receiver.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'voxform-drift' }, body, signal: options.signal }));
  } catch (error) {
    // undici's time-out errors name its timer: said as what the receiver did, with the wait it was given.
    if (isHostTimeout(error)) throw failed(`the receiver did not answer within ${formatTimeout(options.timeoutMs)} (--timeout gives it longer)`);
    const code = (error as { code?: unknown }).code;
    throw failed(typeof code === 'string' ? `${code} (${error instanceof Error ? error.message : String(error)})` : error instanceof Error ? error.message : String(error));
  } finally {
    await receiver.close();
  }
  if (status < 200 || status > 299) throw failed(`the receiver answered HTTP ${status}`);
}
