// The README as a TypeScript user meets it (issue 20): the quick start and
// the migration guide of pkg/README.md, compiled as written with tsc
// --strict against the built package, with the Anthropic SDK's own types
// for what the model returns (a Message, its snake_case usage, a
// ThinkingConfigParam). A snippet the types refuse fails here, not in a
// user's editor.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const readme = fs.readFileSync(path.join(root, "pkg/README.md"), "utf8");
const sdk = path.join(root, ".ci/node_modules/@anthropic-ai/sdk");

/** The first ```js block after the heading `title`. */
function block(title) {
  const at = readme.indexOf(`## ${title}`);
  assert.ok(at >= 0, `no section ${title}`);
  const m = /```(?:js|ts)\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(m, `no code in ${title}`);
  return m[1];
}

/** tsc --strict on `files` in a project that has the package and the SDK installed (symlinked). */
function typecheck(files) {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-readme-"));
  fs.mkdirSync(path.join(dir, "node_modules/@garuda"), { recursive: true });
  fs.mkdirSync(path.join(dir, "node_modules/@anthropic-ai"), { recursive: true });
  fs.symlinkSync(path.join(root, "pkg"), path.join(dir, "node_modules/@garuda/session"));
  fs.symlinkSync(sdk, path.join(dir, "node_modules/@anthropic-ai/sdk"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "readme", private: true, type: "module" }));
  for (const [name, source] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), source);
  const tsconfig = { compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom"], types: [], skipLibCheck: true }, files: Object.keys(files) };
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  try {
    execFileSync(path.join(root, ".ci/node_modules/.bin/tsc"), ["-p", "."], { cwd: dir, encoding: "utf8" });
    return "";
  } catch (e) {
    return String(e.stdout);
  }
}

const SKIP = fs.existsSync(sdk) ? false : "SKIP the Anthropic SDK is not in .ci/node_modules (run .ci/setup)";

test("the README's quick start compiles as written, with the SDK's types for what the model returns", { skip: SKIP }, () => {
  // Only the snippet's free names are declared, each with the type an agent has.
  const given = `import type Anthropic from "@anthropic-ai/sdk";
declare const resuming: boolean;
declare const notes: string[];
declare const attachments: string[];
declare const step: number;
declare const costUsd: number | undefined;
declare const results: Anthropic.ToolResultBlockParam[];
declare const calls: { toolUseId: string; name: string; durationMs: number }[];
declare function callModel(messages: readonly object[]): Promise<Anthropic.Message>;
declare const process: { cwd(): string }; // @types/node, in a Node project
`;
  assert.equal(typecheck({ "quickstart.mts": given + block("Quickstart for an agent") }), "");
});

test("the migration guide's names are where it says, and the SDK's types go in where an agent passes them", { skip: SKIP }, () => {
  const at = readme.indexOf("## Migrating from Garuda's `src/session`");
  const table = readme.slice(at, readme.indexOf("\n## ", at + 10));
  const imports = new Map(); // module -> names
  // A name: a backticked identifier, or the function of a backticked call;
  // asides in parentheses are left out. Before cells also list `{ a, b }`.
  const idents = (text) => [...text.replace(/ \([^)]*\)/g, "").matchAll(/`([A-Za-z][A-Za-z0-9]*)(?:`|\()/g)].map((m) => m[1]);
  const listed = (text) => [...text.matchAll(/\{ ([^}]*) \}/g)].flatMap((m) => m[1].split(",").map((x) => x.trim().replace(/^type /, ""))).concat(idents(text));
  for (const row of table.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| before") && !l.startsWith("|---"))) {
    const [before, now] = row.slice(2, -2).split(" | ");
    for (const part of (now ?? "").split(";")) {
      const module = /"(@garuda\/session[^"]*)"/.exec(part)?.[1];
      if (!module) continue;
      // "the same names from X", "from X": the names are the ones before.
      let names = idents(part.replace(/`"[^"]*"`/g, ""));
      if (names.length === 0 || part.trimStart().startsWith("the same names")) names = listed(before);
      for (const n of names) {
        if (!imports.has(module)) imports.set(module, new Set());
        imports.get(module).add(n);
      }
    }
  }
  assert.ok([...imports.values()].reduce((n, s) => n + s.size, 0) >= 20, `the guide names its functions: ${JSON.stringify([...imports].map(([m, s]) => [m, [...s]]))}`);
  let source = "";
  let k = 0;
  for (const [module, names] of imports) source += `import * as m${k} from ${JSON.stringify(module)};\nexport type Has${k} = [${[...names].map((n) => `typeof m${k}.${n} extends never ? 0 : 1`).join(", ")}];\n`, k++;
  // Types, not only values (SessionStore is a type).
  source = source.replace(/typeof m(\d+)\.SessionStore extends never \? 0 : 1/g, "m$1.SessionStore extends never ? 0 : 1");
  // What an agent passes, typed by the SDK.
  source += `import type Anthropic from "@anthropic-ai/sdk";
import { MemorySessionStore, startSession, startChildSession, addAssistantResponse, setThinking, addSideUsage, undo, type SessionStore } from "@garuda/session/agent";
import { formatCost, budgetNote } from "@garuda/session";
declare const response: Anthropic.Message;
declare const thinking: Anthropic.ThinkingConfigParam;
const store: SessionStore = new MemorySessionStore();
const s = startSession(store, { model: "claude-sonnet-4-5" });
addAssistantResponse(s, response, 1, undefined);
setThinking(s, thinking);
addSideUsage(s, "title", response.usage);
const child = startChildSession(s, "explore-toolu_1");
const back: { tree?: unknown; prompt?: unknown } = undo(s);
const line: string = formatCost(s.figures()) + (budgetNote(s.figures()) ?? "") + formatCost(s.journal.state());
export { child, back, line };
`;
  assert.equal(typecheck({ "migration.mts": source }), "");
});
