// Running other agents' CLIs on the doctor's files, offline: where npm puts
// each pinned binary (.ci/install-agents), a check that it starts here, a
// temporary home per run laid out as the CLI expects, and the resume
// itself against a fake API (tests/support/fake-*.mjs) that is also the
// CLI's proxy. Used by tests/smoke/doctor-clis*.test.mjs.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const clis = path.join(root, ".ci/agents/clis/node_modules");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
// Each CLI run gets a home of its own (Codex leaves 2 MB of state in it),
// removed when the file's tests end.
const homes = [];
const tmp = (what) => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), `garuda-${what}-`)));
  homes.push(dir);
  return dir;
};
/** Removes every home made so far: a test file calls it in after(). */
export function cleanup() {
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// A CLI is a command line: [program, ...its first arguments].
// Where npm puts each CLI's linux-x64 binary (its package's optional
// dependency; the wrapper packages only find and start it), and Claude
// Code 2.0.30, the version the doctor's fixtures name as their writer,
// which was still JavaScript: node runs its cli.js.
export const CLAUDE = [path.join(clis, "@anthropic-ai/claude-code-linux-x64/claude")];
export const CLAUDE_2_0 = [process.execPath, path.join(clis, "claude-code-2.0.30/cli.js")];
export const CODEX = [path.join(clis, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")];

/** The CLI when it is installed and starts here, else null after one SKIP line. */
export function runnable(cli, what) {
  const file = cli.at(-1);
  if (cli.length === 1 && (process.platform !== "linux" || process.arch !== "x64")) {
    console.log(`SKIP ${what}: only the linux-x64 binary is installed (this is ${process.platform}-${process.arch})`);
    return null;
  }
  if (!existsSync(file)) {
    console.log(`SKIP ${what}: not installed (run bash .ci/install-agents)`);
    return null;
  }
  const r = spawnSync(cli[0], [...cli.slice(1), "--version"], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) {
    console.log(`SKIP ${what}: ${path.basename(file)} --version fails here (${r.error?.code ?? r.status}): ${(r.stderr || "").trim().split("\n")[0]}`);
    return null;
  }
  return cli;
}

/** A CLI's exit and output, without blocking the fake API in this process. */
export function run(cli, args, { cwd, env }) {
  return new Promise((done) => {
    const child = spawn(cli[0], [...cli.slice(1), ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      done({ status, signal, stdout, stderr });
    });
  });
}

/** `doctor --fix -o`: the repaired copy of `input`, written by the CLI. */
export function repaired(input, ext = ".jsonl") {
  const out = path.join(tmp("fixed"), `fixed${ext}`);
  const r = spawnSync(process.execPath, [bin, "doctor", input, "--fix", "-o", out], { encoding: "utf8" });
  assert.ok(existsSync(out), `${input}: doctor --fix wrote nothing (exit ${r.status}): ${r.stderr}`);
  return out;
}

/** Whether the doctor says `file` resumes (exit 0) or not (exit 1). */
export function resumes(file) {
  const r = spawnSync(process.execPath, [bin, "doctor", file], { encoding: "utf8" });
  assert.ok(r.status === 0 || r.status === 1, `doctor ${file}: exit ${r.status}: ${r.stderr}`);
  return r.status === 0;
}

/** The environment a CLI runs in: its own home, the fake API, everything else at the trap. */
export function env(home, api, extra) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: home,
    LANG: "C.UTF-8",
    HTTPS_PROXY: api.url,
    HTTP_PROXY: api.url,
    https_proxy: api.url,
    http_proxy: api.url,
    NO_PROXY: "127.0.0.1",
    no_proxy: "127.0.0.1",
    ...extra,
  };
}


export const text = (v) => JSON.stringify(v);

/** A run whose every request was accepted. */
export const accepted = (r) => r.status === 0 && r.requests.length > 0 && r.requests.every((q) => q.refusal === null);

/** Claude Code resumes `file` (`claude -p --resume <id>`) against `api`: its exit, output and requests. */
export async function claudeResume(claude, file, api) {
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
  const id = lines.find((l) => l.sessionId)?.sessionId;
  const model = lines.filter((l) => l.message?.model && l.message.model !== "<synthetic>").at(-1)?.message.model ?? "claude-sonnet-4-5-20250929";
  const home = tmp("claude");
  const cwd = path.join(home, "project");
  const config = path.join(home, ".claude");
  // Claude Code keeps a project's sessions under its path with every
  // character but letters and digits made "-".
  const dir = path.join(config, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"));
  mkdirSync(cwd);
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, path.join(dir, `${id}.jsonl`));
  const before = api.requests.length;
  const r = await run(claude, ["-p", "--resume", id, "--model", model, "next"], { cwd, env: claudeEnv(home, config, api) });
  return { ...r, requests: api.requests.slice(before) };
}

export function claudeEnv(home, config, api) {
  return env(home, api, {
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    // The documented switches: no update check, telemetry, error reports
    // or any other request but the Messages API's.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
  });
}

/** A new session Claude Code writes itself (`claude -p`, one prompt): its file. */
export async function claudeNew(claude, api, model) {
  const home = tmp("claude-new");
  const cwd = path.join(home, "project");
  const config = path.join(home, ".claude");
  mkdirSync(cwd);
  const r = await run(claude, ["-p", "--model", model, "hi"], { cwd, env: claudeEnv(home, config, api) });
  assert.equal(r.status, 0, `claude -p: ${r.stderr}`);
  const dir = path.join(config, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"));
  const file = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
  assert.ok(file, `Claude Code wrote no session in ${dir}`);
  return path.join(dir, file);
}

/** Codex resumes `file` (`codex exec resume <id>`) against `api`: its exit, output and requests. */
export async function codexResume(codex, file, api) {
  const lines = readFileSync(file, "latin1").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
  // Codex reads the id from the file's session_meta line; the file's name
  // carries it too, which is how `resume <id>` finds the file.
  const id = lines.find((l) => l.type === "session_meta")?.payload?.id ?? "019e2a40-5c1d-7e2f-9a3b-4c5d6e7f8091";
  const model = lines.filter((l) => l.type === "turn_context").at(-1)?.payload?.model ?? "gpt-5.2-codex";
  const [day, time] = lines[0].timestamp.slice(0, 19).split("T");
  const home = tmp("codex");
  const cwd = path.join(home, "project");
  const codexHome = path.join(home, ".codex");
  const dir = path.join(codexHome, "sessions", ...day.split("-"));
  mkdirSync(cwd);
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, path.join(dir, `rollout-${day}T${time.replaceAll(":", "-")}-${id}.jsonl`));
  // The rollout names its provider, "openai", and Codex will not resume it
  // with another, so the built-in provider is kept and only its base URL
  // moved. The plugins feature would fetch github.com and chatgpt.com at
  // start; analytics and the update check are off too. --strict-config: a
  // key this version does not know fails the run instead of being ignored.
  writeFileSync(
    path.join(codexHome, "config.toml"),
    [`model = ${JSON.stringify(model)}`, `openai_base_url = ${JSON.stringify(`${api.url}/v1`)}`, "check_for_update_on_startup = false",
      "[features]", "plugins = false", "[analytics]", "enabled = false", ""].join("\n"),
  );
  const before = api.requests.length;
  const r = await run(codex, ["exec", "--strict-config", "--skip-git-repo-check", "resume", id, "next"], {
    cwd,
    env: env(home, api, { CODEX_HOME: codexHome, CODEX_API_KEY: "sk-test" }),
  });
  return { ...r, requests: api.requests.slice(before) };
}
