// Reading Hub caches made by hand in the official layout (hub-docs local-cache.md, huggingface_hub
// file_download.py; docs/hub.md): blobs named by `git hash-object` (git's own ids, run as a
// process), relative links "../../blobs/<id>" with one "../" per folder level, refs/v1 = the commit
// with no newline. Intact caches load (links or copies, kernels-- or models--, other repo files
// ignored, a snapshot without the card); hostile or corrupt ones are refused with the file named;
// absent ones fall through to the next root and the embedded packages.
#include <gtest/gtest.h>

#include "../error_helpers.h"

#include <unistd.h>

#include "package_folder.h"
#include "store/hub_cache.h"
#include "store/store.h"
#include "wgk/error.h"

namespace wgk::testing {
namespace {

const fs::path kKernels = fs::path(WGK_SOURCE_DIR) / "kernels";
constexpr const char* kOnnxId = "webgpu-kernels/ai.onnx.RotaryEmbedding";
// A hand-made cache: any 40-hex name works as the commit folder.
const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

/// Sets an environment variable for a scope ("" counts as unset for the store's readers).
struct Env {
  std::string name;
  std::optional<std::string> old;
  Env(std::string n, const std::string& v) : name(std::move(n)) {
    if (const char* o = std::getenv(name.c_str())) old = o;
    setenv(name.c_str(), v.c_str(), 1);
  }
  ~Env() { old ? (void)setenv(name.c_str(), old->c_str(), 1) : (void)unsetenv(name.c_str()); }
};

/// <root>/<type>--webgpu-kernels--ai.onnx.RotaryEmbedding with the package of kernels/ plus a
/// .gitattributes and a file of another build variant, as the Hub clients write it.
struct OfficialCache {
  TempDir root;
  fs::path repo, snapshot;
  std::map<std::string, std::string> blob_of;  // path -> git blob id (git hash-object)

  explicit OfficialCache(std::string type = "kernels", bool copies = false) {
    repo = root.path() / (type + "--webgpu-kernels--ai.onnx.RotaryEmbedding");
    snapshot = repo / "snapshots" / kCommit;
    TempDir staging;
    copy_package(kKernels / "ai.onnx.RotaryEmbedding", staging.path());
    write_bytes(staging.path() / ".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n");
    write_bytes(staging.path() / "build/torch-cpu/NOTE.txt", "another variant\n");
    for (const auto& e : fs::recursive_directory_iterator(staging.path())) {
      if (!e.is_regular_file()) continue;
      const std::string rel = e.path().lexically_relative(staging.path()).generic_string();
      const std::string id = git_hash_object(e.path());
      blob_of[rel] = id;
      write_bytes(repo / "blobs" / id, read_bytes(e.path()));
      place(rel, copies);
    }
    write_bytes(repo / "refs/v1", kCommit);
  }
  /// snapshots/<commit>/<rel>: a relative link into blobs/ (or a copy).
  void place(const std::string& rel, bool copy) {
    const fs::path pointer = snapshot / rel;
    fs::create_directories(pointer.parent_path());
    fs::remove(pointer);
    if (copy) {
      fs::copy_file(repo / "blobs" / blob_of.at(rel), pointer);
      return;
    }
    std::string up = "../../";
    for (char c : rel)
      if (c == '/') up += "../";
    fs::create_symlink(up + "blobs/" + blob_of.at(rel), pointer);
  }
  store::Store store(bool embedded = false) const { return store::Store({root.path()}, embedded); }
  std::shared_ptr<const store::Package> load_v1() const { return store().load(kOnnxId, {.version = 1}); }
  void relink(const std::string& rel, const fs::path& target) const {
    fs::remove(snapshot / rel);
    fs::create_symlink(target, snapshot / rel);
  }
};

void expect_package_bytes(const store::Package& p) {
  EXPECT_EQ(p.id, kOnnxId);
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(p.content_id, git_hash_object(kKernels / "ai.onnx.RotaryEmbedding/build/webgpu/metadata.json"));
  for (const auto& e : fs::recursive_directory_iterator(kKernels / "ai.onnx.RotaryEmbedding")) {
    if (!e.is_regular_file()) continue;
    const std::string rel = e.path().lexically_relative(kKernels / "ai.onnx.RotaryEmbedding").generic_string();
    ASSERT_TRUE(p.files.count(rel)) << rel;
    EXPECT_EQ(p.files.at(rel), read_bytes(e.path())) << rel;
  }
  EXPECT_FALSE(p.files.count(".gitattributes"));
  EXPECT_FALSE(p.files.count("build/torch-cpu/NOTE.txt"));
}

// ---- intact caches ------------------------------------------------------------------------------

TEST(HubCache, SymlinkedKernelsSnapshotLoadsByVersionCommitAndContent) {
  OfficialCache cache;
  auto by_version = cache.load_v1();
  expect_package_bytes(*by_version);
  EXPECT_EQ(by_version->commit, kCommit);
  EXPECT_EQ(by_version->origin, fs::canonical(cache.snapshot).string());
  auto by_commit = cache.store().load(kOnnxId, {.revision = kCommit});
  EXPECT_EQ(by_commit->commit, kCommit);
  auto by_content = cache.store().load(kOnnxId, {.content = by_version->content_id});
  EXPECT_EQ(by_content->commit, kCommit);
}

TEST(HubCache, CopiedModelsSnapshotLoads) {
  OfficialCache cache("models", true);
  auto p = cache.load_v1();
  expect_package_bytes(*p);
  EXPECT_EQ(p->commit, kCommit);
}

TEST(HubCache, KernelsFolderWinsOverModelsFolder) {
  // Both layouts in one root: kernels-- is read first (the Kernel Hub's type, huggingface_hub >= 1.10).
  OfficialCache cache("kernels");
  OfficialCache legacy("models");
  fs::rename(legacy.repo, cache.root.path() / legacy.repo.filename());
  EXPECT_EQ(cache.load_v1()->origin, fs::canonical(cache.snapshot).string());
}

TEST(HubCache, SnapshotWithoutTheCardLoads) {
  // kernels-style partial download (allow_patterns build/<variant>/*): no README.md.
  OfficialCache cache;
  fs::remove(cache.snapshot / "README.md");
  auto p = cache.load_v1();
  EXPECT_FALSE(p->files.count("README.md"));
  EXPECT_TRUE(p->files.count("build/webgpu/manifest.json"));
}

TEST(HubCache, RefWithNewlineIsReadLeftoverIncompleteIgnored) {
  OfficialCache cache;
  write_bytes(cache.repo / "refs/v1", kCommit + "\n");  // tolerated on read, as kernels' _versions.py strips
  write_bytes(cache.repo / "blobs" / (std::string(40, 'a') + ".1234abcd.incomplete"), "partial");
  EXPECT_EQ(cache.load_v1()->commit, kCommit);
}

TEST(HubCache, OfficialRootsInOrderFromTheEnvironment) {
  // WGK_KERNEL_PATH, then KERNELS_CACHE, then HF_HUB_CACHE (> HUGGINGFACE_HUB_CACHE > HF_HOME/hub >
  // XDG_CACHE_HOME/huggingface/hub > ~/.cache/huggingface/hub), constants.py and kernels hf_hub.py.
  {
    Env a("WGK_KERNEL_PATH", "/a:/b"), k("KERNELS_CACHE", "/k"), h("HF_HUB_CACHE", "/h"), home("HF_HOME", "/home");
    std::vector<fs::path> roots = store::hub::kernel_path_roots();
    for (auto& r : store::hub::official_roots()) roots.push_back(r);
    EXPECT_EQ(roots, (std::vector<fs::path>{"/a", "/b", "/k", "/h"}));
    EXPECT_EQ(store::hub::download_root(), fs::path("/k"));
  }
  {
    Env k("KERNELS_CACHE", ""), h("HF_HUB_CACHE", ""), l("HUGGINGFACE_HUB_CACHE", ""), home("HF_HOME", "/hfhome");
    EXPECT_EQ(store::hub::official_roots(), (std::vector<fs::path>{"/hfhome/hub"}));
  }
  {
    Env k("KERNELS_CACHE", ""), h("HF_HUB_CACHE", ""), l("HUGGINGFACE_HUB_CACHE", ""), home("HF_HOME", ""),
        x("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(store::hub::official_roots(), (std::vector<fs::path>{"/xdg/huggingface/hub"}));
  }
  {
    Env k("KERNELS_CACHE", ""), h("HF_HUB_CACHE", ""), l("HUGGINGFACE_HUB_CACHE", ""), home("HF_HOME", ""),
        x("XDG_CACHE_HOME", ""), u("HOME", "/u");
    EXPECT_EQ(store::hub::official_roots(), (std::vector<fs::path>{"/u/.cache/huggingface/hub"}));
  }
}

/// Python's own os.path.expandvars(os.path.expanduser(v)) of each value (posixpath, the functions
/// huggingface_hub's constants.py applies), run as a process in this process's environment.
std::vector<std::string> python_expand(const std::vector<std::string>& values) {
  std::string cmd = "python3 -c 'import os, sys\nfor a in sys.argv[1:]: print(os.path.expandvars(os.path.expanduser(a)))'";
  for (const auto& v : values) {
    std::string q = "'";
    for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    cmd += " " + q + "'";
  }
  std::vector<std::string> lines;
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return lines;
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  EXPECT_EQ(::pclose(f), 0) << cmd;
  for (std::size_t i = 0, nl; (nl = out.find('\n', i)) != std::string::npos; i = nl + 1) lines.push_back(out.substr(i, nl - i));
  return lines;
}

TEST(HubCache, PathsExpandAsPythonsPosixpath) {
  // HF_HOME, HF_HUB_CACHE and HF_TOKEN_PATH go through expandvars(expanduser(...)) in huggingface_hub
  // (constants.py); before, "~/hf" made a folder named "~" in the working directory.
  const std::vector<std::string> values{
      "~", "~/a", "~//a/", "~root/a", "~wgk_no_such_user_x/a", "a/~/b", "$WGK_T_X/a", "${WGK_T_X}a", "$WGK_T_Xa",
      "$WGK_T_UNSET/a", "${WGK_T_UNSET}", "${}", "$", "a$", "$/", "${WGK_T_X", "$WGK_T_DOLLAR", "$WGK_T_EMPTY/a",
      "~/$WGK_T_X", "$HOME/c", "${WGK T}", "$$WGK_T_X", "x${WGK_T_X}${WGK_T_X}y", "~$WGK_T_X"};
  auto check = [&](const char* label) {
    const std::vector<std::string> want = python_expand(values);
    ASSERT_EQ(want.size(), values.size()) << label;
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(store::hub::expand_user_and_vars(values[i]), want[i]) << label << ": " << values[i];
  };
  Env x("WGK_T_X", "/x"), d("WGK_T_DOLLAR", "$WGK_T_X"), e("WGK_T_EMPTY", ""), h("HOME", "/u/home/");
  unsetenv("WGK_T_UNSET");
  check("HOME=/u/home/");
  // Hand-derived, as posixpath documents it: "~" is $HOME without its trailing '/', a value is not expanded again.
  EXPECT_EQ(store::hub::expand_user_and_vars("~/a"), "/u/home/a");
  EXPECT_EQ(store::hub::expand_user_and_vars("$WGK_T_DOLLAR/b"), "$WGK_T_X/b");
  {
    Env h2("HOME", "");  // an empty HOME is "", so "~/a" is "/a"
    check("HOME empty");
  }
  unsetenv("HOME");  // then the passwd entry's home (h restores HOME)
  check("HOME unset");
}

TEST(HubCache, OfficialRootsExpandHomeAndVariables) {
  Env u("HOME", "/u"), v("WGK_T_C", "/vc"), k("KERNELS_CACHE", ""), l("HUGGINGFACE_HUB_CACHE", ""), x("XDG_CACHE_HOME", "");
  {
    Env h("HF_HUB_CACHE", ""), home("HF_HOME", "~/hf");
    EXPECT_EQ(store::hub::official_roots(), (std::vector<fs::path>{"/u/hf/hub"}));
    EXPECT_EQ(store::hub::hf_home(), fs::path("/u/hf"));
  }
  {
    Env h("HF_HUB_CACHE", "$WGK_T_C/hub"), home("HF_HOME", "");
    EXPECT_EQ(store::hub::official_roots(), (std::vector<fs::path>{"/vc/hub"}));
  }
  {
    Env h("HF_HUB_CACHE", ""), home("HF_HOME", ""), x2("XDG_CACHE_HOME", "~/xdg");
    EXPECT_EQ(store::hub::official_roots(), (std::vector<fs::path>{"/u/xdg/huggingface/hub"}));
  }
  {
    // kernels passes KERNELS_CACHE on as written (hf_hub.py _get_cache_dir).
    Env k2("KERNELS_CACHE", "~/k"), h("HF_HUB_CACHE", "${WGK_T_C}");
    EXPECT_EQ(store::hub::official_roots(), (std::vector<fs::path>{"~/k", "/vc"}));
  }
}

// ---- not found: the next source answers ------------------------------------------------------------

TEST(HubCache, NotFoundNamesTheCacheRootsThatHoldNoFolderOfTheRepo) {
  // Before, a root without the repo's folder (a mistyped HF_HUB_CACHE) went unmentioned.
  TempDir empty;
  const fs::path absent = empty.path() / "absent";
  const store::Store s({absent, empty.path()}, true);
  const std::string m = error_of([&] { s.load(kOnnxId, {.version = 7}); }, ErrorKind::kNotFound);
  expect_has(m, {"no kernels--webgpu-kernels--ai.onnx.RotaryEmbedding (nor models--webgpu-kernels--ai.onnx.RotaryEmbedding) "
                 "folder in the Hub cache " + absent.string() + " (absent), " + empty.path().string() + ";",
                 "embedded version 1 content"});
  EXPECT_FALSE(m.ends_with(";")) << m;
  // An id nothing holds lists the embedded ones.
  expect_has(error_of([&] { s.load("webgpu-kernels/ai.onnx.Nothing", {.version = 1}); }, ErrorKind::kNotFound),
             {"folder in the Hub cache", "known packages: webgpu-kernels/ai.onnx.RMSNormalization"});
}

TEST(HubCache, ANegativeVersionIsRefusedAsNoBranch) {
  expect_has(error_of([&] { store::Store().load(kOnnxId, {.version = -1}); }, ErrorKind::kInvalidArgument),
             {"version -1 names no Hub branch", "N >= 0"});
}

TEST(HubCache, MissingRefOrSnapshotFallsThroughToTheEmbeddedPackage) {
  OfficialCache cache;
  fs::remove(cache.repo / "refs/v1");
  auto p = cache.store(true).load(kOnnxId, {.version = 1});
  EXPECT_EQ(p->origin, "embedded ai.onnx.RotaryEmbedding");
  write_bytes(cache.repo / "refs/v1", std::string(40, 'e'));  // a ref to a snapshot that is not there
  EXPECT_EQ(cache.store(true).load(kOnnxId, {.version = 1})->origin, "embedded ai.onnx.RotaryEmbedding");
  expect_has(error_of([&] { cache.store(false).load(kOnnxId, {.version = 1}); }, ErrorKind::kNotFound),
             {"no snapshot " + std::string(40, 'e')});
}

TEST(HubCache, FirstRootWithoutThePackageFallsThroughToTheSecond) {
  TempDir empty;
  fs::create_directories(empty.path() / "kernels--webgpu-kernels--ai.onnx.RotaryEmbedding/refs");
  OfficialCache cache;
  EXPECT_EQ(store::Store({empty.path(), cache.root.path()}, false).load(kOnnxId, {.version = 1})->commit, kCommit);
}

TEST(HubCache, SnapshotWithoutAWebgpuBuildIsNotAPackage) {
  OfficialCache cache;
  fs::remove_all(cache.snapshot / "build/webgpu");
  fs::remove(cache.snapshot / "README.md");
  expect_has(error_of([&] { cache.store(false).load(kOnnxId, {.version = 1}); }, ErrorKind::kNotFound),
             {"not a WebGPU package"});
  EXPECT_EQ(cache.store(true).load(kOnnxId, {.version = 1})->origin, "embedded ai.onnx.RotaryEmbedding");
}

TEST(HubCache, NoExistMarkerSaysSo) {
  OfficialCache cache;
  write_bytes(cache.repo / ".no_exist" / kCommit / "build/webgpu/metadata.json", "");
  expect_has(error_of([&] { cache.store(false).load(kOnnxId, {.revision = kCommit}); }, ErrorKind::kNotFound),
             {".no_exist", "does not exist at " + kCommit});
}

// ---- hostile or corrupt caches: refused, the file named, no fallback --------------------------------

TEST(HubCacheHostile, LinkToEtcPasswd) {
  OfficialCache cache;
  cache.relink("build/webgpu/test.json", "/etc/passwd");
  const std::string m = error_of([&] { cache.store(true).load(kOnnxId, {.version = 1}); }, ErrorKind::kIntegrity);
  expect_has(m, {"build/webgpu/test.json", "/etc/passwd", "not to a blob of this repo"});
}

TEST(HubCacheHostile, LinkIntoAnotherReposBlobs) {
  // The other repo's blob holds exactly the right bytes; the link is still refused.
  OfficialCache cache;
  const std::string id = cache.blob_of.at("build/webgpu/test.json");
  const fs::path other = cache.root.path() / "models--evil--x/blobs";
  write_bytes(other / id, read_bytes(cache.repo / "blobs" / id));
  cache.relink("build/webgpu/test.json", "../../../../models--evil--x/blobs/" + id);
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu/test.json", "models--evil--x"});
}

TEST(HubCacheHostile, DotDotOutOfBlobs) {
  OfficialCache cache;
  cache.relink("build/webgpu/test.json", "../../../../blobs/../../x");
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu/test.json", "../../x"});
}

TEST(HubCacheHostile, LinkToANonHexName) {
  OfficialCache cache;
  write_bytes(cache.repo / "blobs/notahash", read_bytes(cache.repo / "blobs" / cache.blob_of.at("build/webgpu/test.json")));
  cache.relink("build/webgpu/test.json", "../../../../blobs/notahash");
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu/test.json", "notahash"});
}

TEST(HubCacheHostile, BlobBytesDifferFromTheirName) {
  OfficialCache cache;
  const std::string id = cache.blob_of.at("build/webgpu/manifest.json");
  std::string bytes = read_bytes(cache.repo / "blobs" / id);
  bytes[bytes.size() / 2] ^= 0x01;
  write_bytes(cache.repo / "blobs" / id, bytes);
  const std::string actual = git_hash_object(cache.repo / "blobs" / id);
  expect_has(error_of([&] { cache.store(true).load(kOnnxId, {.version = 1}); }, ErrorKind::kIntegrity),
             {"build/webgpu/manifest.json", actual, id, "git blob sha1"});
}

TEST(HubCacheHostile, CopyDifferingFromTreesListing) {
  // Copy mode: trees/<commit>.json (huggingface_hub _tree_cache.py) names each file's blob id.
  OfficialCache cache("models", true);
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [rel, id] : cache.blob_of) files[rel] = {{"size", 1}, {"blob_id", id}};
  write_bytes(cache.repo / "trees" / (kCommit + ".json"), nlohmann::json{{"format_version", 1}, {"files", files}}.dump(1));
  EXPECT_EQ(cache.load_v1()->commit, kCommit);
  const fs::path f = cache.snapshot / "build/webgpu/bench.json";
  write_bytes(f, read_bytes(f) + " ");
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity),
             {"build/webgpu/bench.json", cache.blob_of.at("build/webgpu/bench.json"), "trees/"});
}

TEST(HubCacheHostile, TreesListingNamesAMissingFile) {
  OfficialCache cache;
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [rel, id] : cache.blob_of) files[rel] = {{"size", 1}, {"blob_id", id}};
  write_bytes(cache.repo / "trees" / (kCommit + ".json"), nlohmann::json{{"format_version", 1}, {"files", files}}.dump(1));
  fs::remove(cache.snapshot / "build/webgpu/bench.json");
  // An interrupted download, not tampering: not loadable from here, and the search goes on.
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kNotFound), {"incomplete", "build/webgpu/bench.json", "wgk download"});
  EXPECT_EQ(cache.store(/*embedded=*/true).load(kOnnxId, {.version = 1})->origin.rfind("embedded", 0), 0u);
}


TEST(HubCacheHostile, SymlinkedDirectory) {
  OfficialCache cache;
  TempDir elsewhere;
  copy_package(cache.snapshot / "build/webgpu", elsewhere.path());
  fs::remove_all(cache.snapshot / "build/webgpu");
  fs::create_directory_symlink(elsewhere.path(), cache.snapshot / "build/webgpu");
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu", "not to a blob"});
}

TEST(HubCacheHostile, MalformedRefs) {
  OfficialCache cache;
  for (const std::string& bad : {std::string("../x"), std::string(39, 'a'), std::string(40, 'A'), std::string("../../../etc/passwd")}) {
    write_bytes(cache.repo / "refs/v1", bad);
    expect_has(error_of([&] { cache.store(true).load(kOnnxId, {.version = 1}); }, ErrorKind::kIntegrity),
               {"refs/v1", "not a commit"});
  }
}

TEST(HubCacheHostile, UnlistedFileUnderBuildWebgpu) {
  OfficialCache cache;
  write_bytes(cache.snapshot / "build/webgpu/extra.wgsl.jinja", "// not in metadata.json\n");
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu/extra.wgsl.jinja", "not listed"});
}

TEST(HubCacheHostile, HostileLinkInAnIgnoredFileStillRefused) {
  OfficialCache cache;
  cache.relink(".gitattributes", "/etc/passwd");
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {".gitattributes", "/etc/passwd"});
}

TEST(HubCacheHostile, DigestMismatchAgainstMetadata) {
  // A blob consistent with its own (new) name, but not with metadata.json's sha256.
  OfficialCache cache;
  TempDir t;
  write_bytes(t.path() / "x", read_bytes(kKernels / "ai.onnx.RotaryEmbedding/build/webgpu/test.json") + "\n");
  const std::string id = git_hash_object(t.path() / "x");
  write_bytes(cache.repo / "blobs" / id, read_bytes(t.path() / "x"));
  cache.blob_of["build/webgpu/test.json"] = id;
  cache.place("build/webgpu/test.json", false);
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu/test.json", "metadata.json"});
}

TEST(HubCacheHostile, ListedFileMissing) {
  // A partial snapshot (an interrupted download, `hf download` of some files) is not loadable, and the
  // search goes on: it blocked even the embedded package before (a fresh-clone tester's finding).
  OfficialCache cache;
  fs::remove(cache.snapshot / "build/webgpu/test.json");
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kNotFound), {"build/webgpu/test.json", "incomplete", "wgk download"});
  EXPECT_EQ(cache.store(/*embedded=*/true).load(kOnnxId, {.version = 1})->origin.rfind("embedded", 0), 0u);
}

// Rewrites the snapshot's metadata.json (a new blob named by git hash-object) with `edit` applied.
void edit_metadata(OfficialCache& cache, const std::function<void(nlohmann::json&)>& edit) {
  const fs::path meta = cache.snapshot / "build/webgpu/metadata.json";
  nlohmann::json j = nlohmann::json::parse(read_bytes(meta));
  edit(j);
  TempDir t;
  write_bytes(t.path() / "m", j.dump(2));
  const std::string id = git_hash_object(t.path() / "m");
  write_bytes(cache.repo / "blobs" / id, j.dump(2));
  cache.blob_of["build/webgpu/metadata.json"] = id;
  cache.place("build/webgpu/metadata.json", false);
}

TEST(HubCacheHostile, ListedFileMissingOfAnotherPackageDoesNotServeTheEmbeddedOne) {
  // refs/v1 names a snapshot whose metadata.json differs from the embedded v1 (a newer v1, say) and lacks a file:
  // the embedded package is not that package, so it is not served in its place (a breaker's finding: a cache's
  // v1 was silently replaced by the embedded one); the error says why and how to complete the snapshot.
  OfficialCache cache;
  edit_metadata(cache, [](nlohmann::json& j) { j["note"] = "a v1 other than the embedded one"; });
  fs::remove(cache.snapshot / "build/webgpu/test.json");
  const std::string content = git_hash_object(cache.snapshot / "build/webgpu/metadata.json");
  expect_has(error_of([&] { cache.store(/*embedded=*/true).load(kOnnxId, {.version = 1}); }, ErrorKind::kNotFound),
             {"incomplete", "build/webgpu/test.json", "wgk download", "is not served", content});
}

TEST(HubCacheHostile, PathTraversalInMetadataRefused) {
  // metadata.json lists "../../etc/passwd" with its real digest, so only the path rule can refuse it.
  std::string passwd;
  try {
    passwd = read_bytes("/etc/passwd");
  } catch (...) {
  }
  for (const std::string& evil : {std::string("../../etc/passwd"), std::string("/etc/passwd"),
                                  std::string("build/webgpu/../../../etc/passwd")}) {
    OfficialCache cache;
    edit_metadata(cache, [&](nlohmann::json& j) { j["files"][evil] = {{"sha256", store::sha256_hex(passwd)}}; });
    expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kContract), {evil, "invalid path"});
  }
}

TEST(HubCacheHostile, AnotherPackagesIdRefused) {
  OfficialCache cache;
  edit_metadata(cache, [](nlohmann::json& j) { j["id"] = "webgpu-kernels/evil.Package"; });
  expect_has(error_of([&] { cache.load_v1(); }, ErrorKind::kIntegrity), {"evil.Package", kOnnxId});
}

TEST(HubCacheHostile, RefToAPackageOfAnotherVersionRefused) {
  OfficialCache cache;
  edit_metadata(cache, [](nlohmann::json& j) { j["version"] = 2; });
  expect_has(error_of([&] { cache.store(true).load(kOnnxId, {.version = 1}); }, ErrorKind::kIntegrity),
             {"refs/v1", "version 2"});
}

TEST(HubOptions, FromTheEnvironmentAsTheOfficialClients) {
  // huggingface_hub constants.py and utils/_auth.py: HF_ENDPOINT without its trailing '/', HF_TOKEN >
  // HUGGING_FACE_HUB_TOKEN > $HF_TOKEN_PATH or $HF_HOME/token, none with HF_HUB_DISABLE_IMPLICIT_TOKEN,
  // HF_HUB_OFFLINE, HF_HUB_DISABLE_SYMLINKS, HF_HUB_ETAG_TIMEOUT / HF_HUB_DOWNLOAD_TIMEOUT (default 10 s).
  TempDir home;
  write_bytes(home.path() / "token", "hf_from_file\n");
  {
    Env e("HF_ENDPOINT", "http://127.0.0.1:1234/"), t("HF_TOKEN", ""), l("HUGGING_FACE_HUB_TOKEN", ""),
        p("HF_TOKEN_PATH", ""), h("HF_HOME", home.path().string()), d("HF_HUB_DISABLE_IMPLICIT_TOKEN", ""),
        o("HF_HUB_OFFLINE", ""), tr("TRANSFORMERS_OFFLINE", ""), w("WGK_HUB", ""), s("HF_HUB_DISABLE_SYMLINKS", ""),
        et("HF_HUB_ETAG_TIMEOUT", ""), dt("HF_HUB_DOWNLOAD_TIMEOUT", ""), tp("WGK_HUB_TRUSTED_PUBLISHERS", ""),
        kc("KERNELS_CACHE", ""), hc("HF_HUB_CACHE", "");
    const auto opt = store::HubOptions::from_environment();
    EXPECT_EQ(opt.endpoint, "http://127.0.0.1:1234");
    EXPECT_EQ(opt.token, "hf_from_file");
    EXPECT_FALSE(opt.offline);
    EXPECT_TRUE(opt.symlinks);
    EXPECT_EQ(opt.etag_timeout_s, 10);
    EXPECT_EQ(opt.download_timeout_s, 10);
    EXPECT_EQ(opt.max_retries, 5);
    EXPECT_EQ(opt.trusted_publishers, std::vector<std::string>{"webgpu-kernels"});
    EXPECT_EQ(opt.cache, home.path() / "hub");
    {
      Env l2("HUGGING_FACE_HUB_TOKEN", "hf_legacy");
      EXPECT_EQ(store::HubOptions::from_environment().token, "hf_legacy");
      Env t2("HF_TOKEN", "hf_env");
      EXPECT_EQ(store::HubOptions::from_environment().token, "hf_env");
      Env d2("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1");
      EXPECT_EQ(store::HubOptions::from_environment().token, "");
    }
    {
      Env o2("HF_HUB_OFFLINE", "1"), s2("HF_HUB_DISABLE_SYMLINKS", "true"), et2("HF_HUB_ETAG_TIMEOUT", "3"),
          dt2("HF_HUB_DOWNLOAD_TIMEOUT", "7"), tp2("WGK_HUB_TRUSTED_PUBLISHERS", "kernels-community, my-org");
      const auto o3 = store::HubOptions::from_environment();
      EXPECT_TRUE(o3.offline);
      EXPECT_FALSE(o3.symlinks);
      EXPECT_EQ(o3.etag_timeout_s, 3);
      EXPECT_EQ(o3.download_timeout_s, 7);
      EXPECT_EQ(o3.trusted_publishers, (std::vector<std::string>{"webgpu-kernels", "kernels-community", "my-org"}));
    }
    {
      Env w2("WGK_HUB", "off");
      EXPECT_TRUE(store::HubOptions::from_environment().offline);
    }
    {
      // _clean_token: '\r' and '\n' removed anywhere, surrounding whitespace stripped; a variable that cleans to
      // nothing leaves the token file to answer (before: a CRLF added a header line, spaces were sent).
      Env t2("HF_TOKEN", " \thf_env\r\n");
      EXPECT_EQ(store::HubOptions::from_environment().token, "hf_env");
      Env t3("HF_TOKEN", "T\r\nX-Injected: yes");
      EXPECT_EQ(store::HubOptions::from_environment().token, "TX-Injected: yes");
      Env t4("HF_TOKEN", " \r\n ");
      EXPECT_EQ(store::HubOptions::from_environment().token, "hf_from_file");
      write_bytes(home.path() / "token2", "  hf_file2 \r\n");
      Env u2("HOME", home.path().string()), p2("HF_TOKEN_PATH", "~/token2");
      EXPECT_EQ(store::HubOptions::from_environment().token, "hf_file2");
    }
  }
}

TEST(HubOptions, AControlByteLeftInTheTokenIsRefusedBeforeAnyRequest) {
  // An HTTP header cannot carry it (RFC 9110 5.5); the message names the byte and its offset, not the token.
  store::HubOptions o;
  o.endpoint = "http://127.0.0.1:9";  // never reached: the check comes first
  o.token = "hf_ab\x01" "cd";
  o.trust_any_publisher = true;
  TempDir cache;
  o.cache = cache.path();
  const std::string m = error_of([&] { store::hub_download(kOnnxId, 1, std::nullopt, o); }, ErrorKind::kInvalidArgument);
  expect_has(m, {"control byte 0x01 at offset 5", "HTTP authorization header"});
  EXPECT_EQ(m.find("hf_ab"), std::string::npos) << m;
}

}  // namespace
}  // namespace wgk::testing
