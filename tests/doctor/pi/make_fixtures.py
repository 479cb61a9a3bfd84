#!/usr/bin/env python3
"""Writes the doctor's hand-made pi sessions (tests/doctor/pi/*.jsonl), one
per shape, entries as pi's SessionManager writes them (JSON.stringify, one
entry a line): a v3 header (`{"type":"session","version":3,...}`), entries
with `id`/`parentId`, assistant messages with `api`, `provider`, `model`,
`usage`, `stopReason`, thinking with `thinkingSignature`, `toolResult`
messages, `compaction` with `firstKeptEntryId`; one legacy v1 file (no
version, no ids, `firstKeptEntryIndex`), the shape of pi-mono's own
fixtures. Field order and values follow ../shared/peers/pi.

Run it again only to change a fixture; the expected reports and repaired
files are rewritten by `DOCTOR_BLESS=1 cargo test --test doctor_pi_gemini`
and must be read before they are committed."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SID = "019e2b51-7c2d-7f3e-8a4b-5c6d7e8f9012"
MODEL = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-opus-4-5"}
USAGE = {"input": 2775, "output": 141, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2916,
         "cost": {"input": 0.013875, "output": 0.003525, "cacheRead": 0, "cacheWrite": 0, "total": 0.0174}}


def dumps(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


class Session:
    def __init__(self, v1=False):
        self.v1, self.lines, self.n, self.last = v1, [], 0, None
        header = {"type": "session", "version": 3, "id": SID, "timestamp": "2026-11-20T10:00:00.000Z",
                  "cwd": "/home/dev/app"}
        if v1:
            header = {"type": "session", "id": SID, "timestamp": "2026-11-20T10:00:00.000Z", "cwd": "/home/dev/app",
                      "provider": "anthropic", "modelId": "claude-opus-4-5", "thinkingLevel": "medium"}
        self.lines.append(dumps(header))
        if not v1:
            self.entry({"type": "model_change", "provider": "anthropic", "modelId": "claude-opus-4-5"})
            self.entry({"type": "thinking_level_change", "thinkingLevel": "medium"})

    def entry(self, body, parent=None):
        self.n += 1
        eid = "%08x" % (0x3a59c5d0 + self.n)
        t = "2026-11-20T10:%02d:%02d.000Z" % (self.n // 60, self.n % 60)
        if self.v1:
            e = {"type": body["type"], "timestamp": t, **{k: v for k, v in body.items() if k != "type"}}
        else:
            e = {"type": body["type"], "id": eid, "parentId": self.last if parent is None else parent,
                 "timestamp": t, **{k: v for k, v in body.items() if k != "type"}}
        self.lines.append(dumps(e))
        self.last = eid
        return eid

    def msg(self, m):
        return self.entry({"type": "message", "message": {**m, "timestamp": 1795168800000 + self.n}})

    def user(self, text):
        return self.msg({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(self, blocks, stop="stop", **over):
        return self.msg({"role": "assistant", "content": blocks, **MODEL, **over, "usage": USAGE, "stopReason": stop})

    def result(self, cid, text, name="read"):
        return self.msg({"role": "toolResult", "toolCallId": cid, "toolName": name,
                         "content": [{"type": "text", "text": text}], "isError": False})

    def write(self, name):
        with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def think(text, sig):
    return {"type": "thinking", "thinking": text, "thinkingSignature": sig}


def call(cid, path, name="read"):
    return {"type": "toolCall", "id": cid, "name": name, "arguments": {"path": path}}


SIG1 = "EqQBCkgIAxABGAIiQHf1" + "a" * 40
SIG2 = "ErcCCkgIAxABGAIiQMx2" + "b" * 40

# pi#4570: a compaction that keeps from a tool result on, its call before
# the cut: pi sends the result with no call before it.
s = Session()
s.user("read src/main.ts and summarise it")
s.assistant([think("I should read the file first.", SIG1), call("toolu_01Read", "src/main.ts")], "toolUse")
kept = s.result("toolu_01Read", "export function main() {}")
s.assistant([{"type": "text", "text": "It exports main()."}])
s.entry({"type": "compaction", "summary": "# Context Checkpoint\n\nRead src/main.ts.", "firstKeptEntryId": kept,
         "tokensBefore": 175004, "details": {"readFiles": ["src/main.ts"], "modifiedFiles": []}, "fromHook": False})
s.user("now add a test")
s.assistant([think("A test for main.", SIG2), {"type": "text", "text": "Added test/main.test.ts."}])
s.write("orphan-compaction")

# The same cut in a legacy v1 file: firstKeptEntryIndex counts the header
# as entry 0.
s = Session(v1=True)
s.user("read src/main.ts and summarise it")
s.assistant([call("toolu_01Read", "src/main.ts")], "toolUse")
s.result("toolu_01Read", "export function main() {}")
s.assistant([{"type": "text", "text": "It exports main()."}])
s.entry({"type": "compaction", "summary": "# Context Checkpoint\n\nRead src/main.ts.", "firstKeptEntryIndex": 3,
         "tokensBefore": 175004})
s.user("now add a test")
s.assistant([{"type": "text", "text": "Added test/main.test.ts."}])
s.write("v1-orphan-compaction")

# A crash while the tool ran (no result written), then the user went on:
# pi answers the call itself ("No result provided"); the file resumes.
s = Session()
s.user("run the tests")
s.assistant([call("toolu_01Bash", "npm test", "bash")], "toolUse")
s.user("it hung, try again with --bail")
s.assistant([{"type": "text", "text": "Ran with --bail: 12 passed."}])
s.write("orphan-crash")

# The stream was aborted (Esc) after the call was written and the tool
# ran: pi leaves the aborted message out, so the result answers nothing.
s = Session()
s.user("list the files")
s.assistant([call("toolu_01Ls", ".", "ls")], "aborted", errorMessage="Request was aborted")
s.result("toolu_01Ls", "src/\ntest/\npackage.json", "ls")
s.user("go on")
s.assistant([think("Listing again.", SIG1), {"type": "text", "text": "src/, test/, package.json."}])
s.write("orphan-aborted")

# A signed thinking block whose text was edited (its signature seen before
# over another text): pi sends it as written, the API refuses it. The
# thinking signed after it goes too (the prefix rule).
s = Session()
s.user("plan the refactor")
s.assistant([think("Split agent.ts into three files.", SIG1), {"type": "text", "text": "Plan: three files."}])
s.user("and the tests?")
s.assistant([think("Split agent.ts into four files.", SIG1), {"type": "text", "text": "Tests move too."}])
s.user("ok")
s.assistant([think("Start with store.ts.", SIG2), {"type": "text", "text": "Starting."}])
s.write("thinking-changed")

# claude-code#63147's shape in pi: a signed thinking block saved with an
# empty text. pi's Anthropic provider does not send an empty thinking block
# (anthropic.ts, convertMessages): the file resumes, and stays.
s = Session()
s.user("plan the refactor")
s.assistant([think("", SIG1), {"type": "text", "text": "Plan: three files."}])
s.user("ok")
s.assistant([think("Start with store.ts.", SIG2), {"type": "text", "text": "Starting."}])
s.write("empty-thinking")

# An entry whose parentId names no entry (a hand edit, or a line lost): the
# walk from the leaf stops there, and the conversation before it is lost.
s = Session()
s.user("hello")
s.assistant([{"type": "text", "text": "Hi."}])
s.user("what is in src/?", )
lost = s.lines.pop()
s.lines.append(lost.replace('"parentId":"%08x"' % (0x3a59c5d0 + s.n - 1), '"parentId":"deadbeef"'))
s.assistant([{"type": "text", "text": "main.ts and util.ts."}])
s.write("broken-chain")
