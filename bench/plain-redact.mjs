// The baseline: the Redactor's rules (JOURNAL.md §5) written the obvious way
// in plain JS with RegExp, as the TypeScript agent had them: JSON.parse each
// line, run every pattern over every string, JSON.stringify what changed.
// It exists only so the benchmark can compare the wasm Redactor against it.

const MARKER = "[REDACTED]";

const FORMATS = [
  /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  /(?<![\w-])sk-ant-(?:api03|admin01)-[\w-]{80,}/g,
  /(?<![\w-])sk-[\w-]*T3BlbkFJ[\w-]*/g,
  /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  /(?<!\w)(?:gh[pousr]_[A-Za-z0-9_]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
  /(?<![A-Za-z0-9])(?:xox[abeoprs]|xapp)-\d+-[A-Za-z0-9-]{10,}/g,
  /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[\w/]{8,}/g,
  /(?<![\w-])AIza[\w-]{35}(?![\w-])/g,
  /(?<![\w-])eyJ[\w-]{7,}\.eyJ[\w-]{7,}\.[\w-]*/g,
];
const URL_CREDS = /\b([a-z][a-z0-9+.-]*:\/\/[^:/@\s]+:)([^@/\s]+)@/gi;
const ASSIGN =
  /(["'`]?)([A-Za-z_$][\w.$-]*)\1\s*(?::=|=>|===|!==|==|!=|=|:)[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|((?:bearer |basic )?[^\s&"'`]+))/gi;

const SECRET_WORDS = new Set(["key", "keys", "auth", "authorization", "pin", "pwd", "pass", "passwd", "cred", "creds", "bearer"]);
const SECRET_PARTS = ["password", "passwd", "passphrase", "secret", "token", "credential", "apikey", "accesskey", "privatekey"];
const METADATA = new Set(
  "length len count id ids uuid url urls uri name names type types kind budget max min input output size limit limits ttl expiry expires expiration timeout file files path dir prefix suffix format field fields hint version index idx usage cache reported unreported public pub label title description placeholder pattern regex policy rotation algorithm alg mode required tokenizer endpoint header headers".split(
    " ",
  ),
);

function words(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function secretName(name) {
  const w = words(name);
  if (w.some((x) => METADATA.has(x))) return null;
  const secret = w.some((x) => SECRET_WORDS.has(x) || SECRET_PARTS.some((p) => x.includes(p)));
  if (!secret) return null;
  const numeric = w.some((x) => x === "pin" || x === "pass" || /password|passwd|passphrase|secret/.test(x));
  return { numeric };
}

function keeps(value, quoted, cls) {
  const v = value.trim();
  if (!/[A-Za-z0-9]/.test(v) || v.includes(MARKER) || /^(true|false|null)$/i.test(v)) return true;
  if (/^-?\d[\d.]*$/.test(v)) return !(cls.numeric && v.replace(/\D/g, "").length >= 4);
  if (/^<.*>$/.test(v) || /^(.)\1*$/.test(v.replace(/[-_. ]/g, "")) || /^(\$\{|\{\{|\$\(|#\{)|^\$\w+$|^%.+%$|^\{.*\}$/.test(v)) return true;
  if (/^(https?:\/\/|\.?\/)/.test(v)) return true;
  if (quoted) return v.length < 4 || (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/.test(v) && !/\d/.test(v));
  if (/^(await |new )?[A-Za-z_$][\w$]*((\.|\?\.)[A-Za-z_$][\w$]*|\([^)]*\)|\[[^\]]*\])+$/.test(v)) return true;
  if (/^[A-Za-z_$][\w$]*$/.test(v)) return !/\d/.test(v);
  return v.length < 4;
}

export class PlainRedactor {
  constructor(env = {}) {
    this.values = Object.entries(env)
      .filter(([k, v]) => /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i.test(k) && typeof v === "string" && v.length >= 8)
      .flatMap(([, v]) => [v, encodeURIComponent(v)])
      .sort((a, b) => b.length - a.length);
  }

  redact(text) {
    let out = text;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(MARKER);
    for (const re of FORMATS) out = out.replace(re, MARKER);
    out = out.replace(URL_CREDS, (m, head, pass) => (keeps(pass, true, {}) ? m : `${head}${MARKER}@`));
    out = out.replace(ASSIGN, (m, q, name, dq, sq, bare) => {
      const cls = secretName(name);
      if (!cls) return m;
      let value = dq ?? sq ?? bare;
      const scheme = /^(bearer|basic) /i.exec(value);
      if (scheme) value = value.slice(scheme[0].length);
      if (keeps(value, dq !== undefined || sq !== undefined, cls)) return m;
      const at = m.lastIndexOf(value);
      return m.slice(0, at) + MARKER + m.slice(at + value.length);
    });
    return out;
  }

  #walk(node, key, type) {
    if (typeof node === "string") {
      if (key === "encrypted_content" || key === "encrypted_index") return node;
      if ((key === "signature" && type === "thinking") || (key === "data" && (type === "redacted_thinking" || type === "base64"))) return node;
      const cls = key ? secretName(key) : null;
      if (cls && !keeps(node, true, cls)) return MARKER;
      return this.redact(node);
    }
    if (typeof node === "number") {
      const cls = key ? secretName(key) : null;
      return cls && cls.numeric && String(node).replace(/\D/g, "").length >= 4 ? MARKER : node;
    }
    if (Array.isArray(node)) return node.map((x) => this.#walk(x, key, type));
    if (node && typeof node === "object") {
      const out = {};
      for (const [k, v] of Object.entries(node)) out[k] = this.#walk(v, k, node.type);
      return out;
    }
    return node;
  }

  redactLine(line) {
    const record = JSON.parse(line);
    if (!record || typeof record !== "object" || Array.isArray(record)) throw new Error("not a JSON object");
    const out = this.#walk(record, undefined, undefined);
    const next = JSON.stringify(out);
    if (next === JSON.stringify(record)) return { line, changed: false };
    out.redacted = true;
    return { line: JSON.stringify(out), changed: true };
  }
}
