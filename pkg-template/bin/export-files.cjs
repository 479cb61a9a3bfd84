"use strict";
// Files an export writes beside its Markdown: the session's images (base64
// PNG, JPEG, GIF and WebP blocks, which the core alone hands out) as files in
// a folder named after the document, linked from it by relative path.
const fs = require("fs");
const path = require("path");

const EXT = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

/** An `image(mediaType, base64)` for transcriptMarkdown that writes beside `outFile`. */
function imageWriter(outFile) {
  const base = path.basename(outFile).replace(/\.[^.]*$/, "");
  const dir = path.join(path.dirname(outFile), `${base}-images`);
  let n = 0;
  return (mediaType, data) => {
    const ext = EXT[mediaType];
    if (!ext || !/^[A-Za-z0-9+/=]*$/.test(data)) return null;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = `${++n}.${ext}`;
    fs.writeFileSync(path.join(dir, name), Buffer.from(data, "base64"), { mode: 0o600 });
    return `${base}-images/${name}`;
  };
}

module.exports = { imageWriter };
