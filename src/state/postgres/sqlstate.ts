/**
 * The PostgreSQL error codes (SQLSTATE) voxform tells apart, and how to read one off a driver or
 * server error: node-postgres puts it in `code`.
 */

/** 28P01 invalid_password. */
export const INVALID_PASSWORD = '28P01';
/** 3D000 invalid_catalog_name: the database named does not exist. */
export const UNKNOWN_DATABASE = '3D000';
/** 42501 insufficient_privilege: a statement the role may not run (use a table, create in the schema, alter a table it does not own, make temporary objects). */
export const INSUFFICIENT_PRIVILEGE = '42501';
/** 25006 read_only_sql_transaction: a change refused by a read-only connection (a standby, `default_transaction_read_only`). */
export const READ_ONLY_TRANSACTION = '25006';
/** 42P01 undefined_table. */
export const UNDEFINED_TABLE = '42P01';
/** 42703 undefined_column. */
export const UNDEFINED_COLUMN = '42703';
/** 22P02 invalid_text_representation: a text the server cannot read as the type asked for. */
export const INVALID_TEXT = '22P02';

/** The SQLSTATE of `error`, when it has one (anything else it holds in `code`, such as a socket's ECONNRESET, is returned too). */
export function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}
