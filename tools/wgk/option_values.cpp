#include "option_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "wgk/error.h"

namespace wgk::cli {
namespace {

// The shortest text that reads back as `v`, exponent without '+' or leading zeros: 1e-9, 1e9, 0.5, 10.
std::string number_text(double v) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  std::string text(buffer, ec == std::errc{} ? end : buffer);
  const auto e = text.find('e');
  if (e == std::string::npos) return text;
  std::string exponent = text.substr(e + 1);
  const bool negative = !exponent.empty() && exponent.front() == '-';
  if (!exponent.empty() && (exponent.front() == '-' || exponent.front() == '+')) exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return text.substr(0, e + 1) + (negative ? "-" : "") + exponent;
}

}  // namespace

bool is_decimal_integer(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

bool is_decimal_number(std::string_view text) {
  // The characters first: strtod alone would also read hex floats ("0x10" as 16) and "inf"/"nan" spellings.
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string_view::npos) return false;
  const std::string copy(text);
  char* end = nullptr;
  std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size();
}

double decimal_number(const std::string& text, const std::string& where) {
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(text.c_str(), &end);
  // ERANGE (C11 7.22.1.3): an overflow returns +-HUGE_VAL; an underflow a value of at most the smallest
  // normal's magnitude, kept when it is a nonzero subnormal, refused when the text's nonzero value became 0.
  if (errno == ERANGE && std::isinf(d))
    throw Error(ErrorKind::kInvalidArgument, where + ": " + text +
                                                 " is outside the range of a double (its largest finite magnitude is 1.7976931348623157e308)");
  if (errno == ERANGE && d == 0.0)
    throw Error(ErrorKind::kInvalidArgument, where + ": " + text +
                                                 " underflows a double: nonzero, but under the smallest positive double "
                                                 "(4.9406564584124654e-324), so it would be read as 0");
  return d;
}

CLI::Option* number_in(CLI::Option* option, double min, double max) {
  const std::string rule =
      std::isinf(max) ? "FLOAT >= " + number_text(min) : "FLOAT in [" + number_text(min) + ", " + number_text(max) + "]";
  option->type_name(rule);
  option->transform(CLI::Validator(
      [rule, min, max](std::string& text) -> std::string {
        if (!is_decimal_number(text))
          return "'" + text + "' is not " + rule + ": not a decimal number (digits, a sign, '.' and an exponent; no nan, inf or hex)";
        double value = 0;
        try {
          value = decimal_number(text, "'" + text + "' is not " + rule);
        } catch (const Error& e) {
          return e.what();
        }
        if (value < min) return "'" + text + "' is not " + rule + ": below " + number_text(min);
        if (value > max) return "'" + text + "' is not " + rule + ": above " + number_text(max);
        text = number_text(value);
        return {};
      },
      ""));
  return option;
}

CLI::Option* non_empty(CLI::Option* option) {
  option->check(CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "the value is empty (give one, or leave the option out)" : ""; },
      ""));
  return option;
}

std::filesystem::path output_folder(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string rule = " (" + option + " names a folder to write into, created when missing)";
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw Error(ErrorKind::kIo, option + " " + path + ": " + (fs::is_regular_file(status) ? "a file, not a folder" : "not a folder") + rule);
  fs::create_directories(path, ec);
  if (ec) throw Error(ErrorKind::kIo, option + " " + path + ": cannot create the folder: " + ec.message() + rule);
  return path;
}

std::filesystem::path output_file(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string rule = " (" + option + " names a file to write; its folder is created when missing)";
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(ErrorKind::kIo, option + " " + path + ": a folder, not a file" + rule);
  const fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) return path;
  const fs::file_status status = fs::status(folder, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw Error(ErrorKind::kIo, option + " " + path + ": its folder " + folder.string() + ": " +
                                    (fs::is_regular_file(status) ? "a file, not a folder" : "not a folder") + rule);
  fs::create_directories(folder, ec);
  if (ec) throw Error(ErrorKind::kIo, option + " " + path + ": cannot create its folder " + folder.string() + ": " + ec.message() + rule);
  return path;
}

}  // namespace wgk::cli
