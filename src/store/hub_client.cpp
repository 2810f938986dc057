#include "store/hub_client.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "store/digest.h"
#include "store/hub_cache.h"
#include "store/store.h"
#include "wgk/error.h"

namespace wgk::store {
namespace {

namespace fs = std::filesystem;
constexpr std::size_t kMaxFileBytes = 16u << 20;
constexpr std::size_t kMaxApiBytes = 8u << 20;
constexpr int kMaxRedirects = 5;
constexpr int kMaxTreePages = 100;
constexpr std::size_t kMaxTreeEntries = 10000;

// huggingface_hub _local_folder.py: the exact bytes of the cache directory tag.
constexpr std::string_view kCacheDirTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by huggingface_hub.\n"
    "# For information about cache directory tags, see:\n"
    "#\thttps://bford.info/cachedir/\n";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool env_true(const char* name) {
  std::string v = env(name);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v == "1" || v == "on" || v == "yes" || v == "true";
}

std::string random_hex8() {
  static std::mutex m;
  static std::mt19937_64 rng{std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32)};
  std::lock_guard<std::mutex> lock(m);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  std::uint64_t v = rng();
  for (int i = 0; i < 8; ++i) s += kHex[(v >> (4 * i)) & 15];
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\n' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

// huggingface_hub _clean_token: every '\r' and '\n' removed, then surrounding whitespace stripped (str.strip's
// ASCII whitespace: space, \t, \v, \f, \x1c-\x1f).
std::string clean_token(std::string t) {
  std::erase_if(t, [](char c) { return c == '\r' || c == '\n'; });
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' || c == '\x1e' || c == '\x1f'; };
  while (!t.empty() && space(t.back())) t.pop_back();
  std::size_t i = 0;
  while (i < t.size() && space(t[i])) ++i;
  return t.substr(i);
}

// _normalize_etag: strip W/ and the quotes.
std::string normalize_etag(std::string e) {
  e = trim(e);
  if (e.starts_with("W/")) e = e.substr(2);
  if (e.size() >= 2 && e.front() == '"' && e.back() == '"') e = e.substr(1, e.size() - 2);
  return e;
}

std::string url_escape(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) out += static_cast<char>(c);
    else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// scheme://host[:port] of an absolute URL ("" when not absolute http(s)).
std::string origin_of(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return "";
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return "";
  const auto path = url.find('/', scheme_end + 3);
  return url.substr(0, path);
}

void curl_global() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Response {
  long status = 0;
  CURLcode code = CURLE_OK;
  std::string error;                          // curl's message when code != OK
  std::map<std::string, std::string> headers; // lower-case names, last value of the final hop
  std::string body;
  bool overflow = false;
  bool connected = false;                     // the TCP (and TLS) connection was made
};

struct Transfer {
  Response* response;
  std::size_t limit;
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * n;
  if (t->response->body.size() + bytes > t->limit) {
    t->response->overflow = true;
    return 0;  // aborts the transfer
  }
  t->response->body.append(data, bytes);
  return bytes;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* r = static_cast<Response*>(user);
  std::string line(data, size * n);
  if (line.starts_with("HTTP/")) r->headers.clear();  // a new response (e.g. after 100 Continue)
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    r->headers[name] = trim(line.substr(colon + 1));
  }
  return size * n;
}

class Client {
 public:
  Client(const HubOptions& o, int* requests) : o_(o), requests_(requests) {
    curl_global();
    endpoint_ = o.endpoint;
    while (!endpoint_.empty() && endpoint_.back() == '/') endpoint_.pop_back();
    if (origin_of(endpoint_).empty())
      throw Error(ErrorKind::kInvalidArgument, "HF_ENDPOINT " + o.endpoint + " is not an http(s) URL");
    // What cleaning leaves goes into a header line: a control byte would end or corrupt it (RFC 9110 5.5;
    // huggingface_hub's HTTP stack refuses such a value too). The token itself is never printed.
    for (std::size_t i = 0; i < o.token.size(); ++i) {
      const auto c = static_cast<unsigned char>(o.token[i]);
      if (c < 0x20 || c == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", c);
        throw Error(ErrorKind::kInvalidArgument,
                    "the Hub token (HF_TOKEN, HUGGING_FACE_HUB_TOKEN or the token file) holds the control byte " +
                        std::string(hex) + " at offset " + std::to_string(i) +
                        ", which an HTTP authorization header cannot carry (only '\\r', '\\n' and surrounding "
                        "whitespace are removed, as huggingface_hub does)");
      }
    }
  }
  const std::string& endpoint() const { return endpoint_; }

  // One HTTP GET, no redirects followed. `auth`: send the token. `range_from`: ask for bytes from there.
  Response get_once(const std::string& url, bool auth, long timeout_s, std::size_t limit, std::size_t range_from,
                    const std::string& accept) {
    ++*requests_;
    Response r;
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) throw Error(ErrorKind::kInternal, "curl_easy_init failed");
    CURL* c = curl.get();
    char errbuf[CURL_ERROR_SIZE] = {};
    Transfer t{&r, limit};
    curl_slist* headers = nullptr;
    const std::string user_agent = "user-agent: webgpu-kernels/0.1; hf_hub-compatible";
    headers = curl_slist_append(headers, user_agent.c_str());
    headers = curl_slist_append(headers, ("accept: " + accept).c_str());
    headers = curl_slist_append(headers, "accept-encoding: identity");  // sizes and hashes are of the raw bytes
    if (auth && !o_.token.empty()) headers = curl_slist_append(headers, ("authorization: Bearer " + o_.token).c_str());
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(headers, curl_slist_free_all);
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, timeout_s);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);  // read timeout: < 1 byte/s for timeout_s
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, timeout_s);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    const std::string range = "bytes=" + std::to_string(range_from) + "-";
    if (range_from > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str() + 6);
    r.code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_off_t connect_us = 0;
    curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us);
    r.connected = connect_us > 0;
    if (r.code != CURLE_OK) r.error = errbuf[0] ? errbuf : curl_easy_strerror(r.code);
    return r;
  }

  static bool retriable_status(long s) { return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504; }

  void wait_before_retry(int attempt, const Response& r) {
    long ms = o_.retry_base_ms * (1L << std::min(attempt, 3));
    if (auto it = r.headers.find("retry-after"); it != r.headers.end()) {
      char* end = nullptr;
      const long seconds = std::strtol(it->second.c_str(), &end, 10);
      if (end != it->second.c_str() && seconds >= 0) ms = std::min(seconds, 120L) * 1000;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

  // GET with retries (408/429/5xx/transport) and resume; follows up to 5 redirects by hand, keeping the
  // token only on the same origin (huggingface_hub drops `authorization` when the host changes).
  // `hub_hop` receives the headers of the first answer (the Hub's, before any CDN redirect).
  Response get(const std::string& url_in, long timeout_s, std::size_t limit, const std::string& accept,
               std::map<std::string, std::string>* hub_hop = nullptr) {
    std::string url = url_in;
    const std::string hub_origin = origin_of(url_in);
    std::string partial;  // bytes kept across a cut transfer (resume with Range)
    std::string what_failed;
    for (int attempt = 0;; ++attempt) {
      url = url_in;
      bool first_hop = true;
      Response r;
      for (int hop = 0;; ++hop) {
        const bool same_origin = origin_of(url) == hub_origin;
        r = get_once(url, same_origin, timeout_s, limit, partial.size(), accept);
        if (first_hop && hub_hop) *hub_hop = r.headers;
        first_hop = false;
        if (r.code != CURLE_OK || (r.status != 301 && r.status != 302 && r.status != 303 && r.status != 307 &&
                                   r.status != 308))
          break;
        auto loc = r.headers.find("location");
        if (loc == r.headers.end())
          throw Error(ErrorKind::kIntegrity, url + " answered " + std::to_string(r.status) + " without a Location");
        if (hop + 1 >= kMaxRedirects)
          throw Error(ErrorKind::kNotFound, url_in + ": more than " + std::to_string(kMaxRedirects) + " redirects");
        const std::string& l = loc->second;
        if (l.starts_with("/")) url = origin_of(url) + l;  // relative: same origin (a renamed repo)
        else if (!origin_of(l).empty()) url = l;
        else throw Error(ErrorKind::kIntegrity, url + " redirects to " + l + ", not an http(s) URL or absolute path");
      }
      if (r.overflow)
        throw Error(ErrorKind::kIntegrity, url + ": the answer is over the " + std::to_string(limit) + "-byte limit");
      if (r.code == CURLE_OK && r.status == 206 && !partial.empty()) {
        r.body = partial + r.body;  // a resumed transfer
        r.status = 200;
      }
      bool retry = false;
      if (r.code != CURLE_OK) {
        retry = true;
        what_failed = r.error;
        // Keep what arrived: the next attempt resumes with Range (a 200 answer to it restarts).
        if (r.status == 200 || r.status == 206) partial = (r.status == 206 ? partial : std::string()) + r.body;
      } else if (retriable_status(r.status)) {
        retry = true;
        what_failed = "HTTP " + std::to_string(r.status);
        partial.clear();
      }
      if (!retry) return r;
      if (attempt >= o_.max_retries) {
        r.error = what_failed + " (after " + std::to_string(attempt + 1) + " attempts)";
        if (r.code == CURLE_OK) r.code = CURLE_HTTP_RETURNED_ERROR;
        return r;
      }
      wait_before_retry(attempt, r);
    }
  }

 private:
  const HubOptions& o_;
  int* requests_;
  std::string endpoint_;
};

// Process-wide memory of answers that would only repeat for a while: an endpoint that could not be
// reached, an id that no repo type has. A process loading many kernels without a network (or packages the
// Hub does not have) pays once, then falls through at once (the store serves the embedded package).
constexpr auto kNegativeTtl = std::chrono::seconds(60);
std::mutex g_memo_mutex;
std::map<std::string, std::pair<std::chrono::steady_clock::time_point, std::string>> g_memo;

std::optional<std::string> memo_get(const std::string& key) {
  std::lock_guard<std::mutex> lock(g_memo_mutex);
  auto it = g_memo.find(key);
  if (it == g_memo.end() || std::chrono::steady_clock::now() > it->second.first) return std::nullopt;
  return it->second.second;
}
void memo_put(const std::string& key, const std::string& message) {
  std::lock_guard<std::mutex> lock(g_memo_mutex);
  g_memo[key] = {std::chrono::steady_clock::now() + kNegativeTtl, message};
}

std::string error_code(const Response& r) {
  auto it = r.headers.find("x-error-code");
  return it == r.headers.end() ? "" : it->second;
}

// A failed answer as a wgk::Error: 401/403 and RepoNotFound/GatedRepo hint at HF_TOKEN.
Error http_error(const std::string& what, const std::string& url, const Response& r, bool have_token) {
  if (r.code != CURLE_OK && r.code != CURLE_HTTP_RETURNED_ERROR) {
    // No fallback named here: get_kernel's store goes on to the embedded packages, `wgk download` has none.
    // With a status the headers came and the body was cut (a transfer closed short, a stalled read).
    const std::string message =
        what + ": " + url + ": " + r.error +
        (r.status > 0 ? " (a network error after the HTTP " + std::to_string(r.status) + " answer began: its body was cut)"
                      : " (a network error, before any HTTP answer)");
    // Unreachable (not merely slow): remembered for the process.
    if (r.code == CURLE_COULDNT_RESOLVE_HOST || r.code == CURLE_COULDNT_RESOLVE_PROXY ||
        r.code == CURLE_COULDNT_CONNECT || (r.code == CURLE_OPERATION_TIMEDOUT && !r.connected))
      memo_put("net " + origin_of(url), message);
    return Error(ErrorKind::kNotFound, message);
  }
  std::string message = what + ": " + url + " answered HTTP " + std::to_string(r.status);
  if (!error_code(r).empty()) message += " (" + error_code(r) + ")";
  if (auto it = r.headers.find("x-error-message"); it != r.headers.end()) message += ": " + it->second;
  if (!r.error.empty()) message += "; " + r.error;
  if (r.status == 401 || r.status == 403 || error_code(r) == "GatedRepo")
    message += have_token ? "; the token (HF_TOKEN) was refused"
                          : "; the repo may be private or gated: set HF_TOKEN or write the token to $HF_HOME/token";
  return Error(ErrorKind::kNotFound, message);
}

struct TreeEntry {
  std::string path, oid, lfs_oid;
  std::uint64_t size = 0, lfs_size = 0;
  std::string blob() const { return lfs_oid.empty() ? oid : lfs_oid; }
  std::uint64_t bytes() const { return lfs_oid.empty() ? size : lfs_size; }
};

std::vector<TreeEntry> parse_tree_page(const std::string& body, const std::string& url) {
  nlohmann::json page = nlohmann::json::parse(body, nullptr, false);
  if (!page.is_array()) throw Error(ErrorKind::kIntegrity, url + ": the tree answer is not a JSON array");
  std::vector<TreeEntry> out;
  for (const auto& e : page) {
    if (!e.is_object() || !e.contains("type") || !e.contains("path") || !e["path"].is_string())
      throw Error(ErrorKind::kIntegrity, url + ": a tree entry lacks type or path");
    const std::string path = e["path"].get<std::string>();
    if (!hub::is_safe_path(path))
      throw Error(ErrorKind::kIntegrity, url + ": tree path \"" + path + "\" is not a safe relative path; nothing "
                                         "was written");
    if (e["type"] != "file") continue;
    TreeEntry t;
    t.path = path;
    t.oid = e.value("oid", "");
    if (!hub::is_sha1_hex(t.oid))
      throw Error(ErrorKind::kIntegrity, url + ": tree entry " + path + " has oid \"" + t.oid + "\", not 40 hex");
    if (!e.contains("size") || !e["size"].is_number_unsigned())
      throw Error(ErrorKind::kIntegrity, url + ": tree entry " + path + " has no size");
    t.size = e["size"].get<std::uint64_t>();
    if (e.contains("lfs") && e["lfs"].is_object()) {
      t.lfs_oid = e["lfs"].value("oid", "");
      if (t.lfs_oid.size() != 64 || !hub::is_blob_name(t.lfs_oid))
        throw Error(ErrorKind::kIntegrity, url + ": tree entry " + path + " has lfs.oid \"" + t.lfs_oid +
                                           "\", not 64 hex");
      if (!e["lfs"].contains("size") || !e["lfs"]["size"].is_number_unsigned())
        throw Error(ErrorKind::kIntegrity, url + ": tree entry " + path + " has no lfs.size");
      t.lfs_size = e["lfs"]["size"].get<std::uint64_t>();
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Link: <https://...>; rel="next"
std::string next_link(const Response& r) {
  auto it = r.headers.find("link");
  if (it == r.headers.end()) return "";
  const std::string& v = it->second;
  std::size_t pos = 0;
  while ((pos = v.find('<', pos)) != std::string::npos) {
    const auto end = v.find('>', pos);
    if (end == std::string::npos) break;
    const auto next = v.find(',', end);
    const std::string params = v.substr(end, next == std::string::npos ? std::string::npos : next - end);
    if (params.find("rel=\"next\"") != std::string::npos || params.find("rel=next") != std::string::npos)
      return v.substr(pos + 1, end - pos - 1);
    pos = end;
  }
  return "";
}

std::string blob_digest(const std::string& name, std::string_view bytes) {
  return name.size() == 64 ? sha256_hex(bytes) : git_blob_id(bytes);
}

std::optional<std::string> read_small(const fs::path& p, std::size_t limit) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(p, ec))) return std::nullopt;
  if (fs::file_size(p, ec) > limit || ec) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `bytes` to `dst` through a unique tmp file beside it, fsync, rename: readers see all or nothing.
void write_atomic(const fs::path& dst, std::string_view bytes) {
  std::error_code ec;
  fs::create_directories(dst.parent_path(), ec);
  const fs::path tmp = dst.parent_path() / (dst.filename().string() + "." + random_hex8() + ".incomplete");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrorKind::kIo, "cannot create " + tmp.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error(ErrorKind::kIo, "cannot write " + tmp.string() + ": " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), dst.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw Error(ErrorKind::kIo, "cannot rename " + tmp.string() + " to " + dst.string() + ": " + why);
  }
}

// flock on .locks/<folder>/<name>.lock: serialises processes fetching the same blob (best effort, as
// huggingface_hub's WeakFileLock; correctness comes from unique tmp files and rename).
class FileLock {
 public:
  explicit FileLock(const fs::path& file) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// huggingface_hub _create_symlink: os.path.relpath(blob, dirname(pointer)) on absolute paths.
fs::path relative_link(const fs::path& blob, const fs::path& pointer) {
  return blob.lexically_relative(pointer.parent_path());
}

}  // namespace

HubOptions HubOptions::from_environment() {
  HubOptions o;
  if (auto v = env("HF_ENDPOINT"); !v.empty()) o.endpoint = v;
  while (!o.endpoint.empty() && o.endpoint.back() == '/') o.endpoint.pop_back();
  if (!env_true("HF_HUB_DISABLE_IMPLICIT_TOKEN")) {
    // huggingface_hub utils/_auth.py: HF_TOKEN or else HUGGING_FACE_HUB_TOKEN, cleaned; when that leaves
    // nothing, the token file ($HF_TOKEN_PATH, else hf_home()/token; constants.py expands both), cleaned.
    std::string v = env("HF_TOKEN");
    if (v.empty()) v = env("HUGGING_FACE_HUB_TOKEN");
    o.token = clean_token(v);
    if (o.token.empty()) {
      fs::path file = env("HF_TOKEN_PATH");
      if (!file.empty()) file = hub::expand_user_and_vars(file.string());
      else if (fs::path home = hub::hf_home(); !home.empty()) file = home / "token";
      if (!file.empty())
        if (auto t = read_small(file, 4096)) o.token = clean_token(*t);
    }
  }
  o.offline = env_true("HF_HUB_OFFLINE") || env_true("TRANSFORMERS_OFFLINE") || env("WGK_HUB") == "off";
  o.symlinks = !env_true("HF_HUB_DISABLE_SYMLINKS");
  o.refresh_versions = env_true("WGK_HUB_REFRESH");
  auto seconds = [](const char* name, long fallback) {
    const std::string v = env(name);
    char* end = nullptr;
    const double d = v.empty() ? 0 : std::strtod(v.c_str(), &end);
    return (!v.empty() && end && *end == '\0' && d > 0) ? std::max(1L, static_cast<long>(d)) : fallback;
  };
  o.etag_timeout_s = seconds("HF_HUB_ETAG_TIMEOUT", 10);
  o.download_timeout_s = seconds("HF_HUB_DOWNLOAD_TIMEOUT", 10);
  if (auto v = env("WGK_HUB_RETRY_BASE_MS"); !v.empty()) o.retry_base_ms = std::max(0L, std::strtol(v.c_str(), nullptr, 10));
  std::string trusted = env("WGK_HUB_TRUSTED_PUBLISHERS");
  std::stringstream ss(trusted);
  for (std::string org; std::getline(ss, org, ',');)
    if (!trim(org).empty()) o.trusted_publishers.push_back(trim(org));
  o.trust_any_publisher = env_true("WGK_HUB_TRUST_ANY_PUBLISHER");
  o.cache = hub::download_root();
  return o;
}

HubDownload hub_download(std::string_view id_view, std::optional<int> version, std::optional<std::string> commit_pin,
                         const HubOptions& o) {
  const std::string id(id_view);
  hub::check_repo_id(id);
  if (version.has_value() == commit_pin.has_value())
    throw Error(ErrorKind::kInvalidArgument, "fetching " + id + ": give exactly one of a version or a commit");
  if (commit_pin && !hub::is_sha1_hex(*commit_pin))
    throw Error(ErrorKind::kInvalidArgument, "fetching " + id + ": revision \"" + *commit_pin +
                                                 "\" is not a commit (40 lower-case hex digits)");
  const std::string wanted = version ? "version " + std::to_string(*version) + " (branch v" + std::to_string(*version) + ")"
                                     : "revision " + *commit_pin;
  if (o.offline)
    throw Error(ErrorKind::kNotFound, "fetching " + id + " at " + wanted + ": offline (HF_HUB_OFFLINE=1 or WGK_HUB=off); "
                                      "no request was made");
  const std::string org = id.substr(0, id.find('/'));
  if (!o.trust_any_publisher &&
      std::find(o.trusted_publishers.begin(), o.trusted_publishers.end(), org) == o.trusted_publishers.end()) {
    std::string list;
    for (const auto& p : o.trusted_publishers) list += (list.empty() ? "" : ", ") + p;
    throw Error(ErrorKind::kNotFound, "fetching " + id + ": publisher " + org + " is not trusted (trusted: " + list +
                                      "); add it to WGK_HUB_TRUSTED_PUBLISHERS or opt in with "
                                      "WGK_HUB_TRUST_ANY_PUBLISHER=1 (wgk download --trust)");
  }
  if (o.cache.empty())
    throw Error(ErrorKind::kNotFound, "fetching " + id + ": no download cache (set HF_HUB_CACHE, HF_HOME or HOME)");

  HubDownload result;
  Client client(o, &result.requests);
  const std::string& E = client.endpoint();
  // The remembered failure may be another package's: this one's id leads, the earlier request follows.
  if (auto earlier = memo_get("net " + origin_of(E)))
    throw Error(ErrorKind::kNotFound, "fetching " + id + " at " + wanted + ": " + origin_of(E) +
                                          " could not be reached by an earlier request (" + *earlier +
                                          "); not tried again for " + std::to_string(kNegativeTtl.count()) + " s");
  if (auto earlier = memo_get("repo " + E + " " + id))
    throw Error(ErrorKind::kNotFound, *earlier + "; not asked again for " + std::to_string(kNegativeTtl.count()) + " s");

  // 1. The repo type and the commit: refs API for a version, tree API directly for a commit.
  std::string type;
  std::string commit = commit_pin.value_or("");
  std::vector<TreeEntry> tree;
  auto fetch_tree = [&](const std::string& t) -> std::optional<Response> {
    std::string url = E + "/api/" + t + "/" + id + "/tree/" + commit + "?recursive=true&expand=false";
    tree.clear();
    for (int page = 0; !url.empty(); ++page) {
      if (page >= kMaxTreePages)
        throw Error(ErrorKind::kIntegrity, "fetching " + id + ": the tree listing has over " +
                                               std::to_string(kMaxTreePages) + " pages");
      if (origin_of(url) != origin_of(E))
        throw Error(ErrorKind::kIntegrity, "fetching " + id + ": tree page link " + url + " leaves " + E);
      Response r = client.get(url, o.etag_timeout_s, kMaxApiBytes, "application/json");
      if (r.code != CURLE_OK || r.status != 200) return r;
      for (TreeEntry& e : parse_tree_page(r.body, url)) tree.push_back(std::move(e));
      if (tree.size() > kMaxTreeEntries)
        throw Error(ErrorKind::kIntegrity, "fetching " + id + ": the tree has over " + std::to_string(kMaxTreeEntries) + " files");
      url = next_link(r);
    }
    return std::nullopt;
  };
  std::string not_found;  // answers of the types tried
  for (const std::string& t : hub::repo_types()) {
    if (version) {
      const std::string url = E + "/api/" + t + "/" + id + "/refs";
      Response r = client.get(url, o.etag_timeout_s, kMaxApiBytes, "application/json");
      if (r.code == CURLE_OK && (r.status == 404 || r.status == 401) &&
          (error_code(r) == "RepoNotFound" || error_code(r).empty() || r.status == 401)) {
        not_found += " " + url + " -> " + std::to_string(r.status) + (error_code(r).empty() ? "" : " " + error_code(r)) + ";";
        if (r.status == 401 && t == hub::repo_types().back()) throw http_error("fetching " + id, url, r, !o.token.empty());
        continue;
      }
      if (r.code != CURLE_OK || r.status != 200) throw http_error("fetching " + id + " refs", url, r, !o.token.empty());
      nlohmann::json refs = nlohmann::json::parse(r.body, nullptr, false);
      if (!refs.is_object() || !refs.contains("branches") || !refs["branches"].is_array())
        throw Error(ErrorKind::kIntegrity, url + ": the refs answer has no \"branches\" array");
      std::vector<int> versions;
      for (const auto& b : refs["branches"]) {
        if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) continue;
        const std::string name = b["name"].get<std::string>();
        // kernels _versions.py: branches "v<int>"; N must match exactly.
        if (name.size() < 2 || name[0] != 'v' || !std::all_of(name.begin() + 1, name.end(), ::isdigit) ||
            name.size() > 10)
          continue;
        const int n = std::stoi(name.substr(1));
        versions.push_back(n);
        if (n == *version) {
          commit = b.value("targetCommit", "");
          if (!hub::is_sha1_hex(commit))
            throw Error(ErrorKind::kIntegrity, url + ": branch " + name + " targets \"" + commit + "\", not a commit");
        }
      }
      if (commit.empty()) {
        std::sort(versions.begin(), versions.end());
        std::string list;
        for (int v : versions) list += (list.empty() ? "" : ", ") + std::to_string(v);
        throw Error(ErrorKind::kNotFound, "fetching " + id + ": " + E + " has no branch v" + std::to_string(*version) +
                                              "; available versions: " + (list.empty() ? "none" : list));
      }
      type = t;
      // Already complete in the cache: one request, like huggingface_hub with the tree cache.
      const fs::path repo = o.cache / hub::repo_folder(t, id);
      try {
        if (auto snap = hub::read_snapshot(repo, commit)) {
          auto pkg = verify_package(snap->files, snap->folder.string(), id);
          if (pkg->version == *version) {
            result.already_cached = true;
            break;
          }
        }
      } catch (const Error&) {
        // incomplete or damaged: fetch it again below (the fetch re-verifies every byte)
      }
      if (auto bad = fetch_tree(t)) throw http_error("fetching " + id + " tree", E + "/api/" + t + "/" + id + "/tree/" + commit, *bad, !o.token.empty());
      break;
    }
    // A commit: the tree API tells whether the repo has this type.
    auto bad = fetch_tree(t);
    if (!bad) {
      type = t;
      break;
    }
    const Response& r = *bad;
    if (r.code == CURLE_OK && (r.status == 404 || r.status == 401) && error_code(r) != "RevisionNotFound" &&
        error_code(r) != "EntryNotFound") {
      not_found += " " + t + " -> " + std::to_string(r.status) + (error_code(r).empty() ? "" : " " + error_code(r)) + ";";
      if (t == hub::repo_types().back()) throw http_error("fetching " + id + " at " + wanted, E + "/api/" + t + "/" + id + "/tree/" + commit, r, !o.token.empty());
      continue;
    }
    throw http_error("fetching " + id + " at " + wanted, E + "/api/" + t + "/" + id + "/tree/" + commit, r, !o.token.empty());
  }
  if (type.empty()) {
    const std::string message = "fetching " + id + ": no kernel or model repo at " + E + ":" + not_found +
                                (o.token.empty() ? " (no token sent; set HF_TOKEN for a private repo)" : "");
    memo_put("repo " + E + " " + id, message);
    throw Error(ErrorKind::kNotFound, message);
  }

  result.type = type;
  result.commit = commit;
  std::error_code ec;
  fs::create_directories(o.cache, ec);
  const fs::path root = fs::canonical(o.cache, ec);  // resolved once, as huggingface_hub does
  if (ec) throw Error(ErrorKind::kIo, "cache " + o.cache.string() + ": " + ec.message());
  const std::string folder = hub::repo_folder(type, id);
  const fs::path repo = root / folder;
  result.repo = repo;
  result.snapshot = repo / "snapshots" / commit;

  auto write_ref = [&] {
    if (!version) return;
    const fs::path ref = repo / "refs" / ("v" + std::to_string(*version));
    if (read_small(ref, 256) != commit) write_atomic(ref, commit);  // exactly 40 bytes, no newline
  };
  if (!fs::exists(root / "CACHEDIR.TAG", ec)) write_atomic(root / "CACHEDIR.TAG", kCacheDirTag);
  if (result.already_cached) {
    write_ref();
    return result;
  }

  // 2. The package files of the tree.
  std::vector<const TreeEntry*> selected;
  for (const TreeEntry& e : tree)
    if (hub::is_package_path(e.path)) selected.push_back(&e);
  if (std::none_of(selected.begin(), selected.end(), [](const TreeEntry* e) { return e->path == "build/webgpu/metadata.json"; }))
    throw Error(ErrorKind::kNotFound, "fetching " + id + " at " + wanted + ": commit " + commit +
                                          " has no build/webgpu/metadata.json (not a WebGPU kernel package)");
  for (const TreeEntry* e : selected)
    if (e->bytes() > kMaxFileBytes)
      throw Error(ErrorKind::kIntegrity, "fetching " + id + ": " + e->path + " is " + std::to_string(e->bytes()) +
                                             " bytes, over the " + std::to_string(kMaxFileBytes) + "-byte limit");

  // 3. Bytes: from blobs/ when present and intact, else resolve; every byte checked against the blob name.
  fs::create_directories(repo / "blobs", ec);
  fs::create_directories(repo / "snapshots", ec);
  fs::create_directories(repo / "refs", ec);  // scanners (scanCacheDir) stat refs/ even for commit downloads
  if (ec) throw Error(ErrorKind::kIo, "cannot create " + (repo / "blobs").string() + ": " + ec.message());
  std::map<std::string, std::string, std::less<>> files;
  const std::string url_prefix = type == "models" ? "" : type + "/";
  for (const TreeEntry* e : selected) {
    const std::string h = e->blob();
    const fs::path blob = repo / "blobs" / h;
    FileLock lock(root / ".locks" / folder / (h + ".lock"));
    if (auto have = read_small(blob, kMaxFileBytes); have && have->size() == e->bytes() && blob_digest(h, *have) == h) {
      files.emplace(e->path, std::move(*have));
      continue;
    }
    const std::string url = E + "/" + url_prefix + id + "/resolve/" + commit + "/" + url_escape(e->path, true);
    std::map<std::string, std::string> hub_hop;
    Response r = client.get(url, o.download_timeout_s, kMaxFileBytes, "*/*", &hub_hop);
    if (r.code != CURLE_OK || r.status != 200) {
      if (r.code == CURLE_OK && r.status == 404 && error_code(r) == "EntryNotFound" && hub_hop.count("x-repo-commit"))
        write_atomic(repo / ".no_exist" / commit / e->path, "");
      throw http_error("fetching " + id + " " + e->path, url, r, !o.token.empty());
    }
    result.bytes_fetched += r.body.size();
    const auto rc = hub_hop.find("x-repo-commit");
    if (rc == hub_hop.end() || rc->second != commit)
      throw Error(ErrorKind::kIntegrity, url + ": X-Repo-Commit is " +
                                             (rc == hub_hop.end() ? std::string("missing") : "\"" + rc->second + "\"") +
                                             ", expected " + commit + " (the answer is not the Hub's, or another commit)");
    std::string etag = hub_hop.count("x-linked-etag") ? hub_hop["x-linked-etag"] : hub_hop.count("etag") ? hub_hop["etag"] : "";
    etag = normalize_etag(etag);
    if (!etag.empty() && etag != h)
      throw Error(ErrorKind::kIntegrity, url + ": ETag " + etag + " differs from the tree's blob id " + h);
    if (r.body.size() != e->bytes())
      throw Error(ErrorKind::kIntegrity, url + ": " + std::to_string(r.body.size()) + " bytes received, the tree says " +
                                             std::to_string(e->bytes()) + "; nothing was written");
    const std::string actual = blob_digest(h, r.body);
    if (actual != h)
      throw Error(ErrorKind::kIntegrity, url + ": the bytes received hash to " + actual + ", not to the blob id " + h +
                                             " (" + (h.size() == 64 ? "sha256" : "git blob sha1") + "); nothing was written");
    if (o.symlinks) write_atomic(blob, r.body);
    files.emplace(e->path, std::move(r.body));
  }

  // 4. The package as a whole, before anything becomes visible in snapshots/.
  auto pkg = verify_package(files, url_prefix + id + "@" + commit, id);
  if (version && pkg->version != *version)
    throw Error(ErrorKind::kIntegrity, "fetching " + id + ": branch v" + std::to_string(*version) + " (commit " + commit +
                                           ") holds a package of version " + std::to_string(pkg->version));

  // 5. Pointers: build the snapshot in a hidden sibling folder, then rename it into place (one step);
  // when snapshots/<commit> exists already (another process, or a partial one), add what it lacks.
  const fs::path final_dir = repo / "snapshots" / commit;
  auto place = [&](const fs::path& dir, const TreeEntry& e) {
    const fs::path pointer = dir / e.path;
    fs::create_directories(pointer.parent_path());
    const fs::path blob = repo / "blobs" / e.blob();
    const fs::path tmp = pointer.parent_path() / ("." + pointer.filename().string() + "." + random_hex8() + ".incomplete");
    bool linked = false;
    if (o.symlinks && fs::exists(blob)) {
      fs::path target = relative_link(blob, final_dir / e.path);
      if (::symlink(target.c_str(), tmp.c_str()) == 0) linked = true;
    }
    if (!linked) write_atomic(tmp, files.at(e.path));
    if (::rename(tmp.c_str(), pointer.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      ::unlink(tmp.c_str());
      throw Error(ErrorKind::kIo, "cannot place " + pointer.string() + ": " + why);
    }
  };
  if (!fs::exists(fs::symlink_status(final_dir, ec))) {
    const fs::path staging = repo / "snapshots" / ("." + commit + "." + random_hex8() + ".incomplete");
    // The staging folder goes unless renamed into place: also when placing a file throws.
    struct RemoveStaging {
      const fs::path& path;
      ~RemoveStaging() {
        std::error_code ignored;
        fs::remove_all(path, ignored);  // after a rename, nothing is left there
      }
    } remove_staging{staging};
    for (const TreeEntry* e : selected) place(staging, *e);
    ::rename(staging.c_str(), final_dir.c_str());  // fails when another process won: then staging goes
  }
  if (!fs::is_directory(fs::symlink_status(final_dir, ec)))
    throw Error(ErrorKind::kIo, final_dir.string() + " could not be created");
  for (const TreeEntry* e : selected) {
    const fs::path pointer = final_dir / e->path;
    if (!fs::exists(fs::symlink_status(pointer, ec))) place(final_dir, *e);
  }

  // 6. trees/<commit>.json (the full listing, huggingface_hub _tree_cache.py format), refs, done.
  const fs::path tree_file = repo / "trees" / (commit + ".json");
  if (!fs::exists(tree_file, ec)) {
    nlohmann::ordered_json listing;
    listing["format_version"] = 1;
    nlohmann::ordered_json all = nlohmann::ordered_json::object();
    for (const TreeEntry& e : tree) {
      nlohmann::ordered_json f;
      f["size"] = e.size;
      f["blob_id"] = e.oid;
      if (!e.lfs_oid.empty()) {
        f["lfs_sha256"] = e.lfs_oid;
        f["lfs_size"] = e.lfs_size;
      }
      all[e.path] = f;
    }
    listing["files"] = all;
    write_atomic(tree_file, listing.dump(1));
  }
  write_ref();
  return result;
}

}  // namespace wgk::store
