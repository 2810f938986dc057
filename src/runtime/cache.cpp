// DeviceCache: plans, programs, bind groups and pooled buffers under one byte budget (see cache.h).
#include "runtime/cache.h"

#include <bit>

#include "wgk/error.h"

namespace wgk::runtime {

std::uint64_t allocation_size(std::uint64_t bytes) {
  if (bytes <= 256) return 256;
  // The octave [2^k, 2^(k+1)) is cut into quarters: 2^k * (1, 1.25, 1.5, 1.75).
  const int k = 63 - std::countl_zero(bytes - 1);  // 2^k <= bytes - 1 < 2^(k+1)
  const std::uint64_t quarter = std::uint64_t{1} << (k - 2);
  std::uint64_t size = std::uint64_t{1} << k;
  while (size < bytes) size += quarter;
  return size;
}

DeviceCache::DeviceCache(std::uint64_t budget) : budget_(budget) {}

DeviceCache::~DeviceCache() = default;

void DeviceCache::insert(Entry entry) {
  const Kind kind = entry.kind;
  if (kind != kBuffer) {  // the same key inserted twice (two threads planned one signature): the newer stays
    auto old = index_[kind].find(entry.key);
    if (old != index_[kind].end()) evict(old->second);
  }
  bytes_[kind] += entry.bytes;
  ++entries_[kind];
  entry.used = ++tick_;
  Lru& list = list_of(kind);
  if (kind == kBuffer && !spare_.empty()) {  // the node of a buffer taken from the pool earlier
    spare_.front() = std::move(entry);
    list.splice(list.begin(), spare_, spare_.begin());
  } else {
    list.push_front(std::move(entry));
  }
  auto it = list.begin();
  if (kind == kBuffer) {
    pool_[it->buffer.size()].push_back(it);
  } else {
    index_[kind].emplace(it->key, it);
    if (kind == kProgram) program_entries_.emplace(it->program->id, it);
    if (kind == kBindGroup)
      for (std::uint64_t token : it->pins) pinned_by_[token].insert(it->key);
  }
  enforce_budget();
}

void DeviceCache::touch(Lru::iterator it) {
  it->used = ++tick_;
  Lru& list = list_of(it->kind);
  list.splice(list.begin(), list, it);
}

void DeviceCache::evict(Lru::iterator it) {
  Entry& e = *it;
  bytes_[e.kind] -= e.bytes;
  --entries_[e.kind];
  ++evictions_;
  switch (e.kind) {
    case kBuffer: {
      auto& list = pool_[e.buffer.size()];
      std::erase(list, it);
      if (list.empty()) pool_.erase(e.buffer.size());
      break;
    }
    case kBindGroup:
      index_[kBindGroup].erase(e.key);
      for (std::uint64_t token : e.pins) {
        auto p = pinned_by_.find(token);
        if (p == pinned_by_.end()) continue;
        p->second.erase(e.key);
        if (p->second.empty()) pinned_by_.erase(p);
      }
      break;
    case kProgram:
      e.program->evicted = true;
      index_[kProgram].erase(e.key);
      program_entries_.erase(e.program->id);
      if (e.program->batch_holds > 0) held_.try_emplace(e.key, e.program);
      break;
    case kPlan:
      index_[kPlan].erase(e.key);
      break;
    case kKinds:
      break;
  }
  const Kind kind = e.kind;
  const std::uint64_t token =
      kind == kBuffer ? buffer_token(e.buffer.id()) : kind == kProgram ? program_token(e.program->id) : 0;
  evicted_.push_back(std::move(e));
  list_of(kind).erase(it);
  // What binds a buffer or a program that goes, goes with it: a cached bind group keeps neither alive.
  if (token) evict_pinned(token);
}

void DeviceCache::evict_pinned(std::uint64_t token) {
  auto p = pinned_by_.find(token);
  if (p == pinned_by_.end()) return;
  const std::vector<std::string> keys(p->second.begin(), p->second.end());
  for (const std::string& key : keys) {
    auto it = index_[kBindGroup].find(key);
    if (it != index_[kBindGroup].end()) evict(it->second);
  }
  pinned_by_.erase(token);
}

void DeviceCache::enforce_budget() {
  while (bytes_[kPlan] > budget_ / kPlanShare && !plans_lru_.empty()) evict(std::prev(plans_lru_.end()));
  while (bytes_[kBuffer] > budget_ / kBufferShare && !buffers_lru_.empty()) evict(std::prev(buffers_lru_.end()));
  auto total = [&] { return bytes_[kPlan] + bytes_[kProgram] + bytes_[kBindGroup] + bytes_[kBuffer]; };
  // Past the budget pooled buffers go first (an allocation to redo), then the least recently used of the
  // rest (a plan: tens of microseconds to redo; a program: a compile of milliseconds).
  while (total() > budget_ && !buffers_lru_.empty()) evict(std::prev(buffers_lru_.end()));
  while (total() > budget_) {
    // The least recently used of the two lists' oldest entries.
    Lru* oldest = nullptr;
    for (Lru* list : {&lru_, &plans_lru_})
      if (!list->empty() && (!oldest || list->back().used < oldest->back().used)) oldest = list;
    if (!oldest) break;
    evict(std::prev(oldest->end()));
  }
}

// ---- plans --------------------------------------------------------------------------------------

std::shared_ptr<CachedPlan> DeviceCache::find_plan(std::string_view key, std::vector<std::shared_ptr<Program>>* programs) {
  std::lock_guard lock(mutex_);
  auto it = index_[kPlan].find(key);
  if (it == index_[kPlan].end()) return nullptr;
  std::shared_ptr<CachedPlan> plan = it->second->plan;
  programs->clear();
  for (const auto& weak : plan->programs) {
    auto program = weak.lock();
    if (!program || program->evicted) {  // a program of this plan was evicted: plan (and render) again
      programs->clear();
      evict(it->second);
      return nullptr;
    }
    programs->push_back(std::move(program));
  }
  touch(it->second);
  // A plan hit is a use of its programs: without this, a program used only through its cached plan would
  // age out of the LRU under the buffers and bind groups of other calls and be compiled again.
  for (const auto& program : *programs) touch(program_entries_.at(program->id));
  return plan;
}

namespace {

// A plan's host bytes: kPlanBaseBytes (measured: the plan and its key, docs/PERF.md "Memory") and its
// passes' bindings with their uniform bytes.
std::uint64_t plan_bytes(const plan::Plan& planned) {
  std::uint64_t bytes = DeviceCache::kPlanBaseBytes;
  for (const auto& pass : planned.passes)
    for (const auto& b : pass.bindings) bytes += sizeof b + b.uniform.size();
  return bytes;
}

}  // namespace

std::shared_ptr<CachedPlan> DeviceCache::insert_plan(std::string key, std::shared_ptr<CachedPlan> plan) {
  std::uint64_t bytes = plan_bytes(*plan->plan) + key.size();
  bytes += plan->inputs.size() * sizeof(CachedPlan::Input) + plan->output_bytes.size() * 8 +
           plan->sources.size() * 4 + plan->uniforms.size();
  std::lock_guard lock(mutex_);
  plan->id = next_plan_id_++;
  ++plans_made_;
  Entry e{kPlan, std::move(key), bytes};
  e.plan = plan;
  insert(std::move(e));
  return plan;
}

void DeviceCache::count_fused(std::string_view key, const CachedPlan& plan, const CachedPlan::Fused& fused) {
  const std::uint64_t bytes = plan_bytes(*fused.plan) + fused.sources.size() * sizeof fused.sources[0] +
                              fused.uniforms.size();
  std::lock_guard lock(mutex_);
  auto it = index_[kPlan].find(key);
  if (it == index_[kPlan].end() || it->second->plan.get() != &plan) return;  // evicted: held by its callers only
  it->second->bytes += bytes;
  bytes_[kPlan] += bytes;
  enforce_budget();
}

// ---- programs -----------------------------------------------------------------------------------

std::shared_ptr<Program> DeviceCache::find_program(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_[kProgram].find(key);
  if (it != index_[kProgram].end()) {
    touch(it->second);
    return it->second->program;
  }
  auto held = held_.find(key);
  if (held == held_.end()) return nullptr;
  // Evicted while an unflushed batch uses it: in use, so cached again (counted), not compiled again.
  std::shared_ptr<Program> program = std::move(held->second);
  held_.erase(held);
  program->evicted = false;
  insert_program(key, program);
  return program;
}

void DeviceCache::insert_program(std::string key, std::shared_ptr<Program> program) {
  Entry e{kProgram, std::move(key), 0};
  e.bytes = e.key.size() + program->text->key.size() + program->text->wgsl.size() + kPipelineBytes;
  e.program = std::move(program);
  insert(std::move(e));
}

std::shared_ptr<Program> DeviceCache::add_program(std::string_view owner, std::string key,
                                                  std::shared_ptr<const plan::ProgramText> text,
                                                  const std::string& label) {
  std::lock_guard lock(mutex_);
  auto it = index_[kProgram].find(key);
  if (it != index_[kProgram].end()) {  // another thread made it meanwhile
    touch(it->second);
    return it->second->program;
  }
  auto program = std::make_shared<Program>();
  program->id = next_program_id_++;
  program->text = std::move(text);
  program->label = label;
  program->owner = owner;
  insert_program(std::move(key), program);
  return program;
}

std::shared_ptr<Program> DeviceCache::program(std::string_view owner, const std::string& text_key,
                                              const std::string& label, const std::function<std::string()>& render) {
  std::string key = std::string(owner) + text_key;
  if (auto found = find_program(key)) return found;
  auto text = std::make_shared<const plan::ProgramText>(plan::ProgramText{text_key, render()});
  {
    std::lock_guard lock(mutex_);
    ++renders_;
  }
  return add_program(owner, std::move(key), std::move(text), label);
}

std::shared_ptr<Program> DeviceCache::program(std::string_view owner, std::shared_ptr<const plan::ProgramText> text,
                                              const std::string& label) {
  std::string key = std::string(owner) + text->key;
  if (auto found = find_program(key)) return found;
  return add_program(owner, std::move(key), std::move(text), label);
}

const gpu::ComputePipeline& DeviceCache::pipeline(gpu::Device& gpu, Program& program) {
  if (!program.pipeline) {
    program.pipeline = std::make_shared<gpu::ComputePipeline>(gpu.create_compute_pipeline(program.text->wgsl, program.label));
    std::lock_guard lock(mutex_);
    ++compilations_;
  }
  return *program.pipeline;
}

void DeviceCache::hold(std::span<const std::shared_ptr<Program>> programs) {
  std::lock_guard lock(mutex_);
  for (const auto& program : programs) {
    if (!program) continue;
    ++program->batch_holds;
    // Evicted already (a budget of 0 evicts a program as it is cached): found by its key from now on.
    if (program->evicted) held_.try_emplace(program->owner + program->text->key, program);
  }
}

void DeviceCache::let_go(std::span<const std::shared_ptr<Program>> programs) {
  std::lock_guard lock(mutex_);
  for (const auto& program : programs) {
    if (!program || program->batch_holds == 0 || --program->batch_holds > 0 || !program->evicted) continue;
    auto held = held_.find(program->owner + program->text->key);
    if (held == held_.end() || held->second != program) continue;
    Entry e{kProgram, {}, 0};  // released by release_evicted, under the device mutex
    e.program = std::move(held->second);
    held_.erase(held);
    evicted_.push_back(std::move(e));
  }
}

// ---- bind groups --------------------------------------------------------------------------------

std::shared_ptr<BindGroupSet> DeviceCache::find_bind_groups(std::string_view key) {
  std::lock_guard lock(mutex_);
  auto it = index_[kBindGroup].find(key);
  if (it == index_[kBindGroup].end()) return nullptr;
  touch(it->second);
  return it->second->bind_groups;
}

void DeviceCache::insert_bind_groups(std::string key, std::shared_ptr<BindGroupSet> set,
                                     const std::vector<const void*>& buffers) {
  Entry e{kBindGroup, std::move(key), 0};
  e.bytes = e.key.size() + kBindGroupBytes * set->groups.size() + set->written.size();
  for (const auto& program : set->programs) e.pins.push_back(program_token(program->id));
  for (const void* id : buffers) e.pins.push_back(buffer_token(id));
  e.bind_groups = std::move(set);
  std::lock_guard lock(mutex_);
  for (const auto& program : e.bind_groups->programs)
    if (program->evicted) return;  // released by its caller, under the device mutex
  insert(std::move(e));
}

// ---- buffers ------------------------------------------------------------------------------------

gpu::Buffer DeviceCache::take_buffer(gpu::Device& gpu, std::uint64_t bytes, std::uint64_t max_size,
                                     std::string_view label) {
  std::uint64_t size = allocation_size(bytes);
  if (size > max_size) size = bytes;
  {
    std::lock_guard lock(mutex_);
    auto p = pool_.find(size);
    if (p != pool_.end() && !p->second.empty()) {
      Lru::iterator it = p->second.back();
      gpu::Buffer buffer = std::move(it->buffer);
      p->second.pop_back();  // the emptied list stays: the buffer comes back to it
      bytes_[kBuffer] -= it->bytes;
      --entries_[kBuffer];
      spare_.splice(spare_.begin(), buffers_lru_, it);  // its bind groups stay cached: the buffer lives on
      return buffer;
    }
  }
  gpu::Buffer buffer = gpu.create_buffer(size, gpu::BufferUsage::kStorage, label);
  std::lock_guard lock(mutex_);
  ++buffers_alive_;
  buffer_bytes_alive_ += size;
  return buffer;
}

void DeviceCache::give_back(gpu::Buffer buffer) {
  std::lock_guard lock(mutex_);
  Entry e{kBuffer, {}, buffer.size()};
  e.buffer = std::move(buffer);
  if (e.bytes > budget_ / kBufferShare) {  // would evict every other pooled buffer and then itself
    const std::uint64_t token = buffer_token(e.buffer.id());
    evicted_.push_back(std::move(e));
    evict_pinned(token);
    return;
  }
  insert(std::move(e));
}

void DeviceCache::release_evicted() {
  std::vector<Entry> dead;
  {
    std::lock_guard lock(mutex_);
    if (evicted_.empty()) return;
    dead.swap(evicted_);
    for (const Entry& e : dead) {
      if (e.kind != kBuffer) continue;
      --buffers_alive_;
      buffer_bytes_alive_ -= e.buffer.size();
    }
  }
  // Dawn releases here, outside the cache's mutex, under the caller's device mutex. A plan or program
  // still used by a call in flight lives on in that call and is released with it.
}

CacheStats DeviceCache::stats() {
  std::lock_guard lock(mutex_);
  CacheStats s;
  auto put = [&](CacheStats::Kind& k, Kind kind) {
    k.entries = entries_[kind];
    k.bytes = bytes_[kind];
  };
  put(s.plans, kPlan);
  put(s.programs, kProgram);
  put(s.bind_groups, kBindGroup);
  put(s.pooled_buffers, kBuffer);
  s.budget_bytes = budget_;
  s.cached_bytes = bytes_[kPlan] + bytes_[kProgram] + bytes_[kBindGroup] + bytes_[kBuffer];
  s.buffers_alive = buffers_alive_;
  s.buffer_bytes_alive = buffer_bytes_alive_;
  s.plans_made = plans_made_;
  s.renders = renders_;
  s.compilations = compilations_;
  s.evictions = evictions_;
  return s;
}

void DeviceCache::clear() {
  {
    std::lock_guard lock(mutex_);
    while (!plans_lru_.empty()) evict(std::prev(plans_lru_.end()));
    while (!lru_.empty()) evict(std::prev(lru_.end()));
    while (!buffers_lru_.empty()) evict(std::prev(buffers_lru_.end()));
    spare_.clear();
    for (auto& [key, program] : held_) {
      Entry e{kProgram, {}, 0};
      e.program = std::move(program);
      evicted_.push_back(std::move(e));
    }
    held_.clear();
  }
  release_evicted();
}

}  // namespace wgk::runtime
