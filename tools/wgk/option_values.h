#pragma once
// The rules of wgk's option values, shared by every subcommand. Numbers, of every option and `--attr` value, are
// decimal only: an integer is digits 0-9 with an optional sign (no 0x, 0o or 0b prefix, separator or exponent:
// CLI11 2.1 reads "0x10" as 16 and "010" as 8, strtoll base 0); a number is what strtod reads from digits, a sign,
// '.' and an exponent (no hex float, inf or nan spelling), within a double's range.
#include <CLI/CLI.hpp>

#include <charconv>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>

namespace wgk::cli {

/// True when `text` is a decimal integer: an optional '+' or '-', then one or more digits 0-9, nothing else.
bool is_decimal_integer(std::string_view text);

/// True when `text` is written with only digits, signs, '.', 'e' and 'E' and strtod reads all of it
/// ("1", "-2.5", ".5", "1e-3"; not "0x1p3", "inf", "nan", "1,5" or " 1").
bool is_decimal_number(std::string_view text);

/// `text` (is_decimal_number must hold) as a double. Throws wgk::Error (kInvalidArgument) naming `where` and the
/// value when it is past a double's range ("1e999": its largest finite magnitude is 1.7976931348623157e308) or
/// nonzero but under the smallest positive double, 2^-1074, so read as 0 ("1e-400"); a subnormal such as 1e-310 is
/// kept (strtod's ERANGE, C11 7.22.1.3).
double decimal_number(const std::string& text, const std::string& where);

/// Makes `option` take a decimal integer in [min, max] (is_decimal_integer): the help shows the rule,
/// "INT in [min, max]", and a value breaking it is refused by CLI11 with the same text, naming the option and the
/// value, quoted ("--repeat: '0x10' is not INT in [0, 1000000]: not a decimal integer ..."; "--repeat: '' is not
/// ..."). -0 is 0 (for an unsigned T too). The value is handed to CLI11 rewritten in canonical decimal, so its own
/// conversion cannot read it in another base.
template <class T>
CLI::Option* integer_in(CLI::Option* option, T min, T max) {
  const std::string rule = "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  option->type_name(rule);
  option->transform(CLI::Validator(
      [rule, min, max](std::string& text) -> std::string {
        if (!is_decimal_integer(text))
          return "'" + text + "' is not " + rule + ": not a decimal integer (digits 0-9 with an optional sign)";
        // -0 is 0, for an unsigned T too (one rule with a signed one, which reads it as 0).
        const bool negative_zero = text.front() == '-' && text.find_first_not_of('0', 1) == std::string::npos;
        const char* begin = text.data() + (text.front() == '+' || negative_zero ? 1 : 0);
        const char* end = text.data() + text.size();
        T value{};
        const auto [stop, ec] = std::from_chars(begin, end, value);
        // Past T's range (or a sign on an unsigned T) is outside [min, max] too: below it when negative.
        const bool parsed = ec == std::errc{} && stop == end;
        if ((parsed && value < min) || (!parsed && text.front() == '-'))
          return "'" + text + "' is not " + rule + ": below " + std::to_string(min);
        if (!parsed || value > max) return "'" + text + "' is not " + rule + ": above " + std::to_string(max);
        text = std::to_string(value);
        return {};
      },
      ""));
  return option;
}

/// Makes `option` take a decimal number in [min, max] (is_decimal_number, then decimal_number), "FLOAT in [min,
/// max]" in the help and in the error ("--gpu-timeout-s: 'nan' is not FLOAT in [1e-9, 1e9]: not a decimal number
/// ..."); with max infinite the rule is "FLOAT >= min" and the value must still be finite.
CLI::Option* number_in(CLI::Option* option, double min, double max = std::numeric_limits<double>::infinity());

/// Makes `option` refuse an empty value, for an option whose empty default means "not given", so that '' is never
/// silently the default: "--plans: the value is empty (give one, or leave the option out)" (CLI11 names the option).
CLI::Option* non_empty(CLI::Option* option);

/// `path`, given to `option`, as a folder to write into: created with its parents when missing. Throws wgk::Error
/// (kIo) naming the option, the path and the rule when it exists and is not a folder ("--plans f.txt: a file, not a
/// folder (--plans names a folder to write into, created when missing)") or cannot be created (the system's reason).
std::filesystem::path output_folder(const std::string& option, const std::string& path);

/// `path`, given to `option`, as a file to write: its folder is created with its parents when missing (as
/// output_folder), before the work whose result it will hold. Throws wgk::Error (kIo) naming the option, the path
/// and the rule when the path is a folder, or its folder cannot be made ("--json d/x.json: its folder d: a file,
/// not a folder (--json names a file to write; its folder is created when missing)").
std::filesystem::path output_file(const std::string& option, const std::string& path);

}  // namespace wgk::cli
