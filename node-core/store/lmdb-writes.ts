/**
 * How a write's puts and removes are issued: into the transaction open on this thread (inside
 * transactionSync, where mdb_put runs here), or queued into lmdb-js's instruction buffer for its
 * write thread, which runs mdb_put and commits (inside `root.batch`, see LmdbStore.queueTransaction).
 */
import type { Database, Key } from 'lmdb';

export interface RecordWrites {
  /** `append`: the key sorts after every key of `db` (MDB_APPEND fills pages whole instead of splitting them). */
  put<V, K extends Key>(db: Database<V, K>, key: K, value: V, append?: boolean): void;
  /** `value`: removes only that duplicate of a dupSort database. */
  remove<V, K extends Key>(db: Database<V, K>, key: K, value?: V): void;
}

// lmdb-js reads put's options as its third argument; its typings give put a version number there only.
const APPEND = { append: true };
const ignore = (): void => {};

export const inOpenTransaction: RecordWrites = {
  put: (db, key, value, append) => void (append ? db.putSync(key, value, APPEND) : db.putSync(key, value)),
  remove: (db, key, value) => void (value === undefined ? db.removeSync(key) : db.removeSync(key, value)),
};

export const queued: RecordWrites = {
  // An append is a conditional write to lmdb-js: it gets a promise of its own, which rejects when the batch fails.
  put: (db, key, value, append) => void (append ? db.put(key, value, APPEND as never).catch(ignore) : db.put(key, value)),
  remove: (db, key, value) => void (value === undefined ? db.remove(key) : db.remove(key, value)),
};
