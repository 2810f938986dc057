#pragma once
// One owner of what a device caches (docs/design.md "Caches and memory"): the plans of call signatures,
// programs (a pass's rendered WGSL and its compiled pipeline), bind groups, and the pool of storage
// buffers. Every entry is on one least-recently-used list with its byte size; whenever the cached bytes
// pass the budget pooled buffers go first, then the oldest entries, whatever their kind; plans and pooled
// buffers also keep to a share of it each (kPlanShare, kBufferShare). Nothing cached keeps alive a buffer that
// no caller holds, except the pool itself (counted): a bind group is dropped with any pooled buffer or
// plan it binds when that goes.
//
// Threads: every member takes the cache's own mutex, so lookups run from any thread (planning happens
// before the device mutex is taken, and a DeviceTensor may die on any thread). Dawn objects are never
// released under that mutex on another thread: evicted entries go to a graveyard that release_evicted()
// empties under the device mutex. Entries handed out are shared: a call in flight keeps what it uses.
#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "contract/contract.h"
#include "plan/plan.h"
#include "gpu/device.h"
#include "wgk/kernel.h"

namespace wgk::runtime {

/// A pass's rendered WGSL and, once a call used it, its compiled pipeline. Keyed by what the template
/// reads (plan::PlannedPass::program_key), so calls that differ only in uniform values share it.
struct Program {
  std::uint64_t id = 0;  ///< unique per device (bind group keys name it); assigned when cached
  std::shared_ptr<const plan::ProgramText> text;
  std::string label;                               ///< "<domain>.<op>/<variant>/<pass>"
  std::shared_ptr<gpu::ComputePipeline> pipeline;  ///< null until first used; set under the device mutex
  bool evicted = false;  ///< out of the cache (under the cache's mutex); calls in flight may still hold it
  std::string owner;     ///< the kernel's serial prefix: its cache key is owner + text->key
  /// Unflushed Batches whose calls use it (DeviceCache::hold; under the cache's mutex). Evicted while any
  /// do, it is still found by its key (uncounted) until the last lets go: a batch never compiles twice.
  std::uint32_t batch_holds = 0;
};

/// The plan of one call signature of one kernel, the GPU objects that depend only on it, and what the
/// plan's calls look up by name, resolved once when it is planned (encode_call's "plan" stage): every
/// call with this key has these input names in this order, so per call the lookups are index reads.
struct CachedPlan {
  std::uint64_t id = 0;                                ///< unique per device
  std::shared_ptr<const contract::Contract> contract;  ///< keeps the plan's pointers into it valid
  std::shared_ptr<const plan::Plan> plan;
  std::vector<std::weak_ptr<Program>> programs;        ///< per pass; expired: the plan is made again
  /// Per call input, in the call's Inputs order: its declaration and, when it has one, its value range
  /// for this signature (into `plan`).
  struct Input {
    const contract::Input* spec = nullptr;
    const plan::ValueRange* range = nullptr;
  };
  std::vector<Input> inputs;
  std::vector<std::uint64_t> output_bytes;  ///< per plan output: numel * dtype size
  /// The tensor buffer of each storage binding, passes in order, bindings in @binding order: an index
  /// into the call's buffers (its inputs in Inputs order, then the plan's outputs).
  std::vector<std::uint32_t> sources;
  std::vector<std::byte> uniforms;  ///< every uniform binding's bytes, in the same order (BindGroupSet::written)
  /// Fused calls (docs/kernel-conventions.md "Fused calls"): the most calls of this plan that one dispatch
  /// of a Batch may serve; 1 (none) unless the plan has one pass, with `fusion`: its maxCalls, cut so that
  /// the shared and K per-call storage bindings fit the device's maxStorageBuffersPerShaderStage.
  std::uint32_t max_fused_calls = 1;
  /// The call-buffer indices (as `sources`) of the storage bindings the fused calls share: calls join a
  /// dispatch only when these buffers are the same.
  std::vector<std::uint32_t> shared_sources;
  /// The plan for K fused calls, K in [2, max_fused_calls] at index K - 2, made by the first Batch that
  /// fuses K calls of this plan. Used under the device mutex.
  struct Fused {
    std::shared_ptr<const plan::Plan> plan;  ///< null until made
    std::weak_ptr<Program> program;          ///< its pass's program, found again in the cache once expired
    /// Per storage binding of the fused pass, in @binding order: the call (0 for a shared binding) and the
    /// index into that call's buffers (as `sources`).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> sources;
    std::vector<std::byte> uniforms;  ///< every uniform binding's bytes (equal to `uniforms` above)
  };
  std::vector<Fused> fused;
};

/// Bind groups of one call's passes, by the programs and the buffers they bind, with
/// their own uniform buffers. Calls of other plans that bind the same buffers share the set: each call
/// writes its uniform bytes into them when they differ from the last written (queue writes and submits
/// run in order, so a call in flight keeps the values it was submitted with).
struct BindGroupSet {
  std::vector<gpu::BindGroup> groups;              ///< per pass
  std::vector<std::vector<gpu::Buffer>> uniforms;  ///< per pass, per uniform binding
  /// Per pass, the program whose pipeline `groups` were made for: whoever holds the set (a call in
  /// flight, a Batch) holds what its dispatches point at, evicted from the cache or not.
  std::vector<std::shared_ptr<Program>> programs;
  std::vector<std::byte> written;                  ///< every uniform's bytes as last written, in order
  /// Recorded calls of unflushed Batches that use this set (under the device mutex). While any do, the
  /// uniform buffers keep `written` until those submits: a call that needs other values gets its own set
  /// (uncached), since queue writes run before a batch's later submit.
  std::uint32_t batch_claims = 0;
};

/// A storage buffer's allocation size for `bytes` (> 0): the next of 2^k, 1.25, 1.5 and 1.75 * 2^k
/// at or above it (at most 25% more than asked, at least 256 bytes), so that tensors of nearby sizes
/// reuse pooled buffers, and the bind groups that bind them (calls bind the whole allocation).
std::uint64_t allocation_size(std::uint64_t bytes);

class DeviceCache {
 public:
  /// `budget`: DeviceOptions::cache_budget_bytes. Estimated sizes of entries that are not buffers:
  /// A plan and its key, host memory only. Measured: 2,003 heap bytes per plan of a rank-4 call of
  /// com.microsoft.RotaryEmbedding (mallinfo2 over 4,000 new shapes; docs/PERF.md "Memory").
  static constexpr std::uint64_t kPlanBaseBytes = 2048;
  /// A compiled pipeline. Measured on lavapipe: 0.5 MiB of RSS per pipeline of ai.onnx.RotaryEmbedding's
  /// quad kernel (200 pipelines, docs/PERF.md "Memory"); on a discrete GPU most of it is driver memory
  /// that no counter here shows.
  static constexpr std::uint64_t kPipelineBytes = 512 << 10;
  static constexpr std::uint64_t kBindGroupBytes = 4096;  ///< one Dawn bind group per pass and its uniform buffers
  /// Plans hold at most budget / kPlanShare bytes (8 MiB, about 4,000 call signatures, under the default
  /// budget): a plan is remade in tens of microseconds (docs/PERF.md "Memory"), a program or a buffer is
  /// what is worth the rest of the budget. Past that share the least recently used plan goes.
  static constexpr std::uint64_t kPlanShare = 8;
  /// Pooled buffers hold at most budget / kBufferShare bytes (32 MiB under the default budget): past that
  /// the least recently pooled buffer goes. They are also the first to go when the cache passes its budget,
  /// so buffers of new sizes never push the programs out (a program costs milliseconds to compile; a buffer,
  /// an allocation). A buffer larger than that share is not pooled: it is released when its last holder
  /// drops it.
  static constexpr std::uint64_t kBufferShare = 2;
  explicit DeviceCache(std::uint64_t budget);
  ~DeviceCache();
  DeviceCache(const DeviceCache&) = delete;
  DeviceCache& operator=(const DeviceCache&) = delete;

  // -- plans ---------------------------------------------------------------------------------------
  /// The cached plan for `key` (kernel serial + call signature), or null. A hit whose programs were
  /// evicted is dropped and reported as a miss. `programs` receives the live programs of a hit.
  std::shared_ptr<CachedPlan> find_plan(std::string_view key, std::vector<std::shared_ptr<Program>>* programs);
  /// Caches a new plan (its id is assigned here) and returns it.
  std::shared_ptr<CachedPlan> insert_plan(std::string key, std::shared_ptr<CachedPlan> plan);
  /// Counts `fused`, a fused plan of `plan` made after `plan` was cached under `key`, in that plan's entry
  /// (a plan's estimate: kPlanBaseBytes, its bindings and uniforms, here also its sources), then keeps the
  /// budget. Nothing when `plan` is no longer cached under `key`. The fused plan's program is a program's
  /// entry, as a plan's own programs are.
  void count_fused(std::string_view key, const CachedPlan& plan, const CachedPlan::Fused& fused);

  // -- programs ------------------------------------------------------------------------------------
  /// The program for `owner` (a kernel's serial prefix) and `key` (plan::ProgramText::key),
  /// rendering its WGSL with `render` on a miss (outside the cache's mutex).
  std::shared_ptr<Program> program(std::string_view owner, const std::string& key, const std::string& label,
                                   const std::function<std::string()>& render);
  /// The program for `owner` and `text` (rendered already): found, or cached as it is.
  std::shared_ptr<Program> program(std::string_view owner, std::shared_ptr<const plan::ProgramText> text,
                                   const std::string& label);
  /// `program`'s pipeline, compiled on first use. Caller holds the device mutex.
  const gpu::ComputePipeline& pipeline(gpu::Device& gpu, Program& program);
  /// Marks `programs` as used by an unflushed Batch (once per batch each) until let_go: a program evicted
  /// meanwhile stays out of the budget's count but is still found by its key, and cached again when found,
  /// so no call of the batch renders or compiles it again (a budget of 0 caches nothing else).
  void hold(std::span<const std::shared_ptr<Program>> programs);
  /// Undoes hold (the batch was flushed or dropped); an evicted program no batch holds goes to the graveyard.
  void let_go(std::span<const std::shared_ptr<Program>> programs);

  // -- bind groups ---------------------------------------------------------------------------------
  /// The bind groups for `key`, or null.
  std::shared_ptr<BindGroupSet> find_bind_groups(std::string_view key);
  /// Caches `set`, pinned by its programs (BindGroupSet::programs) and the buffers with these ids: it goes
  /// when any of them goes. Not cached when a program of it is evicted already (a tiny budget): nobody
  /// would find the set again, and it would hold that program's pipeline.
  void insert_bind_groups(std::string key, std::shared_ptr<BindGroupSet> set, const std::vector<const void*>& buffers);

  // -- buffers -------------------------------------------------------------------------------------
  /// A storage buffer of allocation_size(bytes), or of `bytes` when that size class passes `max_size`
  /// (the binding limit: calls bind whole buffers): a pooled one, else a new one. Caller holds the
  /// device mutex. Pooled buffers hold stale data: every byte a kernel reads is written first.
  gpu::Buffer take_buffer(gpu::Device& gpu, std::uint64_t bytes, std::uint64_t max_size, std::string_view label);
  /// Returns a buffer to the pool (any thread), or to the graveyard when it alone passes the pool's share
  /// of the budget (budget / kBufferShare).
  void give_back(gpu::Buffer buffer);

  /// Releases what eviction left (Dawn objects). Caller holds the device mutex.
  void release_evicted();
  /// Counters for CacheStats (Device::cache_stats()).
  CacheStats stats();
  /// Drops every entry (Device teardown). Caller holds the device mutex.
  void clear();

  /// A new serial for a kernel: plan keys start with it, so two kernels never share a plan.
  std::uint64_t next_serial() { return next_serial_.fetch_add(1); }

 private:
  enum Kind : int { kPlan, kProgram, kBindGroup, kBuffer, kKinds };
  struct Entry {
    Entry(Kind k, std::string name, std::uint64_t size) : kind(k), key(std::move(name)), bytes(size) {}
    Kind kind;
    std::string key;  ///< empty for buffers
    std::uint64_t bytes = 0;
    std::uint64_t used = 0;  ///< tick of the last use: orders the two lists' entries for eviction
    std::shared_ptr<CachedPlan> plan;
    std::shared_ptr<Program> program;
    std::shared_ptr<BindGroupSet> bind_groups;
    std::vector<std::uint64_t> pins;  ///< bind groups: the tokens of what they bind
    gpu::Buffer buffer;
  };
  using Lru = std::list<Entry>;

  std::shared_ptr<Program> find_program(const std::string& key);
  std::shared_ptr<Program> add_program(std::string_view owner, std::string key,
                                       std::shared_ptr<const plan::ProgramText> text, const std::string& label);
  void insert_program(std::string key, std::shared_ptr<Program> program);  // an entry for it; under mutex_
  Lru& list_of(Kind kind) { return kind == kPlan ? plans_lru_ : kind == kBuffer ? buffers_lru_ : lru_; }
  void insert(Entry entry);              // front of its LRU list, then evict past the budget
  void touch(Lru::iterator it);          // to the front of its list
  void evict(Lru::iterator it);          // out of every index, payload to the graveyard
  void evict_pinned(std::uint64_t token);  // the bind groups that bind `token`
  void enforce_budget();
  static std::uint64_t buffer_token(const void* id) { return reinterpret_cast<std::uintptr_t>(id); }
  static std::uint64_t program_token(std::uint64_t id) { return (id << 1) | 1; }  // buffer ids are even

  std::mutex mutex_;
  const std::uint64_t budget_;
  Lru lru_;          ///< programs and bind groups; front: most recently used
  Lru plans_lru_;    ///< plans (their own share of the budget, kPlanShare); front: most recently used
  Lru buffers_lru_;  ///< pooled buffers (their own share, kBufferShare); front: most recently pooled
  /// Emptied nodes of buffers taken from the pool, reused when a buffer comes back (no allocation per
  /// call); at most one per buffer alive.
  Lru spare_;
  std::uint64_t tick_ = 0;
  /// kPlan, kProgram, kBindGroup by key: views of the keys in the LRU's entries (list nodes do not move).
  std::unordered_map<std::string_view, Lru::iterator> index_[3];
  /// Cached programs by Program::id, so that a plan hit touches its programs without their keys.
  std::unordered_map<std::uint64_t, Lru::iterator> program_entries_;
  /// Free buffers by allocation size (a size's list stays when emptied by take_buffer).
  std::unordered_map<std::uint64_t, std::vector<Lru::iterator>> pool_;
  std::unordered_map<std::uint64_t, std::unordered_set<std::string>> pinned_by_;  ///< token -> bind group keys
  /// Programs evicted while a batch holds them (Program::batch_holds), by key: found again, not counted.
  std::unordered_map<std::string, std::shared_ptr<Program>> held_;
  std::uint64_t bytes_[kKinds] = {};
  std::size_t entries_[kKinds] = {};
  std::uint64_t next_plan_id_ = 1, next_program_id_ = 1;
  std::atomic<std::uint64_t> next_serial_{1};
  // Graveyard: evicted payloads, released by release_evicted() under the device mutex.
  std::vector<Entry> evicted_;
  // Counters.
  std::uint64_t plans_made_ = 0, renders_ = 0, compilations_ = 0, evictions_ = 0;
  std::size_t buffers_alive_ = 0;
  std::uint64_t buffer_bytes_alive_ = 0;
};

}  // namespace wgk::runtime
