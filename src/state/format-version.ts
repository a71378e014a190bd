/**
 * The state's format version (docs/state.md, "Format versions"). One rule: a field with meaning
 * added to the state raises it, so that an older voxform refuses the state ("upgrade voxform")
 * instead of reading it without the field and writing it back without it. On PostgreSQL a
 * migration carries the same raise (`stateFormat` in src/state/postgres/schema.ts). Kept apart from
 * the reader, so that `voxform --version` names it without loading the state's code.
 *
 * - 1: agents, phones, campaigns, knowledge files and credentials as first written.
 * - 2: `writeOrder` and `writeUnrecorded` of campaigns and credentials, `foundLive` of agents and
 *   phones, `fingerprintKeyId` of agents and credentials. (Builds before this version wrote them
 *   under 1: a file of format 1 may hold them, and is read as it always was.)
 */
export const STATE_FORMAT_VERSION = 2;
