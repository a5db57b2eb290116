/**
 * The SQLite drivers behind one small interface: Node's built-in `node:sqlite` (Node 22.13+,
 * 23.4+, nothing to install or compile) and `better-sqlite3` (an optional peer dependency, a
 * native addon: what Node 20 needs). The store, its migrations and the outbox table use only
 * this interface, so both drivers read and write the same file with the same schema.
 */
import { createRequire } from 'node:module';

/** A value SQLite binds or returns (no booleans, no undefined: both drivers refuse them). */
export type SqlValue = string | number | bigint | Uint8Array | null;

/** Positional values, or one object of named values (`@name` in the SQL, `name` in the object). */
export type SqlParams = SqlValue[] | [Readonly<Record<string, SqlValue>>];

/** A prepared statement, as both drivers give it. */
export interface SqliteStatement<Row = unknown> {
  /** Runs it; `changes` is the number of rows written. */
  run(...params: SqlParams): {
    /** Rows inserted, updated or deleted. */
    changes: number | bigint;
  };
  /** The first row, or `undefined` when there is none. */
  get(...params: SqlParams): Row | undefined;
  /** Every row. */
  all(...params: SqlParams): Row[];
}

/** An open database file, as both drivers give it. */
export interface SqliteDatabase {
  /** `node` or `better-sqlite3`: for the start-up line and the bench. */
  readonly driver: SqliteDriverName;
  /** Compiles one statement. */
  prepare<Row = unknown>(sql: string): SqliteStatement<Row>;
  /** Runs one or more statements, returning nothing (migrations, pragmas). */
  exec(sql: string): void;
  /** Wraps `fn` in BEGIN … COMMIT, rolled back if it throws. Not nestable. */
  transaction<Args extends unknown[]>(fn: (...args: Args) => void): (...args: Args) => void;
  /** False once closed. */
  readonly open: boolean;
  /** Closes the file. */
  close(): void;
}

/** `node`: Node's built-in `node:sqlite`; `better-sqlite3`: the optional native addon. */
export type SqliteDriverName = 'node' | 'better-sqlite3';

/** A loaded driver: opens files. Tests and the bench may hand one in (a build for another Node). */
export interface SqliteDriver {
  /** Which driver this is. */
  readonly name: SqliteDriverName;
  /** Opens (or creates) the database file at `path`. */
  open(path: string): SqliteDatabase;
}

/** Whether `err` is SQLite's SQLITE_BUSY, as either driver reports it. */
export function isSqliteBusy(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown };
  // better-sqlite3: code 'SQLITE_BUSY'; node:sqlite: code 'ERR_SQLITE_ERROR' with errcode 5.
  return e.code === 'SQLITE_BUSY' || (e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number' && (e.errcode & 0xff) === 5);
}

/** The shape of `node:sqlite` this module uses (its types are not in @types/node 20). */
interface NodeSqliteModule {
  DatabaseSync: new (path: string) => {
    prepare(sql: string): {
      run(...params: unknown[]): { changes: number | bigint };
      get(...params: unknown[]): unknown;
      all(...params: unknown[]): unknown[];
    };
    exec(sql: string): void;
    close(): void;
  };
}

/** `node:sqlite` when this Node has it unflagged; undefined on Node 20 and on 22.5–22.12 without the flag. */
function nodeSqliteModule(): NodeSqliteModule | undefined {
  // getBuiltinModule, not import: a static import fails to link on a Node without the module,
  // and this stays synchronous so the store's constructor can open the file.
  return process.getBuiltinModule('node:sqlite') as NodeSqliteModule | undefined;
}

/** BEGIN … COMMIT around `fn`, for a driver without its own transaction helper. */
function wrapInTransaction<Args extends unknown[]>(exec: (sql: string) => void, fn: (...args: Args) => void): (...args: Args) => void {
  return (...args: Args) => {
    exec('BEGIN');
    try {
      fn(...args);
    } catch (err) {
      exec('ROLLBACK');
      throw err;
    }
    exec('COMMIT');
  };
}

export function nodeSqliteDriver(mod: NodeSqliteModule): SqliteDriver {
  return {
    name: 'node',
    open(path) {
      const db = new mod.DatabaseSync(path);
      let open = true;
      const exec = (sql: string) => db.exec(sql);
      return {
        driver: 'node',
        // The statement object has run/get/all with the same calling convention.
        prepare: <Row>(sql: string) => db.prepare(sql) as unknown as SqliteStatement<Row>,
        exec,
        transaction: (fn) => wrapInTransaction(exec, fn),
        get open() {
          return open;
        },
        close() {
          open = false;
          db.close();
        },
      };
    },
  };
}

/** The part of better-sqlite3's API this module uses. */
interface BetterSqlite3Database {
  prepare(sql: string): {
    run(...params: unknown[]): { changes: number };
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  };
  exec(sql: string): void;
  transaction<Args extends unknown[]>(fn: (...args: Args) => void): (...args: Args) => void;
  readonly open: boolean;
  close(): void;
}

export function betterSqlite3Driver(Database: new (path: string) => BetterSqlite3Database): SqliteDriver {
  return {
    name: 'better-sqlite3',
    open(path) {
      const db = new Database(path);
      return {
        driver: 'better-sqlite3',
        prepare: <Row>(sql: string) => db.prepare(sql) as unknown as SqliteStatement<Row>,
        exec: (sql) => db.exec(sql),
        transaction: (fn) => db.transaction(fn),
        get open() {
          return db.open;
        },
        close: () => db.close(),
      };
    },
  };
}

/** better-sqlite3 if it is installed and its addon loads in this Node; the load error otherwise. */
function loadBetterSqlite3(): SqliteDriver | Error {
  try {
    // require, not import: the store opens its file in a constructor, synchronously.
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => BetterSqlite3Database;
    // The addon loads at the first open, not at require: one built for another Node fails only then.
    new Database(':memory:').close();
    return betterSqlite3Driver(Database);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

const missingModule = (err: Error) => (err as { code?: unknown }).code === 'MODULE_NOT_FOUND';

/**
 * The driver the `sqliteDriver` setting names. `auto` takes node:sqlite where this Node has it,
 * else better-sqlite3: the store's write (one per turn) costs the same on both
 * (bench/micro/sqlite-drivers.ts), and a built-in driver has no addon to compile or to keep
 * matched to the Node it runs on.
 */
export function sqliteDriver(choice: SqliteDriverName | 'auto'): SqliteDriver {
  const builtin = choice === 'better-sqlite3' ? undefined : nodeSqliteModule();
  if (builtin) return nodeSqliteDriver(builtin);
  if (choice === 'node') {
    throw new Error(
      `SERVICE_SQLITE_DRIVER=node needs node:sqlite, which Node ${process.versions.node} does not have ` +
        '(Node 22.13+ or 23.4+): use a newer Node or SERVICE_SQLITE_DRIVER=better-sqlite3 (npm install better-sqlite3)',
    );
  }
  const better = loadBetterSqlite3();
  if (!(better instanceof Error)) return better;
  if (missingModule(better)) {
    throw new Error(
      `the SQLite store needs node:sqlite (Node 22.13+) or the "better-sqlite3" package on Node ${process.versions.node}: npm install better-sqlite3`,
      { cause: better },
    );
  }
  throw new Error(`better-sqlite3 does not load in Node ${process.versions.node}: ${better.message} (npm rebuild better-sqlite3)`, {
    cause: better,
  });
}
