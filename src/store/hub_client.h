#pragma once
// Fetching kernel packages from the Hugging Face Hub into the official cache layout (libcurl;
// docs/hub.md). The bytes land exactly where and how
// huggingface_hub writes them (blobs/<etag>, relative symlinks, refs without newline, trees/<commit>.json,
// .locks/, CACHEDIR.TAG; copies when symlinks are off), so Python, @huggingface/hub and this store share
// one cache. Unlike the official clients, every byte is checked against its blob id (git sha1, or sha256
// for LFS) and against metadata.json's sha256 before the snapshot becomes visible.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wgk::store {

/// How the store talks to the Hub. from_environment() reads the official variables.
struct HubOptions {
  std::string endpoint = "https://huggingface.co";  ///< HF_ENDPOINT (trailing '/' stripped)
  std::string token;          ///< HF_TOKEN > HUGGING_FACE_HUB_TOKEN > file $HF_TOKEN_PATH or $HF_HOME/token
                              ///< (none when HF_HUB_DISABLE_IMPLICIT_TOKEN is set), cleaned as huggingface_hub's
                              ///< _clean_token (no '\r' or '\n', no surrounding whitespace); sent as "authorization:
                              ///< Bearer"; a control byte left in it is refused (kInvalidArgument) before any request
  bool offline = false;       ///< HF_HUB_OFFLINE=1 (or WGK_HUB=off): no request is ever made
  bool symlinks = true;       ///< false with HF_HUB_DISABLE_SYMLINKS=1: snapshot files are copies
  /// WGK_HUB_REFRESH=1: a `version` load asks the refs API first (one request, no retry; the newest vN is
  /// fetched and refs/vN moved) instead of serving the cached refs/vN. Off by default, so that a load with a
  /// local copy never waits for the network; `wgk download` always asks.
  bool refresh_versions = false;
  long etag_timeout_s = 10;     ///< HF_HUB_ETAG_TIMEOUT: connect/read timeout of API calls (refs, tree)
  long download_timeout_s = 10; ///< HF_HUB_DOWNLOAD_TIMEOUT: connect/read timeout of file transfers
  int max_retries = 5;          ///< on 408, 429, 500, 502, 503, 504 and transport errors (http_backoff)
  long retry_base_ms = 1000;    ///< waits base*1, 2, 4, 8, 8; Retry-After wins when given (WGK_HUB_RETRY_BASE_MS)
  /// Publishers whose packages are fetched without opt-in (WGK_HUB_TRUSTED_PUBLISHERS, comma-separated,
  /// adds to the default). Any other org needs trust_any_publisher.
  std::vector<std::string> trusted_publishers{"webgpu-kernels"};
  bool trust_any_publisher = false;  ///< explicit opt-in: fetch packages of any org
  std::filesystem::path cache;       ///< download root; empty: hub::download_root() (KERNELS_CACHE, HF chain)

  /// The options the official clients would use in this environment (huggingface_hub constants.py).
  static HubOptions from_environment();
};

/// What a download did.
struct HubDownload {
  std::string type;                   ///< "kernels" or "models": the repo type the Hub answered for
  std::string commit;                 ///< the Hub commit fetched
  std::filesystem::path repo;         ///< <cache>/<type>--<org>--<name>
  std::filesystem::path snapshot;     ///< <repo>/snapshots/<commit>
  int requests = 0;                   ///< HTTP requests made (retries and redirects included)
  std::size_t bytes_fetched = 0;      ///< body bytes of file transfers
  bool already_cached = false;        ///< the snapshot was complete before; only the refs were asked
};

/// Fetches `id` at branch v<version> (refs API) or at the 40-hex `commit` into options.cache: tree
/// API (paginated), then resolve for each package file not already cached, then pointers, trees/,
/// refs/v<version>. Tries repo type "kernels" first, then "models". Throws wgk::Error: kNotFound (offline,
/// untrusted publisher, unknown repo, version or file; 401 without a token: the message says to set
/// HF_TOKEN; a network failure: the endpoint and what was tried), kIntegrity (a byte that differs from
/// its blob id or from metadata.json, an X-Repo-Commit or ETag other than the tree's, an unsafe path
/// or id in an answer), kIo (the cache cannot be written).
HubDownload hub_download(std::string_view id, std::optional<int> version, std::optional<std::string> commit,
                         const HubOptions& options);

}  // namespace wgk::store
