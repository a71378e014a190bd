/**
 * What `--version` and `status` say: the version and the formats this build reads and writes. Apart
 * from src/util/version.ts, which the client reads too: the formats' constants belong to the rooms above it.
 */
import { PLAN_JSON_FORMAT_VERSION } from '../plan/format-version.js';
import { STATE_FORMAT_VERSION } from '../state/format-version.js';
import { SCHEMA_VERSION } from '../state/postgres/schema.js';
import { voxformVersion } from '../util/version.js';

/**
 * This voxform's version and the formats it reads and writes, from the constants their readers
 * check: builds between releases share a version number, and "made by a newer voxform" is answered
 * by these. Keys as `voxform status --format json` writes them.
 */
export interface VersionAndFormats {
  version: string;
  plan_format: string;
  state_format: number;
  postgres_schema: number;
}

export function versionAndFormats(): VersionAndFormats {
  return { version: voxformVersion(), plan_format: PLAN_JSON_FORMAT_VERSION, state_format: STATE_FORMAT_VERSION, postgres_schema: SCHEMA_VERSION };
}

/** `0.1.0 (plan format 1.5, state format 2, PostgreSQL schema 4)`: what `--version` and `status` say. */
export function describeVersion(formats: VersionAndFormats = versionAndFormats()): string {
  return `${formats.version} (plan format ${formats.plan_format}, state format ${formats.state_format}, PostgreSQL schema ${formats.postgres_schema})`;
}
