#pragma once
// Correctness cases as `wgk test` and `wgk run` use them: a package's test.json entries (inputs
// generated from a seed) and case folders of ../shared/cases (inputs and expected output in .npy).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "reference/compare.h"
#include "reference/op.h"
#include "wgk/kernel.h"

namespace wgk::cli {

using Tensors = std::map<std::string, HostTensor, std::less<>>;

struct Case {
  std::string name;
  std::string why;
  std::string kernel;  ///< package id (case folders name it; test.json cases take the package's)
  Tensors inputs;      ///< by the names the case gives (contract or ONNX names)
  Attributes attrs;
  Attributes tunables;
  /// Expected outputs by output name (case folders' `expected`, test.json `expected`); empty: the op's CPU
  /// reference (src/reference/op.h) gives every output the call returns.
  reference::Results expected;
  /// The names of `expected` whose shape the case does not state (test.json without `outputShapes.<name>`): their
  /// shape is the one the contract infers for the call, and run_case checks the value count against it.
  std::set<std::string, std::less<>> expected_shape_from_call;
  std::string expected_variant, expected_variant_without_f16;
  reference::Tolerance tolerance;                                    ///< for every output ...
  std::map<std::string, reference::Tolerance, std::less<>> output_tolerances;  ///< ... unless named here
  std::string tolerance_why;
  std::map<std::string, Shape, std::less<>> output_shapes;  ///< what the call must return, when given
  std::map<std::string, DType, std::less<>> output_dtypes;
  std::string expected_error;  ///< a negative case: the error must contain this
  /// The optional outputs the call asks for (wgk::OutputNames): the names `expected` lists (case folders,
  /// test.json), else test.json's `outputs`; empty: the required outputs only.
  OutputNames outputs;
};

struct CaseResult {
  bool passed = false;
  std::string variant;
  std::string message;  ///< why it failed, or the comparison summary (one part per output)
  double max_abs_error = 0, max_rel_error = 0;  ///< over every compared output
};

/// The comparison of one output.
struct OutputComparison {
  std::string name;
  reference::Tolerance tolerance;
  reference::Comparison comparison;
};

/// `attrs` plus the contract's default of every attribute not given (INT, FLOAT and STRING defaults).
Attributes with_defaults(const contract::Contract& contract, Attributes attrs);

/// `inputs` keyed by the contract's input names: an ONNX name (`X`, `position_ids`) is replaced by the
/// argument name (`x`, `positionIds`); names the contract does not declare are kept (the call rejects them).
Tensors by_contract_names(const contract::Contract& contract, Tensors inputs);

/// The CPU reference of the kernel's op on `inputs` (contract names) with `attrs` (defaults filled in),
/// for `outputs`; nullopt when the op has no reference plug-in. Throws wgk::Error from the reference.
std::optional<reference::Results> reference_outputs(const contract::Contract& contract, const Tensors& inputs,
                                                   const Attributes& attrs, const std::vector<std::string>& outputs);

/// `names` (contract or ONNX output names, e.g. from `wgk run --output`) as the contract's output names.
/// Throws wgk::Error (kInvalidArgument) naming `where`, the unknown name and every declared output
/// (`y (output), invStdVar (inv_std_var) [optional], ...`), or naming an output asked for twice (by one name
/// or by both).
OutputNames output_names(const contract::Contract& contract, const std::vector<std::string>& names,
                         const std::string& where);

/// The names of a repeatable, comma-separated list option (`wgk run --output y,invStdVar --output x`), each
/// stripped of surrounding spaces ("y, invStdVar" is two names). Throws wgk::Error (kInvalidArgument) naming
/// `option` and the value for an empty name: an empty value, or a comma with no name before or after it.
std::vector<std::string> name_list(const std::vector<std::string>& values, const std::string& option);

/// Reads the .npy `file` given for `input` (a contract or ONNX name), first refusing it when its dtype (numpy's
/// name: io::read_npy_dtype_name) is not one the input's type constraint allows (the contract's rule, ONNX's type
/// of the input, e.g. M = int64 for position_ids), including dtypes wgk holds no tensor of, or when it is stored
/// big-endian. The C++ API also takes uint32 for an int64 input that the runtime narrows to uint32 (the caller
/// narrowed it, plan/boundary.h); a file holds ONNX data and gets no such allowance. Throws wgk::Error
/// (kInvalidArgument) "<source>: input positionIds (position_ids): dtype int32 is not allowed for type M
/// (allowed: int64)", or "...: dtype int64 stored big-endian: save it little-endian, ... (type M allows int64,
/// little-endian)". An input the contract does not declare is refused before the file is opened ("<source>:
/// unknown input 'foo'; expected inputs: ..."), and a folder as `file` is refused naming the input ("<source>: input
/// x: a folder, not a file (an input file is a .npy file, or a .safetensors file holding named tensors)"). The .npy
/// reader's errors (kIo: a missing file, not a .npy, a truncated one), which name the file, are thrown naming the
/// input too: "<source>: input x (X): <file>: <the reader's message>".
HostTensor read_input_npy(const contract::Contract& contract, const std::string& input, const std::filesystem::path& file,
                          const std::string& source);

/// Reads every tensor of the .safetensors `file` (names: contract or ONNX input names), first refusing one whose
/// dtype (from the header: io::read_safetensors_dtype_names) its input's type constraint does not allow, as
/// read_input_npy does: "<source> tensor 'position_ids': input positionIds (position_ids): dtype int32 is not
/// allowed for type M (allowed: int64)"; a tensor no input of the contract is named is refused first, as by
/// read_input_npy, and a folder before either ("<source>: a .safetensors file of named inputs: a folder, not a
/// file (...)"). Other faults are io::read_safetensors's (kIo, naming the file).
Tensors read_input_safetensors(const contract::Contract& contract, const std::filesystem::path& file,
                               const std::string& source);

/// Refuses a test.json or bench.json case `entry` (`where`: "<id>: test.json: cases[i]"; `wgk test`, `wgk bench` and
/// `wgk validate` call it) whose `inputs.<name>.dtype` its input's type constraint does not allow, as
/// read_input_npy refuses a file: a case holds ONNX data, so uint32 for
/// positionIds (type M: int64) is refused though the C++ API takes it, and int32 gets the rule, not "unknown
/// dtype". Throws wgk::Error (kInvalidArgument) "<where> (<case>).inputs.positionIds: input positionIds
/// (position_ids): dtype uint32 is not allowed for type M (allowed: int64)". Entries without a string `dtype`, and
/// inputs the contract does not declare or of a fixed dtype, are left to case_from_json and the call.
void check_case_input_dtypes(const contract::Contract& contract, const nlohmann::json& entry, const std::string& where);

/// Compares every output of `expected` (values in double, e.g. a CPU reference) with the same-named tensor of
/// `actual`. Expected values are first rounded to the actual output's floating dtype, as a correct kernel's
/// store rounds (a true value past the dtype's range is its infinity; one below its smallest subnormal is 0).
/// An expected output missing from `actual`, or of another shape, is a failed comparison with that message.
std::vector<OutputComparison> compare_outputs(const Tensors& actual, const reference::Results& expected,
                                              const std::function<reference::Tolerance(const std::string&)>& tolerance,
                                              std::string* problems);

/// Host tensors for the `inputs` object of a test.json or bench.json case (schema in docs/kernel-conventions.md):
/// `values` and `randomInt` [lo, hi] of integers (int64, or the entry's own integer `dtype`, uint32; `values` with
/// a float `dtype` are rounded to it), else uniform random in [-1, 1) of `dtype` (or the entry's own `dtype`),
/// all from one std::mt19937_64 seeded with `seed`; `truncate` drops bytes (a negative case). Throws wgk::Error
/// (kContract) naming `where` and the key; every integer field is checked against its range, naming the field,
/// the range and the value: a shape's dimension [0, 2^63 - 1], an integer value and a `randomInt` bound the
/// dtype's (int64 [-2^63, 2^63 - 1], uint32 [0, 2^32 - 1]), `truncate` [0, the tensor's bytes]: "<where>.x.shape[1]:
/// -2 is not an integer in [0, 9223372036854775807], a dimension's range (>= 0, an int64)" (a JSON float such as
/// 1.0, a boolean or text is refused the same way). More than `max_elements` elements in one tensor is an error.
Tensors generate_inputs(const nlohmann::json& inputs, DType dtype,
                                                              std::uint64_t seed, const std::string& where,
                                                              std::int64_t max_elements);

/// Builds a case from one test.json entry (schema in docs/kernel-conventions.md; `expected` holds output
/// values, `outputShapes` their shapes; an output without one gets the shape the call infers, in run_case;
/// `seed` an integer in [0, 2^64 - 1], default 1, refused naming `<where> (<case>).seed` otherwise, as
/// generate_inputs refuses an integer field).
/// Throws wgk::Error (kContract) naming `where` and the key on a malformed entry, e.g. a value count that is
/// not the product of the stated `outputShapes` entry, or a `tolerance` bound (abs, rel, per output) that is not
/// a finite number >= 0 ("<where> (<case>).tolerance.abs: a tolerance must be a finite number >= 0, got -1").
Case case_from_json(const nlohmann::json& entry, const std::string& where);
/// Reads a case folder (../shared/cases/README.md "The format, for any op"): case.json, .npy inputs, every
/// output `expected` names, `tolerance` (with per-output `outputs`; each bound a finite number >= 0, else an error
/// naming the case and the field, as case_from_json), `output_shapes`, `output_dtypes`. Each input
/// file is read by read_input_npy against the contract of the case's `kernel`, which `contract_of` gives (it may
/// load the package, throwing as it does).
Case case_from_folder(const std::filesystem::path& folder,
                      const std::function<const contract::Contract&(const std::string& kernel)>& contract_of);

/// Runs `c` on `kernel`, compares every output c.expected names (else every output the call returns, against
/// the op's CPU reference in double), checks output_shapes/dtypes, the variant (when given) and expected errors.
/// A case with neither expected outputs nor a reference plug-in fails saying so; an expected output the op does
/// not have fails listing its outputs; one of c.expected_shape_from_call whose value count is not the element
/// count of the shape the contract inferred fails naming both ("expected.y: 4 values for output y's shape [2, 3]").
CaseResult run_case(const Kernel& kernel, const Case& c);

/// An attribute or tunable value from test.json/bench.json/case.json: integer, number, string, or a list of
/// integers (INTS), of numbers with a non-integer among them (FLOATS) or of strings (STRINGS); an empty list is
/// INTS. Throws wgk::Error (kContract) naming `where` for anything else, a boolean too ("<where>: true is a JSON
/// boolean, which no ONNX attribute type holds ...; an INT flag is 0 or 1"), as the contract refuses a bool and
/// --attr reads "true" as text.
AttributeValue attribute_from_json(const nlohmann::json& v, const std::string& where);

/// Parses a command-line `NAME=VALUE` (`--attr`, `--tunable`): an integer when VALUE is a decimal
/// integer, else a decimal number, else the string (so "0x10", "inf" and "nan" stay strings); a list
/// in brackets, `NAME=[v1,v2,...]`, of such elements: all integers INTS, all numbers FLOATS, all text
/// STRINGS (mixed numbers and text: kInvalidArgument). Throws wgk::Error (kInvalidArgument) naming `option` without '=' or name,
/// and for a decimal number outside a double's range ("1e999", "-1e999") or that underflows to 0 ("1e-400"; a
/// subnormal such as 1e-310 is kept), naming the value (strtod's ERANGE, C11 7.22.1.3).
std::pair<std::string, AttributeValue> parse_name_value(const std::string& spec, const std::string& option);

/// Every `spec` of a repeatable, comma-separated `option` parsed by parse_name_value, a list's pieces
/// (split at its commas by the option's delimiter) joined again up to its ']'; a name given twice is an error
/// (wgk::Error kInvalidArgument "--tunable ROW_ORDER is given twice").
Attributes parse_name_values(const std::vector<std::string>& specs, const std::string& option);

/// Refuses a `specs` value (as parse_name_values joins them) that the contract's rule refuses for its attribute
/// (contract::attribute_value: the ONNX type, then the allowed values), naming the text as given: "--attr
/// num_heads=4.0: attribute 'num_heads': value 4.0 (float) is not an integer (ONNX INT attribute: AttributeProto.i,
/// an int64; ...)"; "=3.2e1" shows as 32.0, the value the contract sees. Checked on the text, which the contract
/// cannot see: a decimal integer past int64's range for an INT or an INTS element ("9223372036854775808" is read
/// as a double, which a FLOAT takes), refused for its range, not as a float. A FLOAT attribute takes "1". Names the
/// contract does not declare are left to the call's boundary. Throws wgk::Error (kInvalidArgument).
void check_attribute_options(const contract::Contract& contract, const std::vector<std::string>& specs,
                             const std::string& option);

/// As check_attribute_options, for `--tunable` values of a tunable whose default is an integer: a decimal integer
/// past int64's range is refused for its range ("--tunable WORKGROUP_SIZE=9223372036854775808: tunable
/// 'WORKGROUP_SIZE': value '9223372036854775808' is past int64's range ..."), not as the float it was read as. The
/// rest is the contract's rule at the call's boundary. Throws wgk::Error (kInvalidArgument).
void check_tunable_options(const contract::Contract& contract, const std::vector<std::string>& specs,
                           const std::string& option);

/// A contract value (an attribute default, an allowed value) as an attribute value: int, float, string
/// or a list of them (as attribute_from_json types a list).
/// Throws wgk::Error (kContract) for another kind.
AttributeValue attribute_from_value(const expr::Value& v);
/// An attribute value as text: 1, 0.5, 'tanh', [0, 2, 1, 3].
std::string attribute_text(const AttributeValue& v);

}  // namespace wgk::cli
