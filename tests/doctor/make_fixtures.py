#!/usr/bin/env python3
"""Writes the doctor's hand-made Claude Code sessions (tests/doctor/*.jsonl),
one per shape the trackers report. Lines are what Claude Code 2.x writes
(one content block per assistant line, each line's parentUuid the line
before it). Signatures are the fake API's (tests/doctor.rs `fake_sign`):
"fake1:<model>:<FNV-1a 64 of the text>", so the test can tell a thinking
text that was changed (or emptied) from the one that was signed.

Run it again only to change a fixture: the expected reports and repaired
files are then rewritten by `DOCTOR_BLESS=1 cargo test --test doctor` and
must be read before they are committed."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SID = "5b2f0c1e-7a3d-4f6e-9c21-0d8e4a6b1f37"


def fnv(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def sign(model, text):
    return "fake1:%s:%s" % (model, fnv(text))


class Session:
    def __init__(self):
        self.lines, self.n = [], 0

    def t(self):
        self.n += 1
        return "2026-11-20T10:%02d:%02d.000Z" % (self.n // 60, self.n % 60)

    def add(self, kind, uuid, parent, message=None, **extra):
        line = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/app",
                "sessionId": SID, "version": "2.0.30", "gitBranch": "main", "type": kind}
        if message is not None:
            line["message"] = message
        line.update(extra)
        line["uuid"] = uuid
        line["timestamp"] = self.t()
        self.lines.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
        return uuid

    def user(self, uuid, parent, content, **extra):
        return self.add("user", uuid, parent, {"role": "user", "content": content}, **extra)

    def assistant(self, uuid, parent, mid, model, block):
        msg = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [block],
               "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 30}}
        return self.add("assistant", uuid, parent, msg, requestId="req_" + mid)

    def raw(self, text):
        self.lines.append(text)

    def write(self, name):
        with open(os.path.join(HERE, name), "w") as f:
            f.write("\n".join(self.lines) + "\n")


OPUS, SONNET = "claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929"


def thinking(model, text, signed_text=None):
    return {"type": "thinking", "thinking": text, "signature": sign(model, text if signed_text is None else signed_text)}


def text(t):
    return {"type": "text", "text": t}


def call(id, name, inp):
    return {"type": "tool_use", "id": id, "name": name, "input": inp}


def result(id, content):
    return {"type": "tool_result", "tool_use_id": id, "content": content}


# claude-code#63147: the thinking text saved as "" with its signature kept.
s = Session()
s.user("u1", None, "Read notes.txt and summarise it")
s.assistant("a1", "u1", "msg_01", OPUS, thinking(OPUS, "", signed_text="The user wants a summary; read the file first."))
s.assistant("a2", "a1", "msg_01", OPUS, call("toolu_01", "Read", {"file_path": "/home/dev/app/notes.txt"}))
s.user("r1", "a2", [result("toolu_01", "1. ship\n2. test\n3. rest")], toolUseResult={"type": "text"})
s.assistant("a3", "r1", "msg_02", OPUS, thinking(OPUS, "Three tasks; say so briefly."))
s.assistant("a4", "a3", "msg_02", OPUS, text("It lists three tasks: ship, test, rest."))
s.write("empty-thinking.jsonl")

# claude-code#63410: thinking of one model, then /model to another.
s = Session()
s.user("u1", None, "What does main.rs do?")
s.assistant("a1", "u1", "msg_01", OPUS, thinking(OPUS, "Look at the entry point."))
s.assistant("a2", "a1", "msg_01", OPUS, text("It starts the server."))
s.user("u2", "a2", "And lib.rs?")
s.assistant("a3", "u2", "msg_02", SONNET, thinking(SONNET, "lib.rs holds the handlers."))
s.assistant("a4", "a3", "msg_02", SONNET, text("It holds the request handlers."))
s.write("model-switch.jsonl")

# claude-code#473: a crash between a call and its result; the user came back.
s = Session()
s.user("u1", None, "Run the tests")
s.assistant("a1", "u1", "msg_01", SONNET, text("Running them."))
s.assistant("a2", "a1", "msg_01", SONNET, call("toolu_01", "Bash", {"command": "cargo test"}))
s.user("u2", "a2", "are you still there?")
s.assistant("a3", "u2", "msg_02", SONNET, text("Yes: the test run was cut off. Shall I run it again?"))
s.write("orphan-crash.jsonl")

# The same crash as the file's last line: nothing came after the call.
s = Session()
s.user("u1", None, "List the files")
s.assistant("a1", "u1", "msg_01", SONNET, call("toolu_01", "Bash", {"command": "ls"}))
s.write("orphan-tail.jsonl")

# pi#4570, claude-code#45286: a compaction cut a call from its result.
s = Session()
s.user("u1", None, "Fix the failing parser test")
s.assistant("a1", "u1", "msg_01", SONNET, call("toolu_01", "Read", {"file_path": "/home/dev/app/parse.rs"}))
s.add("system", "b1", None, subtype="compact_boundary", content="Conversation compacted", isMeta=False,
      level="info", logicalParentUuid="a1", compactMetadata={"trigger": "auto", "preTokens": 155979})
s.user("c1", "b1", "This session is being continued from a previous conversation. Summary: the parser test fails on empty input.",
       isCompactSummary=True, isVisibleInTranscriptOnly=True)
s.user("r1", "c1", [result("toolu_01", "fn parse(s: &str) -> Ast { ... }")])
s.assistant("a2", "r1", "msg_02", SONNET, text("Fixed: empty input now returns an empty Ast."))
s.write("orphan-compaction.jsonl")

# A torn write: a line lost its end, and the next line's parent was in it.
s = Session()
s.user("u1", None, "hello")
s.assistant("a1", "u1", "msg_01", SONNET, text("Hi! What shall we work on?"))
s.raw('{"parentUuid":"a1","isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"%s","type":"user","message":{"role":"user","content":"the lin' % SID)
s.user("u3", "u2-torn", "Add a README")
s.assistant("a3", "u3", "msg_03", SONNET, text("Added README.md with the build steps."))
s.write("broken-chain.jsonl")
