// Jest with the jsdom environment (no TextDecoder global there): Jest picks
// the package's require condition, the Node glue.
const { rebuildState, formatCost, Journal, Redactor } = require("@garuda/session");

test("replays and redacts under jsdom", () => {
  expect(typeof window).toBe("object");
  // What this set-up is about: jsdom has no TextDecoder (the glue takes util's).
  expect(typeof TextDecoder).toBe("undefined");
  const state = rebuildState(JOURNAL);
  const secret = ["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"].join("");
  const line = new Journal({ redactor: new Redactor({ env: {} }) }).write({ type: "user", message: { role: "user", content: `deploy with ${secret}` } });
  expect({ prompts: state.prompts, cost: formatCost(state), redacted: line.includes("[REDACTED]") && !line.includes(secret) }).toEqual({ prompts: 2, cost: "≥ $0.0311 (incomplete)", redacted: true });
});
