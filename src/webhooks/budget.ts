/**
 * How long the service waits for a webhook to answer. docs/service-api.md gives the emulator's
 * prefetch time-out (2 s) and says nothing about the end-of-call POST; the emulator waits 2 s for
 * both, and `voxform webhook send` holds a receiver to the same budget (docs/webhooks.md).
 */
export const WEBHOOK_BUDGET_MS = 2000;
