/**
 * 9999-12-31T23:59:59Z in Unix seconds: the last time voxform takes as input (a `--since` or
 * `--until`, a traffic request's `until`). Past it no date prints (`toISOString` throws).
 */
export const LATEST_UNIX_SECONDS = 253_402_300_799;
