// Fetching from and sharing caches with the Hub, against a loopback stand-in (tests/oracles/hub_server.py,
// 127.0.0.1 plus 127.0.0.2 as the LFS "CDN"; started and stopped by the fixture) backed by git
// repositories made from kernels/ (tests/store/make_hub_repos.sh). Expected values come from outside
// the code under test: commit and blob ids from `git rev-parse`, bytes from `git show`, sha256 from
// `sha256sum`, the layout and scan results from the official JS client @huggingface/hub 2.17.5
// (tests/oracles/hub_js.mjs), the CACHEDIR.TAG bytes from huggingface_hub's _local_folder.py.
#include <gtest/gtest.h>

#include "../error_helpers.h"

#include <curl/curl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "package_folder.h"
#include "store/hub_cache.h"
#include "store/hub_client.h"
#include "store/store.h"
#include "wgk/error.h"
#include "wgk/introspect.h"
#include "runtime/state.h"
#include "wgk/kernel.h"

extern char** environ;

namespace wgk::testing {
namespace {

const fs::path kSource = WGK_SOURCE_DIR;
constexpr const char* kOnnxId = "webgpu-kernels/ai.onnx.RotaryEmbedding";
constexpr const char* kMsId = "webgpu-kernels/com.microsoft.RotaryEmbedding";

struct Shell {
  int rc;
  std::string out;
};
// Runs a shell command line (stdout and stderr together).
Shell sh(const std::string& command) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, out};
}
std::string q(const std::string& s) { return "'" + s + "'"; }
std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::size_t on_body(char* d, std::size_t s, std::size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}
std::string http(const std::string& url, const std::string& post = {}) {
  CURL* c = curl_easy_init();
  std::string body;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
  if (!post.empty()) curl_easy_setopt(c, CURLOPT_POSTFIELDS, post.c_str());
  curl_easy_perform(c);
  curl_easy_cleanup(c);
  return body;
}

class Hub : public ::testing::Test {
 protected:
  static inline TempDir* tmp = nullptr;
  static inline std::string hub, cdn;
  static inline pid_t server = 0;

  static void SetUpTestSuite() {
    tmp = new TempDir();
    const Shell made = sh("bash " + q((kSource / "tests/store/make_hub_repos.sh").string()) + " " +
                        q((tmp->path() / "repos").string()) + " " + q(kSource.string()));
    ASSERT_EQ(made.rc, 0) << made.out;
    const std::string port_file = (tmp->path() / "port.json").string();
    const std::string script = (kSource / "tests/oracles/hub_server.py").string();
    const std::string repos = (tmp->path() / "repos").string();
    std::vector<std::string> args{"python3", script, "--repos", repos, "--port-file", port_file, "--max-seconds", "300"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawnp(&server, "python3", nullptr, nullptr, argv.data(), environ), 0);
    for (int i = 0; i < 200 && !fs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(fs::exists(port_file)) << "the loopback Hub did not start";
    const auto ports = nlohmann::json::parse(read_bytes(port_file));
    hub = ports["hub"];
    cdn = ports["cdn"];
    ASSERT_TRUE(hub.starts_with("http://127.0.0.1:")) << hub;
    ASSERT_TRUE(cdn.starts_with("http://127.0.0.2:")) << cdn;
  }
  static void TearDownTestSuite() {
    if (server > 0) {
      kill(server, SIGTERM);
      waitpid(server, nullptr, 0);
    }
    delete tmp;
  }
  void SetUp() override { http(hub + "/_reset", "{}"); }

  static void control(const nlohmann::json& faults) { http(hub + "/_control", faults.dump()); }
  static nlohmann::json log() { return nlohmann::json::parse(http(hub + "/_log")); }
  static int count_requests(const std::string& substring) {
    int n = 0;
    for (const auto& r : log()) n += r["path"].get<std::string>().find(substring) != std::string::npos;
    return n;
  }
  static fs::path repo_of(const std::string& id) {
    return tmp->path() / "repos" / (id == kOnnxId ? "kernels" : "models") / id;
  }
  static std::string git(const std::string& id, const std::string& args) {
    const Shell r = sh("git -C " + q(repo_of(id).string()) + " " + args);
    EXPECT_EQ(r.rc, 0) << args << ": " << r.out;
    return chomp(r.out);
  }
  static std::string git_bytes(const std::string& id, const std::string& rev_path) {
    return sh("git -C " + q(repo_of(id).string()) + " show " + q(rev_path) + " 2>/dev/null").out;
  }
  static std::string sha256sum_of_git(const std::string& id, const std::string& rev_path) {
    return sh("git -C " + q(repo_of(id).string()) + " show " + q(rev_path) + " | sha256sum").out.substr(0, 64);
  }
  /// The package paths of a commit, from git.
  static std::vector<std::string> package_paths(const std::string& id, const std::string& commit) {
    std::vector<std::string> out;
    std::stringstream ss(git(id, "ls-tree -r --name-only " + commit));
    for (std::string p; std::getline(ss, p);)
      if (p == "README.md" || p.starts_with("build/webgpu/")) out.push_back(p);
    return out;
  }
  static store::HubOptions options(const fs::path& cache) {
    store::HubOptions o;
    o.endpoint = hub;
    o.cache = cache;
    o.retry_base_ms = 10;  // test-only: backoff 10, 20, 40 ms (Retry-After still wins)
    o.etag_timeout_s = o.download_timeout_s = 5;
    return o;
  }
  static std::string wgk_env(const fs::path& cache) {
    return "env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HUB_OFFLINE -u KERNELS_CACHE -u WGK_KERNEL_PATH HF_ENDPOINT=" +
           hub + " HF_HUB_CACHE=" + q(cache.string()) + " HF_HOME=" + q((cache / "home").string()) +
           " WGK_HUB_RETRY_BASE_MS=10 " + q(WGK_BINARY) + " ";
  }
  /// Every file and link under `dir` whose name ends with .incomplete.
  static std::vector<std::string> leftovers(const fs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->path().filename().string().ends_with(".incomplete")) out.push_back(it->path().string());
    return out;
  }
  /// The bytes and commit of a loaded package equal git's for every package path of the commit.
  static void expect_git_bytes(const store::Package& p, const std::string& id, const std::string& commit) {
    EXPECT_EQ(p.commit, commit);
    EXPECT_EQ(p.content_id, git(id, "rev-parse " + commit + ":build/webgpu/metadata.json"));
    const auto paths = package_paths(id, commit);
    EXPECT_EQ(p.files.size(), paths.size());
    for (const std::string& path : paths) {
      ASSERT_TRUE(p.files.count(path)) << path;
      EXPECT_EQ(p.files.at(path), git_bytes(id, commit + ":" + path)) << path;
    }
  }
  /// Blob name the Python client uses: the LFS sha256 for the server's LFS files (*.wgsl.jinja), else git's blob id.
  static std::string blob_name(const std::string& id, const std::string& commit, const std::string& path) {
    return path.ends_with(".wgsl.jinja") ? sha256sum_of_git(id, commit + ":" + path)
                                         : git(id, "rev-parse " + commit + ":" + path);
  }
  static Shell js(const std::string& args) {
    // The official client against the loopback Hub: the test binaries' HF_HUB_OFFLINE (tests/offline.cpp)
    // is not for it.
    return sh("env -u HF_HUB_OFFLINE node " + q((kSource / "tests/oracles/hub_js.mjs").string()) + " " + args);
  }
};

// ---- what our client writes -----------------------------------------------------------------------

TEST_F(Hub, DownloadWritesThePythonClientsLayout) {
  TempDir cache;
  const std::string commit = git(kOnnxId, "rev-parse v1");
  const auto d = store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  EXPECT_EQ(d.commit, commit);
  EXPECT_EQ(d.type, "kernels");
  const fs::path repo = fs::canonical(cache.path()) / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding";
  EXPECT_EQ(read_bytes(repo / "refs/v1"), commit);  // 40 bytes, no newline
  for (const std::string& path : package_paths(kOnnxId, commit)) {
    const fs::path pointer = repo / "snapshots" / commit / path;
    ASSERT_TRUE(fs::is_symlink(pointer)) << path;
    std::string up = "../../";
    for (char c : path) up += c == '/' ? "../" : "";
    const std::string blob = blob_name(kOnnxId, commit, path);
    EXPECT_EQ(fs::read_symlink(pointer).string(), up + "blobs/" + blob) << path;
    EXPECT_EQ(read_bytes(repo / "blobs" / blob), git_bytes(kOnnxId, commit + ":" + path)) << path;
  }
  EXPECT_FALSE(fs::exists(repo / "snapshots" / commit / ".gitattributes"));
  EXPECT_FALSE(fs::exists(repo / "snapshots" / commit / "build/torch-cpu"));
  EXPECT_EQ(read_bytes(cache.path() / "CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by "
            "huggingface_hub.\n# For information about cache directory tags, see:\n#\thttps://bford.info/cachedir/\n");
  const auto tree = nlohmann::json::parse(read_bytes(repo / "trees" / (commit + ".json")));
  EXPECT_EQ(tree["format_version"], 1);
  const std::string all = git(kOnnxId, "ls-tree -r --name-only " + commit);
  EXPECT_EQ(tree["files"].size(), static_cast<std::size_t>(std::count(all.begin(), all.end(), '\n') + 1));
  EXPECT_EQ(tree["files"]["build/webgpu/manifest.json"]["blob_id"], git(kOnnxId, "rev-parse " + commit + ":build/webgpu/manifest.json"));
  EXPECT_EQ(tree["files"]["build/webgpu/rotary-embedding.wgsl.jinja"]["lfs_sha256"],
            sha256sum_of_git(kOnnxId, commit + ":build/webgpu/rotary-embedding.wgsl.jinja"));
  EXPECT_TRUE(fs::is_directory(cache.path() / ".locks/kernels--webgpu-kernels--ai.onnx.RotaryEmbedding"));
  EXPECT_EQ(leftovers(cache.path()), std::vector<std::string>{});
  // The LFS-style files came through the 302 to the second origin, without the token.
  int cdn_gets = 0, lfs_files = 0;
  for (const auto& r : log()) cdn_gets += r["host"].get<std::string>().starts_with("127.0.0.2");
  for (const std::string& path : package_paths(kOnnxId, commit)) lfs_files += path.ends_with(".wgsl.jinja");
  EXPECT_GT(lfs_files, 0);
  EXPECT_EQ(cdn_gets, lfs_files);  // one GET at the second origin per *.wgsl.jinja file
  const store::Store s({cache.path()}, false);
  expect_git_bytes(*s.load(kOnnxId, {.version = 1}), kOnnxId, commit);
  expect_git_bytes(*s.load(kOnnxId, {.revision = commit}), kOnnxId, commit);
}

TEST_F(Hub, CopyModeWithoutSymlinks) {
  TempDir cache;
  auto o = options(cache.path());
  o.symlinks = false;  // HF_HUB_DISABLE_SYMLINKS=1
  const auto d = store::hub_download(kMsId, 1, std::nullopt, o);
  const std::string commit = git(kMsId, "rev-parse v1");
  EXPECT_EQ(d.type, "models");  // no kernel repo of that id: the legacy model type answered
  for (const std::string& path : package_paths(kMsId, commit)) {
    const fs::path f = d.snapshot / path;
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(f))) << path;
    EXPECT_EQ(read_bytes(f), git_bytes(kMsId, commit + ":" + path));
  }
  expect_git_bytes(*store::Store({cache.path()}, false).load(kMsId, {.version = 1}), kMsId, commit);
}

TEST_F(Hub, SecondDownloadAsksOnlyTheRefs) {
  TempDir cache;
  store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  http(hub + "/_reset", "{}");
  const auto d = store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  EXPECT_TRUE(d.already_cached);
  EXPECT_EQ(d.requests, 1);
  EXPECT_EQ(count_requests("/resolve/"), 0);
  EXPECT_EQ(count_requests("/refs"), 1);
}

TEST_F(Hub, TreePaginationFollowed) {
  TempDir cache;
  const std::string commit = git(kOnnxId, "rev-parse v1");
  store::hub_download(kOnnxId, std::nullopt, commit, options(cache.path()));
  // The tree lists every blob of the commit (git ls-tree -r), 4 per page (hub_server.py --page-size
  // default): ceil(n / 4) pages, the last one asked for with cursor 4 * (pages - 1).
  std::stringstream blobs(git(kOnnxId, "ls-tree -r --name-only " + commit));
  int n = 0;
  for (std::string line; std::getline(blobs, line);) ++n;
  ASSERT_GT(n, 8) << "a tree of at least three pages";
  const int pages = (n + 3) / 4;
  EXPECT_EQ(count_requests("/tree/"), pages);
  EXPECT_EQ(count_requests("cursor=" + std::to_string(4 * (pages - 1))), 1);
}

// ---- interoperability with @huggingface/hub --------------------------------------------------------

struct JsCase {
  const char* name;
  bool kernel_type;
  bool copy;
};

class HubJs : public Hub, public ::testing::WithParamInterface<JsCase> {};

TEST_P(HubJs, CacheWrittenByTheJsClientLoadsByVersionAndCommit) {
  const JsCase c = GetParam();
  TempDir cache;
  const std::string id = c.kernel_type ? kOnnxId : kMsId;
  const std::string commit = git(id, "rev-parse v1");
  const Shell r = c.kernel_type
                    ? js("kernel " + hub + " " + id + " " + commit + " v1 " + q(cache.path().string()) + (c.copy ? " --copy" : ""))
                    : js("snapshot " + hub + " " + id + " v1 " + q(cache.path().string()) + (c.copy ? " --copy" : ""));
  ASSERT_EQ(r.rc, 0) << r.out;
  const fs::path repo = cache.path() / store::hub::repo_folder(c.kernel_type ? "kernels" : "models", id);
  ASSERT_TRUE(fs::is_directory(repo / "snapshots" / commit)) << r.out;
  EXPECT_EQ(fs::is_symlink(repo / "snapshots" / commit / "build/webgpu/manifest.json"), !c.copy);
  EXPECT_EQ(read_bytes(repo / "refs/v1"), commit);
  const store::Store s({cache.path()}, false);
  expect_git_bytes(*s.load(id, {.version = 1}), id, commit);
  expect_git_bytes(*s.load(id, {.revision = commit}), id, commit);
  const Shell verify = sh(q(WGK_BINARY) + " cache verify --cache " + q(cache.path().string()));
  EXPECT_EQ(verify.rc, 0) << verify.out;
}

INSTANTIATE_TEST_SUITE_P(Layouts, HubJs,
                         ::testing::Values(JsCase{"ModelsSymlinks", false, false}, JsCase{"ModelsCopies", false, true},
                                           JsCase{"KernelsSymlinks", true, false}, JsCase{"KernelsCopies", true, true}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(Hub, JsCacheThroughGetKernelAndTheEnvironment) {
  // get_kernel reads HF_HUB_CACHE (the default store's official roots); offline, so the cache must serve it.
  TempDir cache;
  const std::string commit = git(kMsId, "rev-parse v1");
  ASSERT_EQ(js("snapshot " + hub + " " + kMsId + " v1 " + q(cache.path().string())).rc, 0);
  setenv("HF_HUB_CACHE", cache.path().c_str(), 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  unsetenv("WGK_KERNEL_PATH");
  unsetenv("KERNELS_CACHE");
  http(hub + "/_reset", "{}");
  const Kernel by_version = get_kernel(kMsId, {.version = 1});
  EXPECT_EQ(by_version.commit(), commit);
  EXPECT_EQ(introspect::package(by_version)->origin.find(cache.path().string()), 0u) << introspect::package(by_version)->origin;
  const Kernel by_commit = get_kernel(kMsId, {.revision = commit});
  EXPECT_EQ(by_commit.commit(), commit);
  EXPECT_EQ(by_commit.content_id(), git(kMsId, "rev-parse " + commit + ":build/webgpu/metadata.json"));
  EXPECT_EQ(log().size(), 0u);  // offline: no request
}

TEST_F(Hub, OurCachePassesJsScanAndReadsBackByteForByte) {
  TempDir cache;
  const auto a = store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  const auto b = store::hub_download(kMsId, 1, std::nullopt, options(cache.path()));
  const Shell scan = js("scan " + q(cache.path().string()));
  ASSERT_EQ(scan.rc, 0) << scan.out;
  const auto result = nlohmann::json::parse(scan.out.substr(scan.out.find('{')));
  EXPECT_EQ(result["warnings"].size(), 0u) << result["warnings"].dump();
  ASSERT_EQ(result["repos"].size(), 2u) << scan.out;
  std::map<std::string, std::string> seen;
  for (const auto& repo : result["repos"]) {
    ASSERT_EQ(repo["revisions"].size(), 1u);
    EXPECT_EQ(repo["revisions"][0]["refs"], nlohmann::json::array({"v1"}));
    seen[repo["id"]] = repo["revisions"][0]["commit"];
  }
  EXPECT_EQ(seen[kOnnxId], git(kOnnxId, "rev-parse v1"));
  EXPECT_EQ(seen[kMsId], git(kMsId, "rev-parse v1"));
  for (const auto& [id, d] : {std::pair{std::string(kOnnxId), a}, std::pair{std::string(kMsId), b}}) {
    std::string files;
    for (const std::string& path : package_paths(id, d.commit)) files += " " + q((d.snapshot / path).string());
    const Shell read = js("read" + files);
    ASSERT_EQ(read.rc, 0) << read.out;
    for (const std::string& path : package_paths(id, d.commit))
      EXPECT_NE(read.out.find(sha256sum_of_git(id, d.commit + ":" + path) + "  " + (d.snapshot / path).string()),
                std::string::npos)
          << path << ": " << read.out;
  }
}

TEST_F(Hub, OurCopyModeCachePassesJsScan) {
  TempDir cache;
  auto o = options(cache.path());
  o.symlinks = false;
  const auto d = store::hub_download(kMsId, 1, std::nullopt, o);
  const Shell scan = js("scan " + q(cache.path().string()));
  ASSERT_EQ(scan.rc, 0) << scan.out;
  const auto result = nlohmann::json::parse(scan.out.substr(scan.out.find('{')));
  EXPECT_EQ(result["warnings"].size(), 0u) << result["warnings"].dump();
  ASSERT_EQ(result["repos"].size(), 1u);
  EXPECT_EQ(result["repos"][0]["type"], "model");
  EXPECT_EQ(result["repos"][0]["revisions"][0]["commit"], d.commit);
  // scanSnapshotDir lists the top level only: README.md, a copy (its "blob" is itself).
  const auto& files = result["repos"][0]["revisions"][0]["files"];
  ASSERT_EQ(files.size(), 1u) << files.dump();
  EXPECT_EQ(files[0]["blob"], (d.snapshot / "README.md").string());
}

TEST_F(Hub, SameLayoutAsTheJsClientByteForByte) {
  TempDir js_cache, our_cache;
  const std::string commit = git(kMsId, "rev-parse v1");
  ASSERT_EQ(js("snapshot " + hub + " " + kMsId + " v1 " + q(js_cache.path().string())).rc, 0);
  store::hub_download(kMsId, 1, std::nullopt, options(our_cache.path()));
  const std::string folder = "models--webgpu-kernels--com.microsoft.RotaryEmbedding";
  const fs::path a = js_cache.path() / folder, b = our_cache.path() / folder;
  EXPECT_EQ(read_bytes(a / "refs/v1"), read_bytes(b / "refs/v1"));
  for (const std::string& path : package_paths(kMsId, commit)) {
    const fs::path pa = a / "snapshots" / commit / path, pb = b / "snapshots" / commit / path;
    EXPECT_EQ(fs::read_symlink(pa), fs::read_symlink(pb)) << path;
    const fs::path blob = fs::read_symlink(pb).filename();
    EXPECT_EQ(read_bytes(a / "blobs" / blob), read_bytes(b / "blobs" / blob)) << path;
  }
  // The JS client, run again on our cache, finds every package file in place: it fetches only the repo files
  // that are not the package's (.gitattributes, the other build variant), which we do not download.
  http(hub + "/_reset", "{}");
  ASSERT_EQ(js("snapshot " + hub + " " + kMsId + " v1 " + q(our_cache.path().string())).rc, 0);
  std::set<std::string> fetched;
  for (const auto& r : log()) {
    const std::string path = r["path"];
    if (r["method"] == "GET" && r["range"] == "" && path.find("/resolve/") != std::string::npos)
      fetched.insert(path.substr(path.find("/resolve/") + 9 + 41));
  }
  EXPECT_EQ(fetched, (std::set<std::string>{".gitattributes", "build/torch-cpu/NOTE.txt"}));
}

// ---- faults ------------------------------------------------------------------------------------------

TEST_F(Hub, CorruptedByteIsRefusedAndNothingIsWritten) {
  for (const std::string& file : {std::string("manifest.json"), std::string("rotary-embedding.wgsl.jinja")}) {
    TempDir cache;
    http(hub + "/_reset", "{}");
    control({{"corrupt", "build/webgpu/" + file}});
    const std::string m = error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())); },
                                   ErrorKind::kIntegrity);
    expect_has(m, {file, "hash to", "nothing was written", file.ends_with(".jinja") ? "sha256" : "git blob sha1"});
    const fs::path repo = cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding";
    const std::string commit = git(kOnnxId, "rev-parse v1");
    EXPECT_FALSE(fs::exists(repo / "blobs" / blob_name(kOnnxId, commit, "build/webgpu/" + file)));
    EXPECT_FALSE(fs::exists(repo / "snapshots" / commit));
    EXPECT_FALSE(fs::exists(repo / "refs/v1"));
    EXPECT_EQ(leftovers(cache.path()), std::vector<std::string>{});
  }
}

TEST_F(Hub, TransferCutMidFileResumesWithRange) {
  TempDir cache;
  control({{"truncate", {{"path", "build/webgpu/test.json"}, {"after", 100}, {"times", 1}}}});
  const auto d = store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  bool resumed = false;
  for (const auto& r : log())
    resumed = resumed || (r["path"].get<std::string>().find("test.json") != std::string::npos && r["range"] == "bytes=100-");
  EXPECT_TRUE(resumed) << log().dump();
  expect_git_bytes(*store::Store({cache.path()}, false).load(kOnnxId, {.revision = d.commit}), kOnnxId, d.commit);
}

TEST_F(Hub, TransferCutEveryTimeSaysTheAnswerBegan) {
  // The body is cut after 100 bytes on every attempt: the download fails, and the message says the HTTP
  // answer began (before, "a network error, before any HTTP answer": a breaker's finding).
  TempDir cache;
  control({{"truncate", {{"path", "build/webgpu/manifest.json"}, {"after", 100}, {"times", 10}}}});
  const std::string m = error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())); },
                                 ErrorKind::kNotFound);
  expect_has(m, {"manifest.json", "answer began: its body was cut", "after 6 attempts"});
  EXPECT_EQ(m.find("before any HTTP answer"), std::string::npos) << m;
}

TEST_F(Hub, TooManyRequestsWaitsForRetryAfter) {
  TempDir cache;
  control({{"status", {{"path", "build/webgpu/manifest.json"}, {"codes", {429}}, {"retry_after", "1"}}}});
  const auto t0 = std::chrono::steady_clock::now();
  store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(s, 1.0);  // the backoff base is 10 ms: only Retry-After: 1 explains a second
  EXPECT_EQ(count_requests("build/webgpu/manifest.json"), 2);
}

TEST_F(Hub, ServiceUnavailableTwiceThenSuccess) {
  TempDir cache;
  control({{"status", {{"path", "build/webgpu/manifest.json"}, {"codes", {503, 503}}}}});
  const auto d = store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  EXPECT_EQ(count_requests("build/webgpu/manifest.json"), 3);
  EXPECT_TRUE(fs::exists(d.snapshot / "build/webgpu/manifest.json"));
}

TEST_F(Hub, PersistentServerErrorGivesUpAfterFiveRetries) {
  TempDir cache;
  control({{"status", {{"path", "build/webgpu/manifest.json"}, {"codes", {503, 503, 503, 503, 503, 503, 503}}}}});
  expect_has(error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())); }, ErrorKind::kNotFound),
             {"manifest.json", "503", "after 6 attempts"});
  EXPECT_EQ(count_requests("build/webgpu/manifest.json"), 6);
}

TEST_F(Hub, UnauthorizedWithoutTokenThenTheTokenFromTheTokenFile) {
  TempDir cache;
  control({{"token", "hf_loopback"}});
  expect_has(error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())); }, ErrorKind::kNotFound),
             {"401", "HF_TOKEN"});
  // The token file ($HF_HOME/token), as huggingface_hub reads it when HF_TOKEN is unset.
  TempDir home;
  write_bytes(home.path() / "token", "hf_loopback\n");
  unsetenv("HF_TOKEN");
  unsetenv("HUGGING_FACE_HUB_TOKEN");
  unsetenv("HF_TOKEN_PATH");
  setenv("HF_HOME", home.path().c_str(), 1);
  auto o = options(cache.path());
  o.token = store::HubOptions::from_environment().token;
  EXPECT_EQ(o.token, "hf_loopback");
  http(hub + "/_reset", "{}");
  control({{"token", "hf_loopback"}});
  store::hub_download(kOnnxId, 1, std::nullopt, o);
  int hub_with = 0, cdn_with = 0, cdn_total = 0;
  for (const auto& r : log()) {
    const bool at_cdn = r["host"].get<std::string>().starts_with("127.0.0.2");
    cdn_total += at_cdn;
    (at_cdn ? cdn_with : hub_with) += r["auth"] == "Bearer hf_loopback";
  }
  EXPECT_GT(hub_with, 0);
  EXPECT_GT(cdn_total, 0);
  EXPECT_EQ(cdn_with, 0);  // the token is dropped on the redirect to another host
}

TEST_F(Hub, OfflineMakesNoRequestServesTheCacheAndOtherwiseTheEmbeddedPackage) {
  TempDir cache;
  auto o = options(cache.path());
  o.offline = true;
  expect_has(error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, o); }, ErrorKind::kNotFound), {"offline"});
  // No cached copy: a commit pin is not found (naming offline); version 1 comes from the embedded package.
  const store::Store s(store::StoreOptions{.roots = {cache.path()}, .official_roots = false, .include_embedded = true, .hub = o});
  const std::string commit = git(kOnnxId, "rev-parse v1");
  expect_has(error_of([&] { s.load(kOnnxId, {.revision = commit}); }, ErrorKind::kNotFound), {commit, "offline"});
  EXPECT_EQ(s.load(kOnnxId, {.version = 1})->origin, "embedded ai.onnx.RotaryEmbedding");
  EXPECT_EQ(count_requests("/api/"), 0);
  // With a cached copy: served offline.
  store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  http(hub + "/_reset", "{}");
  EXPECT_EQ(s.load(kOnnxId, {.revision = commit})->commit, commit);
  EXPECT_EQ(log().size(), 0u);
}

TEST_F(Hub, NetworkDownFallsBackAtOnce) {
  TempDir cache;
  auto o = options(cache.path());
  o.endpoint = "http://127.0.0.1:9";  // discard port: connection refused
  o.max_retries = 0;
  const store::Store s(store::StoreOptions{.roots = {cache.path()}, .official_roots = false, .include_embedded = true, .hub = o});
  const auto t0 = std::chrono::steady_clock::now();
  // One refused connection, then the embedded package; the endpoint is then not tried again for 60 s.
  EXPECT_EQ(s.load(kOnnxId, {.version = 1})->origin, "embedded ai.onnx.RotaryEmbedding");
  expect_has(error_of([&] { s.load(kOnnxId, {.revision = std::string(40, 'c')}); }, ErrorKind::kNotFound),
             {"127.0.0.1:9", "network", "not tried again"});
  // Another package's fetch is refused at once too, naming that package, not the one whose request failed.
  const std::string ms_error = error_of([&] { s.load(kMsId, {.revision = std::string(40, 'd')}); }, ErrorKind::kNotFound);
  expect_has(ms_error, {std::string("fetching ") + kMsId + " at revision " + std::string(40, 'd'),
                        "could not be reached by an earlier request", "not tried again"});
  for (int i = 0; i < 100; ++i) EXPECT_EQ(s.load(kMsId, {.version = 1})->origin, "embedded com.microsoft.RotaryEmbedding");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST_F(Hub, StoreFetchesWhatNoLocalSourceHas) {
  // A commit pin that neither the cache nor the embedded packages hold is fetched, then served from the cache.
  TempDir cache;
  const store::Store s(store::StoreOptions{.roots = {cache.path()}, .official_roots = false, .include_embedded = true,
                                           .hub = options(cache.path())});
  const std::string commit = git(kOnnxId, "rev-parse v1-next");
  expect_git_bytes(*s.load(kOnnxId, {.revision = commit}), kOnnxId, commit);
  http(hub + "/_reset", "{}");
  expect_git_bytes(*s.load(kOnnxId, {.revision = commit}), kOnnxId, commit);
  EXPECT_EQ(log().size(), 0u);
}

TEST_F(Hub, MovingV1Branch) {
  TempDir cache;
  const std::string old_commit = git(kOnnxId, "rev-parse v1");
  const auto first = store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  EXPECT_EQ(first.commit, old_commit);
  control({{"move", {{"repo", std::string("kernels/") + kOnnxId}, {"branch", "v1"}, {"to", "v1-next"}}}});
  const std::string new_commit = git(kOnnxId, "rev-parse v1");
  ASSERT_NE(new_commit, old_commit);
  ASSERT_EQ(new_commit, git(kOnnxId, "rev-parse v1-next"));
  // The store serves the cached v1 until asked to refresh (WGK_HUB_REFRESH=1): then one refs request moves it.
  store::StoreOptions so{.roots = {cache.path()}, .official_roots = false, .include_embedded = false,
                         .hub = options(cache.path())};
  EXPECT_EQ(store::Store(so).load(kOnnxId, {.version = 1})->commit, old_commit);
  so.hub->refresh_versions = true;
  const auto before = log().size();
  expect_git_bytes(*store::Store(so).load(kOnnxId, {.version = 1}), kOnnxId, new_commit);
  const auto second = store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path()));
  control({{"move", {{"repo", std::string("kernels/") + kOnnxId}, {"branch", "v1"}, {"to", old_commit}}}});
  EXPECT_EQ(second.commit, new_commit);
  EXPECT_EQ(read_bytes(second.repo / "refs/v1"), new_commit);
  const store::Store s({cache.path()}, false);
  expect_git_bytes(*s.load(kOnnxId, {.version = 1}), kOnnxId, new_commit);
  expect_git_bytes(*s.load(kOnnxId, {.revision = old_commit}), kOnnxId, old_commit);
  // Unchanged files share one blob; the fixed card has a new one.
  EXPECT_EQ(fs::read_symlink(first.snapshot / "build/webgpu/manifest.json"),
            fs::read_symlink(second.snapshot / "build/webgpu/manifest.json"));
  EXPECT_NE(fs::read_symlink(first.snapshot / "README.md"), fs::read_symlink(second.snapshot / "README.md"));
  EXPECT_TRUE(second.already_cached);  // the refreshing load fetched it
  // Only README.md and metadata.json were fetched again (by the refreshing load).
  std::set<std::string> fetched;
  const auto entries = log();
  for (std::size_t k = before; k < entries.size(); ++k) {
    const std::string path = entries[k]["path"];
    if (const auto at = path.find("/resolve/"); at != std::string::npos) fetched.insert(path.substr(at + 9 + 41));
  }
  EXPECT_EQ(fetched, (std::set<std::string>{"README.md", "build/webgpu/metadata.json"}));
}

TEST_F(Hub, EightProcessesFetchingAtOnceMakeOneCompleteSnapshot) {
  TempDir cache;
  const std::string commit = git(kOnnxId, "rev-parse v1");
  const auto paths = package_paths(kOnnxId, commit);
  std::map<std::string, std::string> expected;
  for (const auto& p : paths) expected[p] = git_bytes(kOnnxId, commit + ":" + p);
  control({{"slow_ms", 30}});
  const fs::path snapshots = cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding/snapshots";
  std::atomic<bool> done{false};
  std::atomic<int> looks{0}, partial{0};
  std::string bad;
  std::thread watcher([&] {
    while (!done) {
      std::error_code ec;
      for (auto it = fs::directory_iterator(snapshots, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(".")) continue;  // hidden staging folders are not snapshots
        ++looks;
        for (const auto& [p, bytes] : expected) {
          std::string got;
          try {
            got = read_bytes(it->path() / p);
          } catch (...) {
          }
          if (got != bytes) {
            ++partial;
            bad = p;
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::string line;
  for (int i = 0; i < 8; ++i) line += wgk_env(cache.path()) + "download " + kOnnxId + " --version 1 > " +
                                      q((cache.path() / ("out" + std::to_string(i))).string()) + " 2>&1 & pids=\"$pids $!\"; ";
  const auto t0 = std::chrono::steady_clock::now();
  const Shell all = sh("pids=; " + line + "fail=0; for p in $pids; do wait $p || fail=1; done; exit $fail");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  done = true;
  watcher.join();
  EXPECT_EQ(all.rc, 0) << all.out;
  for (int i = 0; i < 8; ++i) {
    const std::string out = read_bytes(cache.path() / ("out" + std::to_string(i)));
    EXPECT_NE(out.find("commit " + commit), std::string::npos) << out << "\n" << all.out;
  }
  EXPECT_GT(looks.load(), 0);
  EXPECT_EQ(count_requests("/resolve/"), static_cast<int>(paths.size()));  // each file fetched once: the .locks flock
  EXPECT_EQ(partial.load(), 0) << "a visible snapshot lacked or had partial " << bad;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(snapshots)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{commit});
  EXPECT_EQ(leftovers(cache.path()), std::vector<std::string>{});
  const Shell verify = sh(q(WGK_BINARY) + " cache verify --cache " + q(cache.path().string()));
  EXPECT_EQ(verify.rc, 0) << verify.out;
  std::cout << "8 concurrent downloads: " << s << " s\n";
}

TEST_F(Hub, MissingOrWrongRepoCommitAndEtagRefused) {
  for (const auto& [fault, words] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"drop_commit", {"X-Repo-Commit is missing"}}, {"wrong_etag", {"ETag", "differs from the tree's blob id"}}}) {
    TempDir cache;
    http(hub + "/_reset", "{}");
    control({{fault, true}});
    const std::string m = error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())); },
                                   ErrorKind::kIntegrity);
    for (const auto& w : words) EXPECT_NE(m.find(w), std::string::npos) << m;
  }
}

TEST_F(Hub, HostileTreePathRefusedBeforeAnythingIsWritten) {
  for (const std::string& evil : {std::string("build/webgpu/../../../../etc/passwd"), std::string("/etc/passwd"),
                                  std::string("build/webgpu/./x")}) {
    TempDir cache;
    http(hub + "/_reset", "{}");
    control({{"tree_path", evil}});
    expect_has(error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())); }, ErrorKind::kIntegrity),
               {evil, "not a safe relative path"});
    EXPECT_FALSE(fs::exists(cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding"));
    EXPECT_EQ(count_requests("/resolve/"), 0);
  }
}

TEST_F(Hub, StalledTransferTimesOut) {
  // HF_HUB_DOWNLOAD_TIMEOUT: a server that sends nothing for longer than the read timeout is given up on
  // (then retried); here 1 s with one retry against a server that stalls 3 s before every file.
  TempDir cache;
  auto o = options(cache.path());
  o.download_timeout_s = 1;
  o.max_retries = 1;
  control({{"slow_ms", 3000}});
  const auto t0 = std::chrono::steady_clock::now();
  expect_has(error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, o); }, ErrorKind::kNotFound),
             {"after 2 attempts", "network"});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(s, 2.0);  // two attempts of at least the 1 s timeout each
  EXPECT_LT(s, 5.9);  // and not the 3 s stalls twice
  EXPECT_FALSE(fs::exists(cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding/snapshots" /
                          git(kOnnxId, "rev-parse v1")));
  // A slow server is not an unreachable one: the next download is attempted, and succeeds (with the default
  // timeout: 1 s to the first byte does not hold on a loaded 2-core CI machine).
  control({{"slow_ms", 0}});
  EXPECT_EQ(store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())).commit, git(kOnnxId, "rev-parse v1"));
}

TEST_F(Hub, EntryNotFoundLeavesANoExistMarker) {
  // huggingface_hub _get_metadata_or_catch_error: a 404 EntryNotFound that carries X-Repo-Commit creates the
  // empty file .no_exist/<commit>/<path>; the store then names it instead of looking further in that repo.
  TempDir cache;
  const std::string commit = git(kOnnxId, "rev-parse v1");
  control({{"missing_entry", "build/webgpu/metadata.json"}});
  expect_has(error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, options(cache.path())); }, ErrorKind::kNotFound),
             {"404", "EntryNotFound", "build/webgpu/metadata.json"});
  const fs::path marker = cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding/.no_exist" / commit /
                          "build/webgpu/metadata.json";
  ASSERT_TRUE(fs::is_regular_file(marker));
  EXPECT_EQ(fs::file_size(marker), 0u);
  expect_has(error_of([&] { store::Store({cache.path()}, false).load(kOnnxId, {.revision = commit}); }, ErrorKind::kNotFound),
             {".no_exist", "does not exist at " + commit});
}

TEST_F(Hub, MissingVersionListsTheVersions) {
  TempDir cache;
  expect_has(error_of([&] { store::hub_download(kOnnxId, 3, std::nullopt, options(cache.path())); }, ErrorKind::kNotFound),
             {"no branch v3", "available versions: 1"});
  expect_has(error_of([&] { store::hub_download("webgpu-kernels/ai.onnx.Nope", 1, std::nullopt, options(cache.path())); },
                      ErrorKind::kNotFound),
             {"RepoNotFound", "/api/kernels/", "/api/models/"});
  expect_has(error_of([&] { store::hub_download(kOnnxId, std::nullopt, std::string(40, 'd'), options(cache.path())); },
                      ErrorKind::kNotFound),
             {"RevisionNotFound"});
}

TEST_F(Hub, UntrustedPublisherIsNotFetchedWithoutOptIn) {
  TempDir cache;
  auto o = options(cache.path());
  o.trusted_publishers = {"someone-else"};
  expect_has(error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, o); }, ErrorKind::kNotFound),
             {"publisher webgpu-kernels is not trusted", "WGK_HUB_TRUSTED_PUBLISHERS"});
  EXPECT_EQ(count_requests("/api/"), 0);
  o.trust_any_publisher = true;
  EXPECT_EQ(store::hub_download(kOnnxId, 1, std::nullopt, o).commit, git(kOnnxId, "rev-parse v1"));
}

// ---- the CLI -------------------------------------------------------------------------------------------

TEST_F(Hub, CliDownloadListVerify) {
  TempDir cache;
  const std::string commit = git(kOnnxId, "rev-parse v1");
  const std::string content = git(kOnnxId, "rev-parse v1:build/webgpu/metadata.json");
  const Shell d = sh(wgk_env(cache.path()) + "download " + kOnnxId + " --version 1");
  ASSERT_EQ(d.rc, 0) << d.out;
  expect_has(d.out, {"commit " + commit, "content " + content});
  const Shell list = sh(wgk_env(cache.path()) + "cache list");  // the roots from HF_HUB_CACHE
  EXPECT_EQ(list.rc, 0) << list.out;
  expect_has(list.out, {"ref v1 -> " + commit, "snapshot " + commit + ": version 1 content " + content});
  EXPECT_EQ(sh(wgk_env(cache.path()) + "cache verify").rc, 0);
  // A flipped byte in a blob: verify names it and exits 1.
  const fs::path blob = cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding/blobs" /
                        git(kOnnxId, "rev-parse v1:build/webgpu/test.json");
  std::string bytes = read_bytes(blob);
  bytes[10] ^= 1;
  write_bytes(blob, bytes);
  const Shell bad = sh(wgk_env(cache.path()) + "cache verify");
  EXPECT_EQ(bad.rc, 1) << bad.out;
  expect_has(bad.out, {"FAULT", git(kOnnxId, "rev-parse v1:build/webgpu/test.json")});
  write_bytes(blob, read_bytes(blob).replace(10, 1, 1, static_cast<char>(bytes[10] ^ 1)));
  // A tester's findings: a FIFO under refs/ hung `cache list` and `verify`; a model's repo in the same
  // cache made verify fail (and read its blobs whole). The FIFO is a fault, the model is skipped.
  const fs::path repo = cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding";
  ASSERT_EQ(mkfifo((repo / "refs/v2").c_str(), 0600), 0);
  const fs::path model = cache.path() / "models--someone--gpt";
  write_bytes(model / "blobs" / std::string(40, 'e'), "{}");
  write_bytes(model / "refs/main", std::string(40, 'c'));
  fs::create_directories(model / "snapshots" / std::string(40, 'c'));
  fs::create_symlink("../../blobs/" + std::string(40, 'e'), model / "snapshots" / std::string(40, 'c') / "config.json");
  const Shell fifo_list = sh("timeout 20 " + wgk_env(cache.path()) + "cache list");
  EXPECT_EQ(fifo_list.rc, 0) << fifo_list.out;
  expect_has(fifo_list.out, {"ref v2 -> (not a regular file)", "someone/gpt", "not a WebGPU package"});
  const Shell fifo_verify = sh("timeout 20 " + wgk_env(cache.path()) + "cache verify");
  EXPECT_EQ(fifo_verify.rc, 1) << fifo_verify.out;
  expect_has(fifo_verify.out, {"FAULT refs/v2", "skipped"});
  EXPECT_EQ(fifo_verify.out.find("someone/gpt (models, models--someone--gpt)\n    FAULT"), std::string::npos) << fifo_verify.out;
  // --version with --revision is refused, not ignored.
  const Shell both = sh(wgk_env(cache.path()) + "download " + kOnnxId + " --version 2 --revision " + commit);
  EXPECT_NE(both.rc, 0);
  expect_has(both.out, {"--revision", "excludes"});
}

TEST_F(Hub, CliVerifyFaultsEveryCacheALoadRefuses) {
  // A breaker's findings: each of these makes a load of that snapshot or ref fail, yet `cache verify` skipped the repo as
  // "not a WebGPU package" (or saw no ref) and exited 0. Each is now a FAULT and exit 1; the intact cache is clean.
  const std::string commit = git(kOnnxId, "rev-parse v1");
  const auto downloaded = [&](const TempDir& cache) {
    const Shell d = sh(wgk_env(cache.path()) + "download " + kOnnxId + " --version 1");
    EXPECT_EQ(d.rc, 0) << d.out;
    return cache.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding";
  };
  const std::vector<std::pair<std::string, std::function<void(const fs::path&)>>> breaks = {
      {"metadata.json's blob missing",
       [&](const fs::path& repo) { fs::remove(fs::canonical(repo / "snapshots" / commit / "build/webgpu/metadata.json")); }},
      {"the snapshot a file",
       [&](const fs::path& repo) {
         fs::remove_all(repo / "snapshots" / commit);
         write_bytes(repo / "snapshots" / commit, "x");
       }},
      {"build/webgpu a symlinked folder",
       [&](const fs::path& repo) {
         fs::rename(repo / "snapshots" / commit / "build/webgpu", repo / "wg");
         fs::create_directory_symlink("../../../wg", repo / "snapshots" / commit / "build/webgpu");
       }},
      {"refs/v1 an empty folder",
       [&](const fs::path& repo) {
         fs::remove(repo / "refs/v1");
         fs::create_directory(repo / "refs/v1");
       }},
  };
  for (const auto& [what, breaks_it] : breaks) {
    TempDir cache;
    const fs::path repo = downloaded(cache);
    ASSERT_EQ(sh(wgk_env(cache.path()) + "cache verify").rc, 0) << what;
    breaks_it(repo);
    const Shell verify = sh("timeout 60 " + wgk_env(cache.path()) + "cache verify");
    EXPECT_EQ(verify.rc, 1) << what << ": " << verify.out;
    expect_has(verify.out, {"FAULT"});
  }
}

TEST_F(Hub, CliRunRefusesAPackageFolderThatIsNotTheRevision) {
  TempDir cache;
  const fs::path examples = kSource / "examples/ai.onnx.RotaryEmbedding";
  std::string inputs;
  for (const auto& e : fs::directory_iterator(examples))
    if (e.path().extension() == ".npy") inputs += " --input " + e.path().stem().string() + "=" + q(e.path().string());
  const std::string folder = (kSource / "kernels/ai.onnx.RotaryEmbedding").string();
  const std::string next = git(kOnnxId, "rev-parse v1-next");
  const Shell other = sh(wgk_env(cache.path()) + "run " + kOnnxId + " --package " + q(folder) + " --revision " + next + inputs);
  EXPECT_EQ(other.rc, 1) << other.out;
  expect_has(other.out, {"differs from", next, "README.md", "build/webgpu/metadata.json"});
  const Shell version = sh(wgk_env(cache.path()) + "run " + kOnnxId + " --version 2 --revision " + next + inputs);
  EXPECT_EQ(version.rc, 1) << version.out;
  expect_has(version.out, {"--version 2", "version 1"});
  const Shell folder_version = sh(wgk_env(cache.path()) + "run " + kOnnxId + " --package " + q(folder) + " --version 2" + inputs);
  EXPECT_EQ(folder_version.rc, 1) << folder_version.out;
  expect_has(folder_version.out, {"--version 2", "--package", "version 1"});
  const Shell same = sh(wgk_env(cache.path()) + "run " + kOnnxId + " --package " + q(folder) + " --revision " +
                      git(kOnnxId, "rev-parse v1") + inputs + " --repeat 0");
  EXPECT_EQ(same.rc, 0) << same.out;
  expect_has(same.out, {"content " + git(kOnnxId, "rev-parse v1:build/webgpu/metadata.json")});
}

}  // namespace
}  // namespace wgk::testing
