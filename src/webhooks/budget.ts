/** How long the service waits for a webhook to answer (docs/service-api.md gives 2 s for the prefetch; used for both). */
export const WEBHOOK_BUDGET_MS = 2000;
