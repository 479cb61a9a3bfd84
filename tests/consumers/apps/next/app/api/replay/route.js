// A Next.js route handler (Node runtime): server chunks are bundled Node code,
// so the route imports the embedded entry first (see the package README).
import "@garuda/session/embedded";
import { rebuildState, formatCost, Redactor } from "@garuda/session";
import { FileSessionStore } from "@garuda/session/node";
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";

export const dynamic = "force-dynamic";

export function GET() {
  const secret = ["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"].join("");
  const state = rebuildState(readFileSync(process.env.GARUDA_JOURNAL, "utf8"));
  const store = new FileSessionStore(mkdtempSync(`${tmpdir()}/garuda-next-`), { redactor: new Redactor({ env: {} }) });
  const journal = store.open("s1");
  journal.write({ type: "user", message: { role: "user", content: `deploy with ${secret}` } });
  const file = journal.path;
  journal.close();
  const written = readFileSync(file, "utf8");
  return Response.json({ prompts: state.prompts, cost: formatCost(state), redacted: written.includes("[REDACTED]") && !written.includes(secret), reread: rebuildState(written).messages.length });
}
