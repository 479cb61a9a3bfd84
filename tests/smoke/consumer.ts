// Uses every export with its declared types; tsc --strict must accept it.
import { FileSessionStore, type FileJournal } from "@garuda/session/node";
import { MemorySessionStore, Session, startSession, resumeSession, addUserMessage, addAssistantResponse, addToolResults, closeOpenToolCalls as closeSessionToolCalls } from "@garuda/session/agent";
import { resumeMessages, repairForResume, closeOpenToolCalls, checkMessages, type RepairReport, Journal, Redactor, rebuildState, formatCost, budgetNote, summariseSession, validateSessionId, newSessionId, type SessionState, type Message } from "@garuda/session";
const r = new Redactor({ env: { API_KEY: "x" } });
const j = new Journal({ redactor: r });
const line: string = j.write({ type: "user", message: { role: "user", content: "hi" } });
const s: SessionState = rebuildState(line);
const m: Message[] = s.messages;
const c: string = formatCost(s);
const n: string | null = budgetNote(s);
const row = summariseSession("a", new Date(), [line]);
const ok: boolean = validateSessionId(row.id);
const id: string = newSessionId();
const out: { line: string; changed: boolean } = r.redactLine(line);
console.log(m, c, n, ok, id, out, j.lineCount, s.costUsd ?? 0);
const resumed: Message[] = resumeMessages(s, { model: "m" });
const { report }: { report: RepairReport } = repairForResume(s, { thinking: true });
const record = closeOpenToolCalls(s);
if (record !== null) j.write(record);
const problems = checkMessages(resumed, { thinking: false });
console.log(report.thinkingDropped["model-switch"], problems.map((p) => p.kind));
const store = new FileSessionStore("/tmp/garuda-types", { redactor: r });
const fj: FileJournal = store.open("a");
fj.write({ type: "title", title: "t" });
const rows: { id: string; updated: Date }[] = await store.list();
const latest: string | undefined = await store.latest();
const state2 = store.replay("a");
await store.setTitle("a", "x");
console.log(rows.length, state2.prompts, (await store.read("a")).length, fj.repairedTornTail, r.redactJournal("").rules, store.summaries()[0]?.cost);
fj.close();
await store.remove(latest ?? "a");

// The session layer (@garuda/session/agent), with the seed's names.
const live: Session = startSession(new MemorySessionStore({ redactor: r }), { model: "m", root: "/w" });
addUserMessage(live, "hi", ["note"], []);
addAssistantResponse(live, { content: [{ type: "text", text: "hello" }], usage: { inputTokens: 1 } }, 1, 0.01);
addToolResults(live, [], { calls: [] });
const closed: string | null = closeSessionToolCalls(live);
const cost: number | null = live.costUsd;
const debits: Map<string, number> = live.childDebits;
const status: "unread" | "changed" | "current" = live.files.status("a.ts", "x");
const again: Session = await resumeSession(new FileSessionStore("/tmp/garuda-types-2"), undefined, { model: "m" }).catch(() => live);
console.log(closed, cost, debits.size, status, again.messages.length, live.usage.inputTokens, live.contextTokens);

// Records narrow on `type`, a misspelled one does not compile, and blocks narrow too.
const rec: import("@garuda/session").JournalRecord = { type: "assistant", step: 1, response: { content: [], usage: {} } };
if (rec.type === "assistant") console.log(rec.response.usage.inputTokens ?? 0);
// @ts-expect-error: "asistant" is not a record type
const bad: import("@garuda/session").JournalRecord = { type: "asistant", step: 1, response: { content: [], usage: {} } };
for (const msg of resumed) {
  if (typeof msg.content === "string") continue;
  for (const block of msg.content) if (block.type === "tool_use") { const id: string = block.id; const name: string = block.name; console.log(id, name, bad); }
}
// The Redis store: the same contract, one constructor changed (types only here: no server).
import { RedisSessionStore, type RedisJournal } from "@garuda/session/redis";
export async function onRedis(url: string): Promise<void> {
  const store = new RedisSessionStore({ url, leaseMs: 10_000 });
  const session: Session = startSession(store, { model: "m" });
  const journal: RedisJournal = store.open("other");
  const rows: { id: string; updated: Date }[] = await store.list();
  const children: string[] = await store.children(session.id);
  console.log(journal.write({ type: "title", title: "x" }), rows, children, await store.text(session.id));
  store.close();
}
