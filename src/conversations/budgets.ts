/**
 * What a test run may cost. Test files come with pull requests, and each conversation they ask for
 * is requests to the agent's service and, with a judge, to a model billed to the operator: a few
 * hundred KB of YAML could otherwise ask for hours of work. So the work a run's files declare is
 * counted before anything is sent and refused whole when it is over a cap, and the requests the run
 * actually sends are counted as they go (a judge asked again, a simulated caller) against the same
 * cap. The caps are the operator's (`--max-conversations`, `--max-requests`); nothing in a test
 * file raises them. The per-test caps (turns, `repeat`, `max_turns`) are in schemas/tests.schema.json.
 */
import { VoxformError } from '../errors.js';
import type { CompletionModel } from '../model/chat-model.js';
import type { ConversationTest, Target, TestFile } from './types.js';
import { argsOfCheck } from './checks.js';
import { formatCount } from '../util/plural.js';

export interface TestRunLimits {
  /** Conversations (test × target × run) one run may hold. */
  maxConversations: number;
  /** Requests one run may send: agent turns, simulated-caller moves and judge questions together. */
  maxRequests: number;
}

/**
 * At the default parallelism (8) and a second or two per model answer, the largest run allowed
 * takes minutes; a team's suite (tens of tests, a few repeats, both targets) fits well inside.
 */
export const DEFAULT_TEST_RUN_LIMITS: Readonly<TestRunLimits> = { maxConversations: 1_000, maxRequests: 4_000 };

/** The test files of one run together: what a run parses and keeps in memory. */
export const MAX_TEST_BYTES_PER_RUN = 4 * 1024 * 1024;

/** What the run is asked to do besides the files: the targets, `--repeat`, and whether a judge answers. */
interface RunShape {
  targets: readonly Target[];
  /** `--repeat`: replaces each test's own `repeat`. */
  repeat?: number | undefined;
  /** Whether a judge model is there (not with `--skip-judge`): without one, judge checks and simulated callers send nothing. */
  judge: boolean;
}

/** The judge questions a test's checks ask, one each (an argument judged on several calls asks more: counted as sent). */
export function judgeQuestions(test: Pick<ConversationTest, 'turns' | 'expect'>): number {
  let questions = 0;
  for (const turn of test.turns ?? []) questions += turn.checks.filter((check) => check.kind === 'judge').length;
  for (const check of test.expect) {
    if (check.kind === 'judge') questions++;
    for (const args of argsOfCheck(check)) questions += Object.values(args ?? {}).filter((arg) => arg.kind === 'judge').length;
  }
  return questions;
}

/**
 * The most requests one run of a test sends as declared: a request per scripted turn; a simulated
 * conversation's greeting, a caller move and a reply per `max_turns`, and the request ending it;
 * a question per judge check.
 */
export function declaredRequests(test: ConversationTest, judge: boolean): number {
  if (test.simulate) return judge ? 2 + 2 * test.simulate.maxTurns + judgeQuestions(test) : 0;
  return (test.turns?.length ?? 0) + (judge ? judgeQuestions(test) : 0);
}

interface TestShare {
  file: TestFile;
  test: ConversationTest;
  conversations: number;
  requests: number;
}

interface DeclaredWork {
  conversations: number;
  requests: number;
}

function sharesOf(files: readonly TestFile[], shape: RunShape): TestShare[] {
  return files.flatMap((file) =>
    file.tests.map((test) => {
      const conversations = (shape.repeat ?? test.repeat) * shape.targets.length;
      return { file, test, conversations, requests: conversations * declaredRequests(test, shape.judge) };
    }),
  );
}

/**
 * The work the files declare, refused (`test_run_too_large`, nothing sent) when it is over a cap.
 * The error points at the test that asks for the most, the one to look at first.
 */
export function checkDeclaredWork(files: readonly TestFile[], shape: RunShape, limits: TestRunLimits): DeclaredWork {
  const shares = sharesOf(files, shape);
  const work = { conversations: 0, requests: 0 };
  for (const share of shares) {
    work.conversations += share.conversations;
    work.requests += share.requests;
  }
  const over = (what: 'conversations' | 'requests', limit: number, flag: string, explained: string, fewer: string): void => {
    if (work[what] <= limit) return;
    const largest = shares.reduce((a, b) => (b[what] > a[what] ? b : a));
    throw new VoxformError(
      'test_run_too_large',
      `This run asks for ${formatCount(work[what])} ${what} (${explained}), over the cap of ${formatCount(limit)} per run; "${largest.test.name}" asks for the most (${formatCount(largest[what])}). No test was run.`,
      { location: largest.test.location, hint: `Run fewer at once (${fewer}), or, as the operator, raise the cap with ${flag} N (docs/testing.md, Budgets).` },
    );
  };
  // With --repeat, the flag sets every test's repeat: lower the flag, not the files' repeat:.
  const repeat = shape.repeat === undefined ? 'a lower repeat:' : 'a lower --repeat';
  over('conversations', limits.maxConversations, '--max-conversations', 'each test × target × repeat', `--grep, --agent, ${repeat}`);
  over('requests', limits.maxRequests, '--max-requests', 'up to one per scripted turn, two per simulated turn, one per judge check', `--grep, --agent, ${repeat} or max_turns:`);
  return work;
}

/** The requests a run has left: every request to the agent and to the judge model spends one. */
export class RequestBudget {
  #sent = 0;

  constructor(readonly limit: number) {}

  get sent(): number {
    return this.#sent;
  }

  /** Counts a request about to be sent; once the run's cap is reached it is refused instead (an error of the check or run that asked). */
  spend(): void {
    if (this.#sent >= this.limit) {
      throw new VoxformError('test_requests_spent', `Not sent: this run has sent its ${formatCount(this.limit)} requests (the cap per run).`, {
        hint: 'Fewer judge checks or simulated turns, or, as the operator, a higher --max-requests.',
      });
    }
    this.#sent++;
  }
}

/** The model, each of its requests spent from `budget` before it is sent, a request sent again after a failure included. */
export function budgetedModel(model: CompletionModel, budget: RequestBudget): CompletionModel {
  return {
    complete: async (messages, options) => {
      budget.spend();
      return model.complete(messages, { ...options, onRetry: () => budget.spend() });
    },
  };
}
