import type { FaultInjector } from './faults.js';
import type { RequestLog } from './request-log.js';
import type { SessionManager } from './sessions.js';
import type { EmulatorStore } from './store.js';
import type { PutMode } from './types.js';
import type { WebhookSender } from './webhooks.js';

/** Everything a handler may use: the one running emulator's parts. */
export interface EmulatorCore {
  store: EmulatorStore;
  sessions: SessionManager;
  webhooks: WebhookSender;
  faults: FaultInjector;
  requestLog: RequestLog;
  putMode: PutMode;
  /** Signs the presigned upload policies of this process. */
  uploadSecret: string;
}
