// @garuda/session/init for Node: the CommonJS build initialises its wasm
// synchronously, so init() has nothing left to do.
"use strict";

Object.defineProperty(exports, "__esModule", { value: true });
Object.assign(exports, require("./garuda_session.js"));

function init() {
  return Promise.resolve();
}

exports.init = init;
exports.default = init;
