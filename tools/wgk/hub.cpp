// wgk download ID [--version N | --revision COMMIT] [--cache DIR] [--trust]: fetch a package from the Hub
// into the official cache layout; wgk cache list | verify [--cache DIR]: what the Hub caches hold, and
// whether every blob, ref and snapshot is intact (the analogue of `hf cache scan` / `hf cache verify`).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "command.h"
#include "io/file_bytes.h"
#include "option_values.h"
#include "resolve.h"
#include "store/digest.h"
#include "store/hub_cache.h"
#include "store/hub_client.h"
#include "store/store.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> cache_roots(const std::string& cache) {
  if (!cache.empty()) return {cache};
  return store::Store::default_store().roots();
}

// Refuses a --cache that exists and is not a folder, before any request (a missing one is created by download).
void cache_not_a_file(const std::string& cache) {
  std::error_code ec;
  const fs::file_status status = fs::status(cache, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw Error(ErrorKind::kInvalidArgument, "--cache " + cache + ": " +
                                                 (fs::is_regular_file(status) ? "a file" : io::special_file_kind(status)) +
                                                 ", not a folder (--cache names the Hub cache root folder)");
}

}  // namespace

WGK_COMMAND("download", "Fetch a package from the Hub (HF_ENDPOINT) into the Hub cache, every byte verified") {
  struct Options {
    std::string id, revision, cache;
    int version = 1;
    bool trust = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("id", o->id, "package id, e.g. webgpu-kernels/ai.onnx.RotaryEmbedding")->required();
  auto* version = integer_in(sub.add_option("--version", o->version, "the Hub branch vN (default 1)"), 0,
                             std::numeric_limits<int>::max());
  non_empty(sub.add_option("--revision", o->revision, "a Hub commit (40 hex digits)"))->excludes(version);
  non_empty(sub.add_option("--cache", o->cache, "cache root (default: KERNELS_CACHE, HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub)"));
  sub.add_flag("--trust", o->trust, "fetch even when the publisher is not in WGK_HUB_TRUSTED_PUBLISHERS (default webgpu-kernels)");
  return [o]() -> int {
    package_id(o->id, "wgk download");
    store::HubOptions hub = store::HubOptions::from_environment();
    if (!o->cache.empty()) cache_not_a_file(o->cache), hub.cache = o->cache;
    hub.trust_any_publisher = hub.trust_any_publisher || o->trust;
    const auto t0 = std::chrono::steady_clock::now();
    const store::HubDownload d =
        o->revision.empty() ? store::hub_download(o->id, o->version, std::nullopt, hub)
                            : store::hub_download(o->id, std::nullopt, o->revision, hub);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    // Read back through the store: the one verification path.
    auto package = store::Store({hub.cache}, false).load(o->id, {std::nullopt, d.commit, std::nullopt});
    std::cout << "kernel:  " << package->id << " version " << package->version << " commit " << package->commit
              << " content " << package->content_id << " (" << package->origin << ")\n";
    std::cout << "fetched: " << hub.endpoint << " " << d.type << "/" << o->id << " "
              << (o->revision.empty() ? "v" + std::to_string(o->version) : o->revision) << ": "
              << (d.already_cached ? "already cached, " : "") << d.requests << " requests, " << d.bytes_fetched
              << " bytes, " << ms << " ms\n";
    return 0;
  };
}

WGK_COMMAND("cache", "List or verify the Hub caches the store reads (kernels-- and models-- folders)") {
  auto cache = std::make_shared<std::string>();
  sub.require_subcommand(1);
  CLI::App* list = sub.add_subcommand("list", "Each package repo: refs, snapshots, the package version and content pin");
  CLI::App* verify = sub.add_subcommand("verify", "Recompute every blob name, ref and snapshot digest; exit 1 on any fault");
  for (CLI::App* s : {list, verify})
    non_empty(s->add_option("--cache", *cache, "cache root (default: the roots the store searches)"));
  return [cache, list, verify]() -> int {
    const bool check = verify->parsed();
    (void)list;
    int faults = 0, checked = 0, roots_found = 0;
    std::string searched;
    if (!cache->empty()) cache_not_a_file(*cache);
    for (const fs::path& root : cache_roots(*cache)) {
      std::error_code ec;
      searched += (searched.empty() ? "" : ", ") + root.string();
      if (!fs::is_directory(root, ec)) {
        if (!cache->empty()) throw Error(ErrorKind::kNotFound, "--cache " + *cache + " is not a folder");
        continue;
      }
      ++roots_found;
      std::cout << "root: " << root.string() << "\n";
      for (const store::hub::CachedRepo& repo : store::hub::scan_root(root)) {
        std::cout << "  " << repo.id << " (" << repo.type << ", " << repo.folder.filename().string() << ")\n";
        auto fault = [&](const std::string& what) {
          ++faults;
          std::cout << "    FAULT " << what << "\n";
        };
        // Only package repos: a snapshot with an entry build/webgpu (a folder, a link, even a dangling one), or one
        // that is no folder. A model's cache, or a torch kernel's (build/torch-*), is not ours to judge, and its blobs
        // can be gigabytes. Before, only a readable build/webgpu/metadata.json counted, so a repo whose metadata.json
        // blob was missing, whose snapshot was a file or whose build/webgpu was a symlinked folder was skipped as no
        // package although every load of it failed (a breaker's finding).
        const bool package_repo = std::any_of(repo.snapshots.begin(), repo.snapshots.end(), [&](const std::string& c) {
          const fs::path snapshot = repo.folder / "snapshots" / c;
          return !fs::is_directory(fs::symlink_status(snapshot, ec)) ||
                 fs::symlink_status(snapshot / "build/webgpu", ec).type() != fs::file_type::not_found;
        });
        if (!package_repo) {
          std::cout << "    not a WebGPU package (no snapshot has build/webgpu): skipped\n";
          continue;
        }
        for (const auto& [name, value] : repo.refs) {
          std::string shown = value.substr(0, 40);  // a ref's bytes are untrusted: print them plainly
          for (char& c : shown)
            if (c < 0x20 || c > 0x7e) c = '?';
          std::cout << "    ref " << name << " -> " << shown << "\n";
          if (!check) continue;
          ++checked;
          if (value.size() != 40 || !store::hub::is_sha1_hex(value))
            fault("refs/" + name + " is not exactly 40 hex bytes (the official readers do not strip)");
          else if (std::find(repo.snapshots.begin(), repo.snapshots.end(), value) == repo.snapshots.end())
            fault("refs/" + name + " points at missing snapshot " + value);
        }
        if (check) {
          for (auto it = fs::directory_iterator(repo.folder / "blobs", ec); !ec && it != fs::directory_iterator();
               it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.ends_with(".incomplete")) continue;  // an in-flight or abandoned download
            ++checked;
            if (!store::hub::is_blob_name(name) || !fs::is_regular_file(fs::symlink_status(it->path()))) {
              fault("blobs/" + name + " is not a 40 or 64 hex regular file");
              continue;
            }
            const std::string actual = store::file_digest_hex(it->path(), /*git_blob=*/name.size() == 40);
            if (actual != name) fault("blobs/" + name + " hashes to " + actual);
          }
        }
        for (const std::string& commit : repo.snapshots) {
          if (!store::hub::is_sha1_hex(commit)) {
            if (check) fault("snapshots/" + commit + " is not named by a commit");
            continue;
          }
          try {
            ++checked;
            auto package = store::Store({root}, false).load(repo.id, {std::nullopt, commit, std::nullopt});
            std::cout << "    snapshot " << commit << ": version " << package->version << " content " << package->content_id
                      << " (" << package->files.size() << " files)\n";
          } catch (const Error& e) {
            if (check) fault("snapshot " + commit + ": " + e.what());
            else std::cout << "    snapshot " << commit << ": " << e.what() << "\n";
          }
        }
      }
    }
    // Say where it looked: an empty answer cannot be told from a wrong path otherwise (a tester's finding).
    if (roots_found == 0) std::cout << "no Hub cache folder exists; searched: " << searched << "\n";
    if (check) std::cout << checked << " checked, " << faults << " faults\n";
    return faults == 0 ? 0 : 1;
  };
}

}  // namespace wgk::cli
