import { createInterface } from 'node:readline';
import { terminalColors } from '../../util/terminal-colors.js';
import { isApiError } from '../../api/index.js';
import { printable, printableKeepingLines } from '../../util/printable.js';
import { manifestAgentNames, resolveAgentArgument } from '../agent-argument.js';
import { resolveConnection } from '../connection.js';
import type { CommandContext } from '../context.js';
import { labelAsTestTraffic } from '../../api/test-traffic.js';
import { errorText } from '../error-text.js';
import { manifestProject } from '../load-manifests.js';
import { operatorTrustedSecrets, type ProjectOptions } from '../project.js';

interface ChatOptions extends ProjectOptions {
  agent: string;
}

const EXIT_COMMANDS = new Set(['/exit', '/quit', '/bye']);

/** The id came from the command line: the client's own hint points at the manifest. */
const AGENT_NOT_FOUND_HINT = "Check the id given with --agent (the dashboard lists your agents; a manifest has each one's under id:).";

/**
 * `voxform chat --agent NAME|ID`: a text conversation, the agent's greeting and replies streamed to stdout; on a terminal it prompts
 * and `/exit` or Ctrl-D ends it, otherwise each line of stdin is a message. The session is always ended.
 */
export async function run(options: ChatOptions, ctx: CommandContext): Promise<number> {
  // A conversation is not work a stop leaves half-done: the stop ends it (its session with it), and another starts anew.
  ctx.stopLeaves?.({
    leftUndone: 'the conversation is over',
    hint: 'A chat has nothing to finish: run `voxform chat` again, with the same options, for a new conversation.',
  });
  const interactive = Boolean(ctx.stdin.isTTY) && ctx.stderr.isTTY;
  const project = await manifestProject(options, ctx);
  const { client, serviceId, liveSource } = await resolveConnection({ ...options, manifest: project.service }, ctx);

  // Fail before the first message when the agent does not exist, and name it on a terminal.
  const agentId = await resolveAgentArgument(options.agent, manifestAgentNames(project), client);
  const agent = await client.getAgent(agentId).catch((error: unknown) => {
    throw isApiError(error) && error.code === 'api_not_found' ? error.withHint(AGENT_NOT_FOUND_HINT) : error;
  });
  // What `${env:…}` put on the agent stays hidden in its replies, whether or not this job holds the variable.
  (await operatorTrustedSecrets(options, ctx, { environment: options.env, serviceId, liveSource }, { note: 'later' })).noteLiveAgent(agent);
  // Labelled as test traffic, so call reports leave it out of production figures.
  const session = client.chatSession({ agentId, metadata: labelAsTestTraffic(undefined, 'chat') });
  ctx.onExit(() => session.end().catch(() => undefined));

  const c = terminalColors(ctx.color);
  // The agent's name and replies are a model's text: control characters shown escaped (a reply keeps its lines).
  const agentName = printable(agent.name || agentId);
  const prompt = () => {
    if (interactive) ctx.stderr.write(c.bold('you> '));
  };
  if (interactive) {
    ctx.stderr.write(`Chatting with ${agentName} (${printable(agentId)}). Type /exit or press Ctrl-D to end.\n`);
  }

  /**
   * Streams one reply to stdout, ended with a newline (on a terminal after the agent's name). An empty
   * greeting (an agent that waits for the caller) prints nothing. On a terminal a failed turn is
   * reported and the conversation goes on; a script stops.
   */
  const showReply = async (deltas: AsyncIterable<string>, options: { greeting: boolean }) => {
    let started = false;
    const show = (text: string) => {
      if (!started && interactive) ctx.stdout.write(c.cyan(`${agent.name ? printable(agent.name) : 'agent'}> `));
      started = true;
      ctx.stdout.write(printableKeepingLines(text));
    };
    try {
      if (!options.greeting) show('');
      // Redacted as one text: a stream may split a secret over two pieces.
      for await (const text of ctx.secrets.redactPieces(deltas)) show(text);
      if (started) ctx.stdout.write('\n');
    } catch (error) {
      if (started) ctx.stdout.write('\n');
      if (!interactive || !isApiError(error)) throw error;
      ctx.stderr.write(errorText(error));
    }
  };

  // The agent speaks first, as on a call: its first_message.
  await showReply(session.greeting(), { greeting: true });
  const lines = createInterface({ input: ctx.stdin, crlfDelay: Infinity, terminal: false });
  prompt();
  try {
    for await (const raw of lines) {
      const message = raw.trim();
      if (message === '') {
        prompt();
        continue;
      }
      if (interactive && EXIT_COMMANDS.has(message)) break;
      await showReply(session.send(message), { greeting: false });
      prompt();
    }
  } finally {
    lines.close();
  }
  if (interactive) ctx.stderr.write('\n');
  await session.end();
  return 0;
}
