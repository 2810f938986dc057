#!/usr/bin/env python3
"""A loopback stand-in for the Hugging Face Hub, backed by real git repositories (tests only).

Speaks the part of the Hub protocol the clients use (docs/hub.md): refs, revision,
tree (paginated with Link: rel="next"), paths-info, resolve (GET/HEAD, Range) with X-Repo-Commit, ETag,
X-Linked-Etag/X-Linked-Size, a 302 to a second loopback origin (127.0.0.2, the "CDN") for LFS-style
files, and X-Error-Code. Commit, tree and blob ids are git's own (git rev-parse, ls-tree, cat-file).

  hub_server.py --repos DIR --port-file FILE [--lfs-suffix .wgsl.jinja] [--page-size 4] [--max-seconds 600]

DIR holds <type>/<org>/<name> git repositories (type: kernels or models). Binds 127.0.0.1 and 127.0.0.2
on free ports and writes {"hub": URL, "cdn": URL, "pid": PID} to FILE. Stops itself after --max-seconds.
Faults are set at run time (POST /_control with a JSON object, merged; POST /_reset clears them and the
log; GET /_log returns every request):
  token: "T"                   requests without "authorization: Bearer T" get 401
  corrupt: "substr"            flip one byte of every served file whose path contains substr
  truncate: {"path": s, "after": N, "times": k}   send N bytes of the body, then close (k times)
  status: {"path": s, "codes": [503, 503], "retry_after": "1"}   answer these first
  drop_commit: true            omit X-Repo-Commit
  wrong_etag: true             an ETag that is not the blob id
  slow_ms: N                   sleep before each file body
  tree_path: "p"               add a tree entry with this (hostile) path
  missing_entry: "p"           resolve answers 404 EntryNotFound (with X-Repo-Commit) for path p
  move: {"repo": "kernels/org/name", "branch": "v1", "to": "v1-next"}   git update-ref, at once
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATE = {"faults": {}, "log": [], "lock": threading.Lock(), "counts": {}}
ARGS = None
CDN = {"url": ""}


def git(repo, *args, binary=False):
    out = subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)
    return out.stdout if binary else out.stdout.decode()


def repo_dir(rtype, org, name):
    path = os.path.join(ARGS.repos, rtype, org, name)
    return path if os.path.isdir(os.path.join(path, ".git")) else None


def resolve_rev(repo, rev):
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", rev + "^{commit}").strip()
    except subprocess.CalledProcessError:
        return None


def tree_entries(repo, commit):
    entries = []
    for line in git(repo, "ls-tree", "-r", "-l", "--full-tree", commit).splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, oid, size = meta.split()
        if kind != "blob":
            continue
        e = {"type": "file", "oid": oid, "size": int(size), "path": path}
        if path.endswith(ARGS.lfs_suffix):
            data = git(repo, "cat-file", "blob", oid, binary=True)
            e["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 130}
        entries.append(e)
    return entries


def fault(name):
    with STATE["lock"]:
        return STATE["faults"].get(name)


def take(name, key):
    """Counts down a fault that applies a limited number of times; True while it applies."""
    with STATE["lock"]:
        f = STATE["faults"].get(name)
        if not f:
            return None
        n = STATE["counts"].get((name, key), 0)
        limit = f.get("times", len(f.get("codes", [])) or 1)
        if n >= limit:
            return None
        STATE["counts"][(name, key)] = n + 1
        return f


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self):
        if self.path.startswith("/_"):
            return  # the test's own control requests
        with STATE["lock"]:
            STATE["log"].append({"method": self.command, "path": self.path, "host": self.headers.get("Host", ""),
                                 "auth": self.headers.get("Authorization", ""), "range": self.headers.get("Range", "")})

    def send(self, code, body=b"", headers=None, ctype="application/json"):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, code, error_code, message, extra=None):
        h = {"X-Error-Code": error_code, "X-Error-Message": message}
        h.update(extra or {})
        self.send(code, {"error": message}, h)

    def do_POST(self):
        self.record()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path == "/_control":
            with STATE["lock"]:
                STATE["faults"].update(json.loads(body or b"{}"))
                mv = STATE["faults"].pop("move", None)
            if mv:
                rtype, org, name = mv["repo"].split("/")
                repo = repo_dir(rtype, org, name)
                git(repo, "update-ref", "refs/heads/" + mv["branch"], resolve_rev(repo, mv["to"]))
            return self.send(200, {"ok": True})
        if self.path == "/_reset":
            with STATE["lock"]:
                STATE["faults"].clear()
                STATE["log"].clear()
                STATE["counts"].clear()
            return self.send(200, {"ok": True})
        parts = urllib.parse.urlsplit(self.path).path.split("/")
        # /api/<type>/<org>/<name>/paths-info/<rev>
        if len(parts) >= 7 and parts[1] == "api" and parts[5] == "paths-info":
            if not self.authorized():
                return
            repo = repo_dir(parts[2], parts[3], parts[4])
            if not repo:
                return self.error(404, "RepoNotFound", "Repository not found")
            commit = resolve_rev(repo, urllib.parse.unquote("/".join(parts[6:])))
            if not commit:
                return self.error(404, "RevisionNotFound", "Invalid rev id")
            try:
                req = json.loads(body)
                paths = req.get("paths", [])
            except ValueError:
                paths = urllib.parse.parse_qs(body.decode()).get("paths", [])
            out = []
            for e in tree_entries(repo, commit):
                if e["path"] in paths:
                    e = dict(e)
                    e["lastCommit"] = {"id": commit, "title": "fixture", "date": "2026-01-01T00:00:00.000Z"}
                    out.append(e)
            return self.send(200, out)
        return self.error(404, "EntryNotFound", "no such endpoint")

    def authorized(self):
        token = fault("token")
        if token and self.headers.get("Authorization", "") != "Bearer " + token:
            self.error(401, "RepoNotFound", "Invalid username or password.")
            return False
        return True

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        self.record()
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        parts = [urllib.parse.unquote(p) for p in url.path.split("/")]
        if url.path == "/_log":
            with STATE["lock"]:
                return self.send(200, list(STATE["log"]))
        if parts[1:2] == ["cdn"] and len(parts) == 3:
            return self.serve_cdn(parts[2])
        if not self.authorized():
            return
        if len(parts) >= 6 and parts[1] == "api" and parts[2] in ("kernels", "models"):
            return self.api(parts, query)
        # /<prefix><org>/<name>/resolve/<rev>/<path>   prefix: "" (models) or "kernels/"
        rtype, rest = ("kernels", parts[2:]) if parts[1] == "kernels" else ("models", parts[1:])
        if len(rest) >= 5 and rest[2] == "resolve":
            return self.resolve(rtype, rest[0], rest[1], rest[3], "/".join(rest[4:]))
        return self.error(404, "EntryNotFound", "no such endpoint")

    def api(self, parts, query):
        rtype, org, name, what = parts[2], parts[3], parts[4], parts[5]
        repo = repo_dir(rtype, org, name)
        if not repo:
            return self.error(404, "RepoNotFound", "Repository not found")
        if what == "refs":
            branches = []
            for line in git(repo, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads").splitlines():
                b, c = line.split()
                if b.endswith("-next"):
                    continue  # staged fixes, not published
                branches.append({"name": b, "ref": "refs/heads/" + b, "targetCommit": c})
            return self.send(200, {"branches": branches, "tags": [], "converts": []})
        rev = parts[6] if len(parts) > 6 else "main"
        commit = resolve_rev(repo, rev)
        if not commit:
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        entries = tree_entries(repo, commit)
        if what == "revision":
            return self.send(200, {"_id": name, "id": org + "/" + name, "sha": commit, "private": False,
                                   "siblings": [{"rfilename": e["path"]} for e in entries]})
        if what == "tree":
            extra = fault("tree_path")
            if extra:
                entries = entries + [{"type": "file", "oid": "0" * 40, "size": 1, "path": extra}]
            start = int(query.get("cursor", ["0"])[0])
            page = entries[start:start + ARGS.page_size]
            headers = {}
            if start + ARGS.page_size < len(entries):
                base = "http://%s%s" % (self.headers.get("Host"), urllib.parse.urlsplit(self.path).path)
                q = {k: v[0] for k, v in query.items()}
                q["cursor"] = str(start + ARGS.page_size)
                headers["Link"] = '<%s?%s>; rel="next"' % (base, urllib.parse.urlencode(q))
            return self.send(200, page, headers)
        return self.error(404, "EntryNotFound", "no such endpoint")

    def status_fault(self, path):
        f = fault("status")
        if f and f.get("path", "") in path:
            f = take("status", "all")
            if f:
                i = STATE["counts"][("status", "all")] - 1
                h = {"Retry-After": f["retry_after"]} if "retry_after" in f else {}
                self.send(f["codes"][i], {"error": "fault"}, h)
                return True
        return False

    def resolve(self, rtype, org, name, rev, path):
        repo = repo_dir(rtype, org, name)
        if not repo:
            return self.error(404, "RepoNotFound", "Repository not found")
        commit = resolve_rev(repo, rev)
        if not commit:
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        if self.status_fault(path):
            return
        entry = next((e for e in tree_entries(repo, commit) if e["path"] == path), None)
        if entry is None or fault("missing_entry") == path:
            return self.error(404, "EntryNotFound", path + " does not exist", {"X-Repo-Commit": commit})
        headers = {} if fault("drop_commit") else {"X-Repo-Commit": commit}
        if "lfs" in entry:
            sha = entry["lfs"]["oid"]
            headers.update({"X-Linked-Etag": '"%s"' % (("1" * 64) if fault("wrong_etag") else sha),
                            "X-Linked-Size": str(entry["lfs"]["size"]), "ETag": '"%s"' % entry["oid"],
                            "Location": "%s/cdn/%s?repo=%s/%s/%s&path=%s" % (CDN["url"], sha, rtype, org, name,
                                                                          urllib.parse.quote(path))})
            return self.send(302, b"", headers)
        headers["ETag"] = '"%s"' % (("1" * 40) if fault("wrong_etag") else entry["oid"])
        self.serve_bytes(git(repo, "cat-file", "blob", entry["oid"], binary=True), path, headers)

    def serve_cdn(self, sha):
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        rtype, org, name = q["repo"][0].split("/")
        repo = repo_dir(rtype, org, name)
        path = q["path"][0]
        if self.status_fault(path):
            return
        for e in tree_entries(repo, "HEAD") + [e for b in git(repo, "for-each-ref", "--format=%(objectname)", "refs/heads").split()
                                               for e in tree_entries(repo, b)]:
            if e.get("lfs", {}).get("oid") == sha:
                return self.serve_bytes(git(repo, "cat-file", "blob", e["oid"], binary=True), path, {"ETag": '"%s"' % sha})
        return self.send(404, {"error": "no such object"})

    def serve_bytes(self, data, path, headers):
        corrupt = fault("corrupt")
        if corrupt and corrupt in path and data:
            data = bytearray(data)
            data[len(data) // 2] ^= 0x01
            data = bytes(data)
        start, code = 0, 200
        rng = self.headers.get("Range", "")
        if rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            start = int(a or 0)
            end = int(b) if b else len(data) - 1
            if start < len(data):
                headers["Content-Range"] = "bytes %d-%d/%d" % (start, min(end, len(data) - 1), len(data))
                data, code = data[start:end + 1], 206
        slow = fault("slow_ms")
        if slow:
            time.sleep(slow / 1000.0)
        trunc = fault("truncate")
        if trunc and trunc["path"] in path and self.command == "GET" and take("truncate", path):
            self.send_response(code)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:trunc["after"]])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send(code, data, headers, "application/octet-stream")


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--repos", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--lfs-suffix", default=".wgsl.jinja")
    p.add_argument("--page-size", type=int, default=4)
    p.add_argument("--max-seconds", type=float, default=600)
    ARGS = p.parse_args()
    hub = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    cdn = ThreadingHTTPServer(("127.0.0.2", 0), Handler)
    hub.daemon_threads = cdn.daemon_threads = True
    CDN["url"] = "http://127.0.0.2:%d" % cdn.server_address[1]
    for s in (hub, cdn):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"hub": "http://127.0.0.1:%d" % hub.server_address[1], "cdn": CDN["url"], "pid": os.getpid()}, f)
    os.replace(tmp, ARGS.port_file)
    time.sleep(ARGS.max_seconds)
    sys.exit(0)


if __name__ == "__main__":
    main()
