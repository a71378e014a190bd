import type { FaultInjector } from './faults.js';
import type { RequestLog } from './request-log.js';
import type { SessionManager } from './sessions.js';
import type { EmulatorStore } from './store.js';
import type { PutMode, ResponseStyle } from './types.js';
import type { WebhookSender } from './webhooks.js';

/** Everything a handler may use: the one running emulator's parts. */
export interface EmulatorCore {
  store: EmulatorStore;
  sessions: SessionManager;
  webhooks: WebhookSender;
  faults: FaultInjector;
  requestLog: RequestLog;
  putMode: PutMode;
  /** Which of the answers seen in the wild the action endpoints and create_file give. */
  responseStyle: Required<ResponseStyle>;
  /** Signs the presigned upload policies of this process. */
  uploadSecret: string;
}
