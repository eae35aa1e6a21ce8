// The SQLite repositories' row decoders: the engine-neutral ones of store/decode.ts.
export * from '../decode.js';
