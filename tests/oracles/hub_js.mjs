// The official JS client (@huggingface/hub 2.17.5) as an oracle for Hub cache interoperability.
//   node hub_js.mjs snapshot HUB_URL ORG/NAME REVISION CACHE_DIR [--copy]
//       snapshotDownload of a model repo (writes models--org--name, refs/<revision>)
//   node hub_js.mjs kernel HUB_URL ORG/NAME COMMIT BRANCH CACHE_DIR [--copy]
//       the kernel repo type: snapshotDownload refuses it, so each file of build/webgpu/ and README.md
//       goes through downloadFileToCacheDir({repo: "kernels/ORG/NAME", revision: COMMIT}), and
//       refs/BRANCH is written as the Hub clients write it (the commit, no newline)
//   node hub_js.mjs scan CACHE_DIR
//       scanCacheDir: prints {repos: [{id, type, revisions: [{commit, refs, files: [{path, blob}]}]}], warnings}
//   node hub_js.mjs read FILE...   prints the sha256 of each file as the JS side reads it
// --copy makes fs.symlink fail, so the client takes its copyFile branch (the layout without symlinks).
import { createRequire, syncBuiltinESMExports } from "node:module";
import { createHash } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
if (args.includes("--copy")) {
  const fs = require("node:fs");
  fs.promises.symlink = async () => {
    throw Object.assign(new Error("symlinks disabled by the test"), { code: "EPERM" });
  };
  syncBuiltinESMExports();
}
console.info = () => {};  // the client's "Symlink not supported. Copying file" notes
const hub = await import("@huggingface/hub");
const [command, ...rest] = args.filter((a) => a !== "--copy");

if (command === "snapshot") {
  const [hubUrl, name, revision, cacheDir] = rest;
  const out = await hub.snapshotDownload({ repo: { type: "model", name }, revision, hubUrl, cacheDir });
  console.log(out);
} else if (command === "kernel") {
  const [hubUrl, name, commit, branch, cacheDir] = rest;
  const listing = [];
  for await (const f of hub.listFiles({ repo: { type: "model", name }, revision: commit, recursive: true, hubUrl }))
    listing.push(f);
  for (const f of listing) {
    if (f.type !== "file" || !(f.path === "README.md" || f.path.startsWith("build/webgpu/"))) continue;
    await hub.downloadFileToCacheDir({ repo: `kernels/${name}`, path: f.path, revision: commit, hubUrl, cacheDir });
  }
  const refs = path.join(cacheDir, `kernels--${name.replace("/", "--")}`, "refs");
  await mkdir(refs, { recursive: true });
  await writeFile(path.join(refs, branch), commit);
} else if (command === "scan") {
  const result = await hub.scanCacheDir(rest[0]);
  console.log(JSON.stringify({
    repos: result.repos.map((r) => ({
      id: r.id.name, type: r.id.type,
      revisions: r.revisions.map((v) => ({ commit: v.commitOid, refs: v.refs, files: v.files.map((f) => ({ path: f.path, blob: f.blob.path })) })),
    })),
    warnings: result.warnings.map((w) => String(w.message ?? w)),
  }));
} else if (command === "read") {
  for (const f of rest) console.log(createHash("sha256").update(await readFile(f)).digest("hex") + "  " + f);
} else {
  console.error("usage: hub_js.mjs snapshot|kernel|scan|read ...");
  process.exit(2);
}
