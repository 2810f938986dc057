#pragma once
// Correctness cases as `wgk test` and `wgk run` use them: a package's test.json entries (inputs
// generated from a seed) and case folders of ../shared/cases (inputs and expected output in .npy).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reference/compare.h"
#include "wgk/kernel.h"

namespace wgk::cli {

struct Case {
  std::string name;
  std::string why;
  std::string kernel;  ///< package id (case folders name it; test.json cases take the package's)
  std::map<std::string, HostTensor, std::less<>> inputs;
  Attributes attrs;
  Attributes tunables;
  std::optional<HostTensor> expected;  ///< an oracle's y (case folders); else the CPU reference
  std::string expected_variant, expected_variant_without_f16;
  reference::Tolerance tolerance;
  std::string tolerance_why;
  std::string expected_error;  ///< a negative case: the error must contain this
};

struct CaseResult {
  bool passed = false;
  std::string variant;
  std::string message;  ///< why it failed, or the comparison summary
  double max_abs_error = 0, max_rel_error = 0;
};

/// Host tensors for the `inputs` object of a test.json or bench.json case (schema in docs/kernel-conventions.md):
/// `values` (int64), `randomInt` [lo, hi] (int64), else uniform random in [-1, 1) of `dtype` (or the
/// entry's own `dtype`), all from one std::mt19937_64 seeded with `seed`; `truncate` drops bytes (a
/// negative case). Throws wgk::Error (kContract) naming `where` and the key; more than `max_elements`
/// elements in one tensor is an error.
std::map<std::string, HostTensor, std::less<>> generate_inputs(const nlohmann::json& inputs, DType dtype,
                                                              std::uint64_t seed, const std::string& where,
                                                              std::int64_t max_elements);

/// Builds a case from one test.json entry (schema in docs/kernel-conventions.md). Throws wgk::Error
/// (kContract) naming `where` and the key on a malformed entry.
Case case_from_json(const nlohmann::json& entry, const std::string& where);
/// Reads a ../shared/cases folder: case.json + .npy inputs + expected y.
Case case_from_folder(const std::filesystem::path& folder);

/// Runs `c` on `kernel`, compares with c.expected or the CPU reference (in double), and checks the
/// variant (when given) and expected errors.
CaseResult run_case(const Kernel& kernel, const Case& c);

/// An attribute or tunable value from test.json/bench.json: integer, number, boolean (as 0/1) or string.
/// Throws wgk::Error (kContract) naming `where` for anything else.
AttributeValue attribute_from_json(const nlohmann::json& v, const std::string& where);

/// Parses a command-line `NAME=VALUE` (`--attr`, `--tunable`): an integer when VALUE is a decimal
/// integer, else a decimal number, else the string (so "0x10", "inf" and "nan" stay strings). Throws wgk::Error (kInvalidArgument) naming `option` without '=' or name.
std::pair<std::string, AttributeValue> parse_name_value(const std::string& spec, const std::string& option);

/// Every `spec` of a repeatable `option` parsed by parse_name_value; a name given twice is an error
/// (wgk::Error kInvalidArgument "--tunable ROW_ORDER is given twice").
Attributes parse_name_values(const std::vector<std::string>& specs, const std::string& option);

/// Attribute values as the reference takes them.
std::map<std::string, double, std::less<>> attrs_as_doubles(const Attributes& attrs);

}  // namespace wgk::cli
