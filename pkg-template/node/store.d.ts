// Types of @garuda/session/node: the file store (JOURNAL.md §7).
import type { JournalRecord, Redactor, SessionRow, SessionState } from "../index.js";

/** A session file open for writing (one writer: it holds `<id>.lock`). */
export class FileJournal {
  readonly path: string;
  /** The file ended mid-line (a crash): the first record appended ends that line (its bytes stay) and memory then reads it as a bad line, as replay does; until then the file is as it was (a refused strict resume changes nothing). */
  readonly repairedTornTail: boolean;
  /**
   * The pid of the session's last writer when it ended without releasing its
   * lock (it crashed or was killed: the open took the stale lock over, and
   * `repairedTornTail` says whether its last line was cut off); 0 for an
   * empty stale lock; null when the lock was free.
   */
  readonly staleLockPid: number | null;
  /**
   * Redacts the record, applies it, appends its line, and returns the line.
   * Throws a StoreError: ERR_LINE_TOO_LONG or ERR_BAD_RECORD (nothing changed),
   * ERR_SESSION_REMOVED (the file was deleted while open), ERR_JOURNAL_CLOSED, or
   * ERR_JOURNAL_WRITE (a full disk, say: the file is cut back to its last whole
   * line and the state rebuilt from it, so the record is in neither).
   */
  write(record: JournalRecord | string): string;
  state(): SessionState;
  /** Usage, cost, context size, message count, model...: O(1) of the conversation. */
  figures(): import("./agent.js").JournalFigures;
  /** The messages from index `from` on, with their origins. */
  messagesFrom(from: number): { messages: import("../index.js").Message[]; messageOrigins: import("../index.js").MessageOrigin[] };
  /** Closes the file and releases the lock. */
  close(): void;
}

/** A session kept in memory: the lines a file would hold (redacted). */
export class MemoryJournal {
  readonly lines: string[];
  write(record: JournalRecord | string): string;
  state(): SessionState;
  figures(): import("./agent.js").JournalFigures;
  messagesFrom(from: number): { messages: import("../index.js").Message[]; messageOrigins: import("../index.js").MessageOrigin[] };
  /** The journal's text, as a file would hold it. */
  text(): string;
  close(): void;
}

/** The SessionStore contract with no disk. */
export class MemorySessionStore {
  constructor(options?: StoreOptions);
  open(id: string, options?: JournalOpenOptions): MemoryJournal;
  openChild(id: string, childId: string, options?: JournalOpenOptions): MemoryJournal;
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
}

/**
 * How a journal is opened. The session layer opens with both true; a store
 * that ignores them changes behaviour silently (the model would be sent the
 * redacted text, and a bad record would reach the disk).
 */
export interface JournalOpenOptions {
  /** Memory keeps each record as written (what the model saw, a secret included) while the line for the disk is redacted; the message is marked redacted as replay of its line would mark it. Default false: memory holds the redacted line. */
  modelView?: boolean;
  /** `write` refuses (ERR_BAD_RECORD) a record replay would skip or warn about (a field of the wrong type, an unknown type, an undo with nothing to undo): nothing is written, nothing changes. Default false. */
  strict?: boolean;
}

/**
 * What the session layer reads from a journal besides write, figures and
 * messagesFrom (issue 20): plain counts, and the conversation as the model
 * gets it, owned by the core (`session.messages` is `viewFrom`).
 */
export interface JournalViewMethods {
  /** Messages and warnings so far: numbers, no JSON. */
  readonly messageCount: number;
  readonly warningCount: number;
  /** The messages the model gets from `from` on: what came before the latest start, resume or model record repaired by the seed's thinking rules, what came after as written. */
  viewFrom(from: number): import("../index.js").Message[];
  readonly viewCount: number;
  /** Changes whenever the view changed other than by one message appended at its end. */
  readonly viewGeneration: number;
  viewReport(): import("../index.js").RepairReport;
  /** Tool calls of the view's last assistant message that nothing answers yet. */
  readonly openToolCalls: number;
  /** The synthetic tool_results record answering them (timed `now`), or null: O(1) when nothing is open. */
  closeOpenToolCalls(now: string): import("../index.js").ToolResultsRecord | null;
  /** The snapshot an undo would restore, or the one the last undo took back. */
  snapshotTop(which: "undo" | "redo"): { tree?: import("../index.js").Json; prompt?: import("../index.js").Json; messages: number; after?: import("../index.js").Json } | null;
  /** After close(): every call throws ERR_JOURNAL_CLOSED. */
  readonly closed: boolean;
}
export interface FileJournal extends JournalViewMethods {}
export interface MemoryJournal extends JournalViewMethods {}
export interface MemorySessionStore {
  /** /sessions rows (summariseSession of each), newest first. */
  summaries(): SessionRow[];
}

export interface StoreOptions {
  /** Defaults to a Redactor over process.env. */
  redactor?: Redactor;
  /** The longest line written or read, in bytes (default 64 MiB). */
  maxLineBytes?: number;
}

/** The stable codes of the store's errors. */
export type StoreErrorCode =
  | "ERR_BAD_SESSION_ID"
  | "ERR_NO_SESSION"
  | "ERR_SESSION_LOCKED"
  | "ERR_SESSION_REMOVED"
  | "ERR_JOURNAL_CLOSED"
  | "ERR_JOURNAL_WRITE"
  | "ERR_STORE_UNWRITABLE"
  /** A symbolic link where a journal, lock or folder should be: the store never works through one. */
  | "ERR_STORE_SYMLINK"
  | "ERR_LINE_TOO_LONG"
  | "ERR_BAD_RECORD"
  | "ERR_INVALID_ARG_TYPE"
  | "ERR_INVALID_ARG"
  | "ERR_NO_OUTPUT"
  | "ERR_JOURNAL_CORRUPT";

/** What the store throws: an Error with a stable code; `cause` is the system error, when there was one. */
export interface StoreError extends Error {
  code: StoreErrorCode;
  cause?: Error & { code?: string; syscall?: string; path?: string };
}

export class FileSessionStore {
  /** `dir` defaults to `.garuda/sessions`. */
  constructor(dir?: string, options?: StoreOptions);
  readonly dir: string;
  /** Opens or creates `<dir>/<id>.jsonl`. Throws ERR_BAD_SESSION_ID, or ERR_SESSION_LOCKED while another live writer holds it. */
  open(id: string, options?: JournalOpenOptions): FileJournal;
  /** A subagent run: `<dir>/<id>/<childId>.jsonl`, the child id cleaned to [A-Za-z0-9_-]. */
  openChild(id: string, childId: string, options?: JournalOpenOptions): FileJournal;
  /** The records that parse, in order: they go straight into rebuildState and summariseSession. */
  read(id: string): Promise<JournalRecord[]>;
  /** Whether the session exists, without reading it or creating it. */
  exists(id: string): Promise<boolean>;
  readSync(id: string): JournalRecord[];
  /** The replayed state (warnings and tornTail included). */
  replay(id: string): SessionState;
  /** The newest session; child folders are ignored. */
  latest(): Promise<string | undefined>;
  /** Every session, newest first. */
  list(): Promise<{ id: string; updated: Date }[]>;
  /** `/sessions` rows (summariseSession of each), newest first. */
  summaries(): SessionRow[];
  /** Appends a title record; the file keeps its time. A session open in this process is written through its journal. */
  setTitle(id: string, title: string): Promise<void>;
  /** Deletes the file and the subagent folder; a journal of it open in this process is closed and refuses later writes. */
  remove(id: string): Promise<void>;
  /** Keeps a tool call's whole output with the session, redacted (keepFullOutput); returns where. `remove` deletes it too. */
  keepOutput(id: string, toolUseId: string, output: string): string;
  /** A kept output; rejects with ERR_NO_OUTPUT when none was kept. */
  readOutput(id: string, toolUseId: string): Promise<string>;
}

/**
 * Takes a session file's one-writer lock (`<dir>/<id>.lock`) for this
 * process, as FileSessionStore.open does: for another writer of a session
 * file (`garuda-session redact --in-place`). Throws a StoreError:
 * ERR_SESSION_LOCKED (a live process holds it), ERR_STORE_SYMLINK,
 * ERR_STORE_UNWRITABLE. Returns the pid of the writer whose stale lock it
 * took over (it ended without releasing it), 0 for an empty stale lock, or
 * null when the lock was free. Released at releaseSessionLock or when the process exits.
 */
export function takeSessionLock(lockFile: string): number | null;
/** Releases a lock takeSessionLock took (one this process does not hold is left alone). */
export function releaseSessionLock(lockFile: string): void;
