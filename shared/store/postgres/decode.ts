// The PostgreSQL repositories' row decoders: the engine-neutral ones of store/decode.ts. BIGINT and NUMERIC
// columns arrive as numbers (store/postgres/sql.ts), so Int checks them as it does SQLite's integers.
export * from '../decode.js';
