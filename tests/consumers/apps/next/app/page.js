"use client";
// A Next.js client page: the browser entry, loaded on the client only.
import { useEffect } from "react";
import { run } from "../check.js";

export default function Page() {
  useEffect(() => {
    import("@garuda/session").then(
      (api) => (document.body.dataset.result = JSON.stringify(run(api))),
      (e) => (document.body.dataset.result = JSON.stringify({ error: String(e) })),
    );
  }, []);
  return <p>consumer</p>;
}
