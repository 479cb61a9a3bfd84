// Types of @garuda/session/agent: the session layer (Garuda's src/session,
// seed 000), with the seed's names and arguments.
import type { ContentBlock, Json, JournalRecord, Message, ResponseRecord, SessionMetadata, SessionState, ToolCallRecord, Usage } from "../index.js";
import type { StoreErrorCode, JournalOpenOptions, JournalViewMethods } from "./store.js";
import type { RepairReport, SessionRow } from "../index.js";

export { FileSessionStore, MemorySessionStore, MemoryJournal } from "./store.js";

/**
 * What a journal opened by a store offers the session layer: everything the
 * layer calls. A store built on the core's `Journal` forwards each of these
 * to it (the three stores here do, through one base class).
 */
export interface LiveJournal extends JournalViewMethods {
  write(record: object | string): string;
  figures(): JournalFigures;
  state(): SessionState;
  messagesFrom(from: number): { messages: Message[]; messageOrigins: import("../index.js").MessageOrigin[] };
  close(): void;
  /** The first line read that a strict load refuses, or null; `resumeSession(…, { strict: true })` needs it. */
  readonly corruption?: import("../index.js").JournalCorruption | null;
}

export type { JournalOpenOptions };

/** The seed's SessionStore: open and openChild return a journal; the rest are Promises. */
export interface SessionStore {
  /** The session layer opens with `{ modelView: true, strict: true }`: honour both (see JournalOpenOptions). */
  open(sessionId: string, options?: JournalOpenOptions): LiveJournal;
  /** A subagent run kept with its parent (startChildSession opens it). */
  openChild(sessionId: string, childId: string, options?: JournalOpenOptions): LiveJournal;
  read(sessionId: string): Promise<JournalRecord[]>;
  latest(): Promise<string | undefined>;
  list(): Promise<{ id: string; updated: Date }[]>;
  setTitle(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** /sessions rows, newest first, without a replay per session (FileSessionStore and MemorySessionStore have it). */
  summaries?(): SessionRow[] | Promise<SessionRow[]>;
  /** Whether the session exists, without reading it (the three stores have it; resumeSession asks `list()` otherwise). */
  exists?(sessionId: string): Promise<boolean>;
}

export type { JournalFigures } from "../index.js";
import type { JournalFigures } from "../index.js";

/** Read tracking: record what the agent read, tell whether a file may be edited, deduplicate reads. */
export class FileTracker {
  record(path: string, content: string | Uint8Array): void;
  status(path: string, content: string | Uint8Array): "unread" | "changed" | "current";
  noteRead(path: string, content: string | Uint8Array, offset?: number, limit?: number): boolean;
  forgetReads(): void;
}

/** A live session: `messages` is the conversation as the model gets it (unredacted; the core's view). */
export class Session {
  readonly id: string;
  /** The session's metadata as its latest start, resume or model record left it (a resume carries it on). */
  readonly root: string | undefined;
  readonly version: Json | undefined;
  readonly executor: Json | undefined;
  readonly isolation: Json | undefined;
  readonly limits: SessionState["limits"];
  /** A subagent run's parent session (startChildSession). */
  readonly parentId?: string;
  /** What the core's repair changed in the history before the latest resume or model switch. */
  readonly resumeReport: RepairReport | undefined;
  readonly journal: LiveJournal;
  readonly files: FileTracker;
  readonly messages: Message[];
  readonly usage: Usage;
  readonly costUsd: number | null;
  readonly costIncomplete: boolean;
  readonly contextTokens: number;
  readonly unreportedTokens: number;
  readonly model: string | undefined;
  readonly steps: number;
  /** Reported child tokens not yet included in a tool report. */
  readonly childDebits: Map<string, number>;
  figures(): JournalFigures;
}

export interface SessionOptions extends Omit<SessionMetadata, "sessionId"> {
  id?: string;
}

/** The API's own usage object (the SDK's `Usage`, snake_case), read as it is. */
export interface ApiUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/**
 * A model response: the SDK's `Message` as the API returned it, or the
 * journal's shape (camelCase usage). No index signature, so an SDK
 * interface type is taken as it is; other fields are kept in the record.
 */
export interface AssistantResponse {
  content: ContentBlock[];
  usage: Partial<Usage> | ApiUsage;
  usageReported?: boolean;
}

/** Per tool call of a tool_results record: toolUseId, name, durationMs, a subagent's report. */
export type ToolCallMeta = ToolCallRecord;

export interface Compaction {
  stage: 1 | 2;
  beforeTokens: number;
  afterTokens: number;
  messages: Message[];
  summary?: AssistantResponse;
  costUsd?: number;
}

/** Errors carry a stable code. */
export interface SessionError extends Error {
  code: StoreErrorCode | "ERR_NO_SESSION" | "ERR_SESSION_EXISTS" | "ERR_NOTHING_TO_UNDO" | "ERR_NOTHING_TO_REDO" | "ERR_INVALID_ARG" | "ERR_INVALID_ARG_TYPE";
}

/** Starts a new session (writes `start`). An `id` whose journal exists already is refused (ERR_SESSION_EXISTS): resumeSession continues it. */
export function startSession(store: SessionStore, options?: SessionOptions): Session;
export interface ResumeSessionOptions extends SessionOptions {
  /** Fail closed (ERR_JOURNAL_CORRUPT, with `line` and `kind`) when a line of the journal does not parse or is unknown, before anything is written. */
  strict?: boolean;
}
/** A subagent run (explore-<call id>, agent-<name>-<call id>) as a full Session, kept with its parent through `store.openChild`. */
export function startChildSession(parent: Session, childId: string, options?: SessionOptions): Session;
/** The latest session, replayed, a `resume` record written. */
export function resumeSession(store: SessionStore, options?: ResumeSessionOptions): Promise<Session>;
/** The session named (or the latest, for undefined), replayed, a `resume` record written. */
export function resumeSession(store: SessionStore, id: string | undefined, options?: ResumeSessionOptions): Promise<Session>;
export function addUserMessage(session: Session, text: string, notes?: string[], attachments?: string[]): string;
export function addAssistantResponse(session: Session, response: AssistantResponse, step: number, cost?: number): string;
export function addToolResults(session: Session, results: ContentBlock[], meta?: { calls?: ToolCallMeta[] }): string;
export function closeOpenToolCalls(session: Session): string | null;
export function addCompaction(session: Session, compaction: Compaction): string;
/** Any value JSON can carry, interfaces included (an SDK type has no index signature, which `Json` would ask for). */
export type JsonValue = string | number | boolean | null | object;
export function addSnapshot(session: Session, snapshot: { tree: JsonValue; prompt: string; durationMs: number; messages?: number }): string;
/** /undo: what Garuda restores (the snapshot's tree and prompt) and the line written; ERR_NOTHING_TO_UNDO when there is no snapshot. */
export function undo(session: Session, after?: JsonValue): { line: string; tree?: Json; prompt?: Json };
/** /redo: the line written and the tree after the turn (the undo's `after`); ERR_NOTHING_TO_REDO when nothing was undone. */
export function redo(session: Session): { line: string; after?: Json; tree?: Json; prompt?: Json };
export function switchModel(session: Session, model: string, options?: Omit<SessionOptions, "model" | "id">): string;
export function setTitle(session: Session, title: string): string;
/** /thinking: the choice as the request takes it (the SDK's ThinkingConfigParam, say). */
export function setThinking(session: Session, choice: JsonValue): string;
export function addContinue(session: Session, message: Message, maxTokens: number): string;
export function addUnreported(session: Session, tokens: number): string;
export function addChildDebit(session: Session, childSessionId: string, tokens: number): string;
export function addSideUsage(session: Session, purpose: string, usage: Partial<Usage> | ApiUsage, costUsd?: number): string;
export function endSession(session: Session, stopReason: JsonValue, steps: number): string;

/** A store that keeps tool outputs (FileSessionStore, MemorySessionStore and RedisSessionStore do). */
export interface OutputStore {
  /** Keeps the whole output (redacted) and returns where. */
  keepOutput(sessionId: string, toolUseId: string, output: string): string;
  /** The kept output; rejects with code ERR_NO_OUTPUT when none was kept. */
  readOutput(sessionId: string, toolUseId: string): Promise<string>;
}

/**
 * Keeps a tool call's whole output beside its session (file store: `<dir>/<id>/outputs/<toolUseId>.txt`,
 * 0600; Redis: a field of `<prefix>{<id>}:outputs`; memory store: in memory), redacted like every
 * line the package writes; `remove` deletes it with the session. Returns where: pass it to
 * truncateToolOutput's `fullOutputAt` and pruneOldToolOutputs' `kept`.
 */
export function keepFullOutput(session: Session, toolUseId: string, output: string): string;
/** An output keepFullOutput kept (as written: redacted). Rejects with ERR_NO_OUTPUT when there is none. */
export function readFullOutput(store: OutputStore, sessionId: string, toolUseId: string): Promise<string>;
export { truncateToolOutput, pruneOldToolOutputs, pruneOldToolOutputsWithReport } from "../index.js";
export type { TruncateOptions, TruncatedOutput, PruneOptions, PruneReport } from "../index.js";
