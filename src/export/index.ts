export { buildExport, slugify } from './build-manifest.js';
export type { ExportInput, ExportResult, ExportedSecret, WithheldField } from './build-manifest.js';
export { readLiveAgents } from './read-live.js';
export type { LiveSelection } from './read-live.js';
