// Types of @garuda/session/redis: the SessionStore contract on Redis.
import type { JournalRecord, Redactor, SessionRow, SessionState } from "../index.js";
import type { JournalOpenOptions, JournalViewMethods, StoreOptions } from "./store.js";

/** A session (or a child run) open for writing on Redis: this writer holds its lease. */
export class RedisJournal {
  /**
   * Redacts the record, applies it, appends its line to the session's stream,
   * and returns the line once Redis accepted it. Throws ERR_STORE_UNAVAILABLE
   * (Redis did not answer: memory is back to what Redis has, and the next call
   * settles whether the append landed, so nothing is duplicated or lost),
   * ERR_SESSION_LOCKED (another writer took the session after this one's lease
   * lapsed), ERR_SESSION_REMOVED, ERR_JOURNAL_CLOSED, ERR_LINE_TOO_LONG or
   * ERR_BAD_RECORD.
   */
  write(record: JournalRecord | string): string;
  state(): SessionState;
  figures(): import("./agent.js").JournalFigures;
  messagesFrom(from: number): { messages: import("../index.js").Message[]; messageOrigins: import("../index.js").MessageOrigin[] };
  /** Releases the lease. */
  close(): void;
}

/** The counts and the model view the session layer reads (issue 20). */
export interface RedisJournal extends JournalViewMethods {}

export interface RedisStoreOptions extends StoreOptions {
  /** A redis:// URL (default redis://127.0.0.1:6379). */
  url?: string;
  /** The URLs of some nodes of a Redis Cluster, instead of `url`. */
  cluster?: string[];
  /** A node-redis client (createClient or createCluster): the store opens its own connection with the same options. */
  client?: { options?: unknown };
  /** The prefix of every key (default "garuda:"). */
  prefix?: string;
  /** How long a writer's lease lives without renewal, in ms (default 30000); the writer renews it every third of that. */
  leaseMs?: number;
  /** How long to wait for Redis before ERR_STORE_UNAVAILABLE, in ms (default 10000). */
  timeoutMs?: number;
  /** Where the `redis` package is, when it cannot be found from the working directory. */
  redisModule?: string;
}

/** The SessionStore contract on Redis: one stream per session, an index by last update, one writer per session by lease. */
export class RedisSessionStore {
  constructor(options?: RedisStoreOptions);
  open(id: string, options?: JournalOpenOptions): RedisJournal;
  openChild(id: string, childId: string, options?: JournalOpenOptions): RedisJournal;
  read(id: string): Promise<JournalRecord[]>;
  /** Whether the session exists, without reading it or creating it. */
  exists(id: string): Promise<boolean>;
  latest(): Promise<string | undefined>;
  list(): Promise<{ id: string; updated: Date }[]>;
  setTitle(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** Keeps a tool call's whole output with the session, redacted (keepFullOutput); returns where. `remove` deletes it too. */
  keepOutput(id: string, toolUseId: string, output: string): string;
  /** A kept output; rejects with ERR_NO_OUTPUT when none was kept. */
  readOutput(id: string, toolUseId: string): Promise<string>;
  /** The journal text of a session (or of one of its child runs), as a file would hold it. */
  text(id: string, childId?: string): Promise<string>;
  /** The ids of a session's child runs, sorted. */
  children(id: string): Promise<string[]>;
  replay(id: string): Promise<SessionState>;
  summaries(): Promise<SessionRow[]>;
  /** Closes the journals open here (their leases released) and the connection. */
  close(): void;
}
