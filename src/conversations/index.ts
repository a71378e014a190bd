/** Conversation tests: test files → conversations with agents → verdicts and reports (docs/testing.md). */
export { findTestFiles } from './find-test-files.js';
export { loadTestFiles } from './load-tests.js';
export type { LoadTestsOptions, LoadTestsResult } from './load-tests.js';
export { chooseJudge, resolveAgentsUnderTest, selectAgents, selectTests } from './prepare.js';
export { runTests, runSucceeded } from './runner.js';
export type { RunTestsOptions } from './runner.js';
export type { AgentUnderTest } from './types.js';
export { ChatModel, judgeSettingsFromEnv } from '../model/chat-model.js';
export type { ModelSettings } from '../model/chat-model.js';
export { captureTestFile, scrubPersonalData } from './capture.js';
export { renderTestText } from './render-text.js';
export { renderTestJson, TEST_REPORT_FORMAT_VERSION } from './render-json.js';
export { renderTestJunit } from './render-junit.js';
export { renderTestMarkdown } from './render-markdown.js';
export type * from './types.js';
