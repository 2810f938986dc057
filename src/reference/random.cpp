#include "reference/random.h"

#include <vector>

#include "reference/rounding.h"

namespace wgk::reference {

std::int64_t pick(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}

bool coin(std::mt19937_64& rng) { return (rng() >> 63) != 0; }

double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0; }

HostTensor random_float(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  std::vector<double> values(static_cast<std::size_t>(numel(shape)));
  for (double& v : values) v = uniform(rng);
  return round_to_tensor(values, dtype, shape);
}

HostTensor random_int64(const Shape& shape, std::int64_t lo, std::int64_t hi, std::mt19937_64& rng) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(numel(shape)));
  for (auto& v : values) v = pick(rng, lo, hi);
  return HostTensor::from(DType::kInt64, shape, values);
}

}  // namespace wgk::reference
