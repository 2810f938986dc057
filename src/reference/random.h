#pragma once
// Draws for the random-case generators (src/reference/ops/): integers and doubles from our own mapping of
// std::mt19937_64's output (the standard distributions differ between standard libraries; this keeps a
// seed's cases the same everywhere).
#include <cstdint>
#include <random>

#include "wgk/tensor.h"

namespace wgk::reference {

/// An integer in [lo, hi] (lo <= hi).
std::int64_t pick(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi);
/// true or false, one half each.
bool coin(std::mt19937_64& rng);
/// A double uniform in [-1, 1) (52 random bits).
double uniform(std::mt19937_64& rng);
/// A float32/float16 tensor of `shape`, elements uniform in [-1, 1) rounded once to `dtype`.
HostTensor random_float(DType dtype, const Shape& shape, std::mt19937_64& rng);
/// An int64 tensor of `shape`, elements uniform in [lo, hi].
HostTensor random_int64(const Shape& shape, std::int64_t lo, std::int64_t hi, std::mt19937_64& rng);

}  // namespace wgk::reference
