// What every browser and worker set-up of the matrix does with the API: a
// replay of the journal (JOURNAL, put in by the test) and a secret redacted
// on the way in. Node set-ups also write a session (node-app.mjs).
export function run({ rebuildState, formatCost, Journal, Redactor }) {
  const state = rebuildState(JOURNAL);
  const secret = ["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"].join("");
  const line = new Journal({ redactor: new Redactor({ env: {} }) }).write({ type: "user", message: { role: "user", content: `deploy with ${secret}` } });
  return { prompts: state.prompts, cost: formatCost(state), redacted: line.includes("[REDACTED]") && !line.includes(secret) };
}
