// Types of @garuda/session/agent: the session layer (Garuda's src/session,
// seed 000), with the seed's names and arguments.
import type { ContentBlock, Json, JournalRecord, Message, ResponseRecord, SessionMetadata, SessionState, ToolCallRecord, Usage } from "../index.js";
import type { StoreErrorCode } from "./store.js";

export { FileSessionStore, MemorySessionStore, MemoryJournal } from "./store.js";

/** What a journal opened by a store offers the session layer. */
export interface LiveJournal {
  write(record: object | string): string;
  figures(): JournalFigures;
  messagesFrom(from: number): { messages: Message[]; messageOrigins: unknown[] };
  close(): void;
}

/** The seed's SessionStore: open and openChild return a journal; the rest are Promises. */
export interface SessionStore {
  open(sessionId: string, options?: { modelView?: boolean; strict?: boolean }): LiveJournal;
  openChild(sessionId: string, childId: string, options?: { modelView?: boolean; strict?: boolean }): LiveJournal;
  read(sessionId: string): Promise<JournalRecord[]>;
  latest(): Promise<string | undefined>;
  list(): Promise<{ id: string; updated: Date }[]>;
  setTitle(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
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

/** A live session: `messages` is the conversation as the model sees it (unredacted). */
export class Session {
  readonly id: string;
  readonly root: string | undefined;
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

/** A model response as the journal keeps it (content, camelCase usage, whether usage was reported). */
export type AssistantResponse = ResponseRecord;

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
  code: StoreErrorCode | "ERR_NO_SESSION";
}

export function startSession(store: SessionStore, options?: SessionOptions): Session;
export interface ResumeSessionOptions extends SessionOptions {
  /** Fail closed (ERR_JOURNAL_CORRUPT, with `line` and `kind`) when a line of the journal does not parse or is unknown, before anything is written. */
  strict?: boolean;
}
export function resumeSession(store: SessionStore, id?: string, options?: ResumeSessionOptions): Promise<Session>;
export function addUserMessage(session: Session, text: string, notes?: string[], attachments?: string[]): string;
export function addAssistantResponse(session: Session, response: AssistantResponse, step: number, cost?: number): string;
export function addToolResults(session: Session, results: ContentBlock[], meta?: { calls?: ToolCallMeta[] }): string;
export function closeOpenToolCalls(session: Session): string | null;
export function addCompaction(session: Session, compaction: Compaction): string;
export function addSnapshot(session: Session, snapshot: { tree: Json; prompt: string; durationMs: number; messages?: number }): string;
export function undo(session: Session, after?: Json): string;
export function redo(session: Session): string;
export function switchModel(session: Session, model: string, options?: Omit<SessionOptions, "model" | "id">): string;
export function setTitle(session: Session, title: string): string;
export function setThinking(session: Session, choice: Json): string;
export function addContinue(session: Session, message: Message, maxTokens: number): string;
export function addUnreported(session: Session, tokens: number): string;
export function addChildDebit(session: Session, childSessionId: string, tokens: number): string;
export function addSideUsage(session: Session, purpose: string, usage: Partial<Usage>, costUsd?: number): string;
export function endSession(session: Session, stopReason: Json, steps: number): string;

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
