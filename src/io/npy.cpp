#include "io/npy.h"

#include <cctype>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include "io/file_bytes.h"
#include "wgk/error.h"

namespace wgk::io {
namespace {

constexpr std::size_t kMagicSize = 6;
constexpr unsigned char kMagic[kMagicSize] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;
constexpr std::size_t kAlign = 64;  // numpy's ARRAY_ALIGN for the data start

[[noreturn]] void fail(std::string_view source, const std::string& what) {
  throw Error(ErrorKind::kIo, std::string(source) + ": " + what);
}

std::optional<DType> dtype_from_descr(std::string_view descr) {
  if (descr == "<f4") return DType::kFloat32;
  if (descr == "<f2") return DType::kFloat16;
  if (descr == "<i8") return DType::kInt64;
  if (descr == "<u4") return DType::kUInt32;
  return std::nullopt;
}

// The header is a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
// This parser accepts exactly the literals numpy writes there: strings, True/False, tuples of integers.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
  };

  Header parse() {
    Header h;
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (have_descr) bad("duplicate key 'descr'");
        if (peek() != '\'' && peek() != '"') bad("'descr' is not a simple dtype string (structured dtypes are not supported)");
        h.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) bad("duplicate key 'fortran_order'");
        h.fortran_order = boolean_literal();
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) bad("duplicate key 'shape'");
        h.shape = int_tuple();
        have_shape = true;
      } else {
        bad("unexpected key '" + key + "' (expected descr, fortran_order, shape)");
      }
      skip_space();
      if (peek() == ',') { ++pos_; continue; }
      skip_space();
      if (peek() != '}') bad("expected ',' or '}'");
    }
    expect('}');
    skip_space();
    if (pos_ != text_.size()) bad("unexpected text after the closing '}'");
    if (!have_descr || !have_fortran || !have_shape)
      bad("missing key(s):" + std::string(have_descr ? "" : " descr") + (have_fortran ? "" : " fortran_order") +
          (have_shape ? "" : " shape"));
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    // Control bytes of the header quoted as \xHH: a NUL would end the message there.
    std::string shown;
    for (const char ch : text_.substr(0, 200)) {
      const auto u = static_cast<unsigned char>(ch);
      if (u >= 0x20 || ch == '\n') {
        shown += ch;
      } else {
        static constexpr char kHex[] = "0123456789abcdef";
        shown += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
      }
    }
    fail(source_, "malformed .npy header at offset " + std::to_string(pos_) + ": " + what + " in header \"" + shown + "\"");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') bad("expected a quoted string");
    ++pos_;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') bad("escapes in strings are not supported");
      // A NUL or other control byte (numpy refuses such a header too) would cut the messages that quote the string.
      if (static_cast<unsigned char>(text_[pos_]) < 0x20) bad("a control byte in a string");
      ++pos_;
    }
    if (pos_ >= text_.size()) bad("unterminated string");
    std::string s(text_.substr(start, pos_ - start));
    ++pos_;
    return s;
  }
  bool boolean_literal() {
    if (text_.substr(pos_, 4) == "True") { pos_ += 4; return true; }
    if (text_.substr(pos_, 5) == "False") { pos_ += 5; return false; }
    bad("expected True or False");
  }
  std::int64_t int_literal() {
    if (peek() == '-') bad("negative dimension in 'shape'");
    if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("expected a non-negative integer");
    std::int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const int digit = peek() - '0';
      if (v > (INT64_MAX - digit) / 10) bad("dimension overflows int64");
      v = v * 10 + digit;
      ++pos_;
    }
    if (peek() == 'L') ++pos_;  // Python 2 long suffix, written by old numpy
    return v;
  }
  Shape int_tuple() {
    Shape shape;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      shape.push_back(int_literal());
      skip_space();
      if (peek() == ',') { ++pos_; continue; }
      if (peek() != ')') bad("expected ',' or ')' in 'shape'");
    }
    expect(')');
    return shape;
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

std::uint32_t read_le(std::span<const std::byte> bytes, std::size_t offset, std::size_t width) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= std::to_integer<std::uint32_t>(bytes[offset + i]) << (8 * i);
  return v;
}

std::string shape_tuple(const Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

std::string_view npy_descr(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "<f4";
    case DType::kFloat16: return "<f2";
    case DType::kInt64: return "<i8";
    case DType::kUInt32: return "<u4";
  }
  return "?";
}

namespace {

// The preamble and header of a .npy: the header dict and where the data starts.
struct Preamble {
  HeaderParser::Header header;
  std::size_t data_offset = 0;
};

Preamble read_preamble(std::span<const std::byte> bytes, std::string_view source) {
  if (bytes.size() < kMagicSize + 2)
    fail(source, "not a .npy file: " + std::to_string(bytes.size()) + " bytes, shorter than the 8-byte preamble");
  for (std::size_t i = 0; i < kMagicSize; ++i)
    if (std::to_integer<unsigned char>(bytes[i]) != kMagic[i]) fail(source, "not a .npy file: bad magic (expected \\x93NUMPY)");
  const int major = std::to_integer<int>(bytes[6]);
  const int minor = std::to_integer<int>(bytes[7]);
  std::size_t len_width = 0;
  if (major == 1 && minor == 0) len_width = 2;
  else if ((major == 2 || major == 3) && minor == 0) len_width = 4;
  else fail(source, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  const std::size_t prefix = kMagicSize + 2 + len_width;
  if (bytes.size() < prefix) fail(source, "truncated .npy preamble: " + std::to_string(bytes.size()) + " bytes, expected at least " + std::to_string(prefix));
  const std::size_t header_len = read_le(bytes, kMagicSize + 2, len_width);
  if (header_len > kMaxHeaderBytes)
    fail(source, ".npy header length " + std::to_string(header_len) + " exceeds the limit of " + std::to_string(kMaxHeaderBytes) + " bytes");
  if (header_len > bytes.size() - prefix)
    fail(source, "truncated .npy header: header length " + std::to_string(header_len) + " but only " +
                     std::to_string(bytes.size() - prefix) + " bytes follow the preamble");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + prefix), header_len);
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80) fail(source, "malformed .npy header: non-ASCII byte");
  return {HeaderParser(text, source).parse(), prefix + header_len};
}

// numpy's name of a simple descr, byte order aside: '<i4' int32, '|b1' bool, '>f8' float64; else the descr.
std::string dtype_name_of_descr(const std::string& d) {
  if (d.size() < 3 || (d[0] != '<' && d[0] != '>' && d[0] != '|' && d[0] != '=')) return d;
  const std::string bytes = d.substr(2);
  if (bytes.size() > 2 || bytes.find_first_not_of("0123456789") != std::string::npos) return d;
  const std::string bits = std::to_string(std::stoi(bytes) * 8);
  switch (d[1]) {
    case 'f': return "float" + bits;
    case 'i': return "int" + bits;
    case 'u': return "uint" + bits;
    case 'c': return "complex" + bits;
    case 'b': return bytes == "1" ? "bool" : d;
    default: return d;
  }
}

}  // namespace

std::string read_npy_dtype_name(const std::filesystem::path& path, bool* big_endian) {
  std::ifstream in = open_file(path);
  std::vector<std::byte> head(kMagicSize + 2 + 4 + kMaxHeaderBytes);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const std::string descr = read_preamble(head, path.string()).header.descr;
  if (big_endian) *big_endian = !descr.empty() && descr[0] == '>';
  return dtype_name_of_descr(descr);
}

HostTensor decode_npy(std::span<const std::byte> bytes, std::string_view source) {
  const auto [header, data_offset] = read_preamble(bytes, source);
  const std::optional<DType> dtype = dtype_from_descr(header.descr);
  if (!dtype) {
    const std::string& d = header.descr;
    const std::string name = dtype_name_of_descr(d);
    std::string why = "unsupported .npy dtype '" + d + "'" + (name != d ? " (" + name + ")" : "");
    const bool big = !d.empty() && d[0] == '>';
    if (big) why += " (big-endian is not supported)";
    why += "; supported: '<f4' float32, '<f2' float16, '<i8' int64, '<u4' uint32, no conversion";
    // The byte order is the file's fault whatever it holds; which dtype to save instead is the input's type
    // constraint's to say (wgk contract PACKAGE lists them), not the reader's.
    if (big) why += "; save x.astype(x.dtype.newbyteorder('<')) instead";
    else why += "; an input's allowed dtypes are its type constraint's (wgk contract PACKAGE)";
    fail(source, why);
  }
  if (header.fortran_order)
    fail(source, "fortran_order True is not supported (only C order), shape " + shape_string(header.shape) +
                     "; save np.ascontiguousarray(x) instead");

  std::int64_t count = 0;
  try {
    count = numel(header.shape);
  } catch (const Error& e) {
    fail(source, std::string(".npy shape: ") + e.what());
  }
  const std::size_t available = bytes.size() - data_offset;
  const std::size_t element = dtype_size(*dtype);
  // count <= 2^62 (numel's bound) but count * element may not fit 64 bits: compare by division first.
  const auto ucount = static_cast<std::uint64_t>(count);
  const bool truncated = ucount > available / element || ucount * element > available;
  if (truncated || ucount * element != available) {
    const std::string expected = ucount <= UINT64_MAX / element ? std::to_string(ucount * element)
                                                                : std::to_string(ucount) + " * " + std::to_string(element);
    fail(source, std::string(truncated ? "truncated .npy data" : "trailing bytes after .npy data") + ": shape " +
                     shape_string(header.shape) + " of '" + header.descr + "' needs " + expected +
                     " data bytes, found " + std::to_string(available));
  }
  HostTensor t{*dtype, header.shape, {}};
  t.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_offset), bytes.end());
  return t;
}

HostTensor read_npy(const std::filesystem::path& path) {
  return decode_npy(read_file_bytes(path), path.string());
}

std::vector<std::byte> encode_npy(const HostTensor& tensor) {
  const std::int64_t count = numel(tensor.shape);
  if (tensor.data.size() != static_cast<std::size_t>(count) * dtype_size(tensor.dtype))
    throw Error(ErrorKind::kInvalidArgument, "encode_npy: tensor of shape " + shape_string(tensor.shape) + " and dtype " +
                                                 std::string(dtype_name(tensor.dtype)) + " needs " +
                                                 std::to_string(count * static_cast<std::int64_t>(dtype_size(tensor.dtype))) +
                                                 " data bytes, has " + std::to_string(tensor.data.size()));
  std::string header = "{'descr': '" + std::string(npy_descr(tensor.dtype)) +
                       "', 'fortran_order': False, 'shape': " + shape_tuple(tensor.shape) + ", }";
  // Pad with spaces and end with '\n' so the data starts at a multiple of kAlign.
  std::size_t len_width = 2;
  std::uint8_t major = 1;
  std::size_t total = kMagicSize + 2 + len_width + header.size() + 1;
  if ((total + kAlign - 1) / kAlign * kAlign - kMagicSize - 2 - len_width > 0xffff) {
    len_width = 4;
    major = 2;
    total = kMagicSize + 2 + len_width + header.size() + 1;
  }
  header.append((kAlign - total % kAlign) % kAlign, ' ');
  header.push_back('\n');

  std::vector<std::byte> out;
  out.reserve(kMagicSize + 2 + len_width + header.size() + tensor.data.size());
  for (unsigned char c : kMagic) out.push_back(std::byte{c});
  out.push_back(std::byte{major});
  out.push_back(std::byte{0});
  for (std::size_t i = 0; i < len_width; ++i) out.push_back(static_cast<std::byte>((header.size() >> (8 * i)) & 0xff));
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  out.insert(out.end(), tensor.data.begin(), tensor.data.end());
  return out;
}

void write_npy(const std::filesystem::path& path, const HostTensor& tensor) {
  write_file_bytes(path, encode_npy(tensor));
}

}  // namespace wgk::io
