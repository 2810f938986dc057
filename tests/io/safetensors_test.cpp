// .safetensors read/write: round trips, a Python writer/reader built from the format's README (struct + json +
// numpy) as the outside oracle, and hand-made malformed headers.
#include "io/safetensors.h"

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "python_oracle.h"
#include "wgk/error.h"

namespace wgk::io {
namespace {

using ::testing::HasSubstr;
using test::ScratchDir;

// 8-byte little-endian length, the header text, then `buffer` bytes of 0xAB.
std::vector<std::byte> file_with(const std::string& header, std::size_t buffer) {
  std::vector<std::byte> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((header.size() >> (8 * i)) & 0xff));
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  out.insert(out.end(), buffer, std::byte{0xAB});
  return out;
}

void expect_io_error(const std::vector<std::byte>& bytes, const std::vector<std::string>& fragments) {
  try {
    decode_safetensors(bytes, "bad.safetensors");
    FAIL() << "no error; expected one containing " << ::testing::PrintToString(fragments);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("bad.safetensors"));
    for (const auto& f : fragments) EXPECT_THAT(e.what(), HasSubstr(f));
  }
}

std::map<std::string, HostTensor> sample() {
  std::map<std::string, HostTensor> m;
  m.emplace("x", HostTensor::from<float>(DType::kFloat32, {2, 2}, {0.5f, -1.f, 2.f, 8.f}));
  m.emplace("h", HostTensor::from<std::uint16_t>(DType::kFloat16, {3}, {0x3c00, 0xc000, 0x3800}));  // 1, -2, 0.5
  m.emplace("pos", HostTensor::from<std::int64_t>(DType::kInt64, {1, 2}, {-3, std::int64_t{1} << 40}));
  m.emplace("u", HostTensor::from<std::uint32_t>(DType::kUInt32, {}, {4000000000u}));
  m.emplace("empty", HostTensor::from<float>(DType::kFloat32, {0, 4}, {}));
  return m;
}

TEST(Safetensors, RoundTripsTensorsAndMetadata) {
  const auto tensors = sample();
  const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"note", "ünïcode \"quoted\""}};
  const std::vector<std::byte> bytes = encode_safetensors(tensors, metadata);
  std::uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), 8);
  EXPECT_EQ(header_len % 8, 0u) << "header padded to 8 bytes, as the reference writer does";
  const SafetensorsFile back = decode_safetensors(bytes, "memory");
  EXPECT_EQ(back.metadata, metadata);
  ASSERT_EQ(back.tensors.size(), tensors.size());
  for (const auto& [name, t] : tensors) {
    SCOPED_TRACE(name);
    const HostTensor& b = back.tensors.at(name);
    EXPECT_EQ(b.dtype, t.dtype);
    EXPECT_EQ(b.shape, t.shape);
    EXPECT_EQ(b.data, t.data);
  }
}

TEST(Safetensors, PythonReadsWhatWeWrite) {
  WGK_REQUIRE_NUMPY();
  ScratchDir dir("st_python_reads");
  write_safetensors(dir / "a.safetensors", sample(), {{"format", "pt"}});
  // The reader follows the format README: u64 LE length, JSON header, offsets relative to the buffer start.
  EXPECT_EQ(test::run_python(dir, R"(
raw = open(D + '/a.safetensors', 'rb').read()
(n,) = struct.unpack('<Q', raw[:8])
header = json.loads(raw[8:8 + n])
buf = raw[8 + n:]
assert header.pop('__metadata__') == {'format': 'pt'}
types = {'F32': '<f4', 'F16': '<f2', 'I64': '<i8', 'U32': '<u4'}
def get(name):
    e = header[name]
    b, end = e['data_offsets']
    return np.frombuffer(buf[b:end], dtype=types[e['dtype']]).reshape(e['shape'])
assert get('x').tolist() == [[0.5, -1.0], [2.0, 8.0]]
assert get('h').tolist() == [1.0, -2.0, 0.5]
assert get('pos').tolist() == [[-3, 1 << 40]]
assert get('u').tolist() == 4000000000
assert get('empty').shape == (0, 4)
assert sum(e['data_offsets'][1] - e['data_offsets'][0] for e in header.values()) == len(buf)
)"),
            0);
}

TEST(Safetensors, WeReadWhatPythonWrites) {
  WGK_REQUIRE_NUMPY();
  ScratchDir dir("st_python_writes");
  // Written from the format README, in an order other than ours (f16 first), with __metadata__ last.
  ASSERT_EQ(test::run_python(dir, R"(
arrays = {'b16': np.array([[1.0, 0.25]], dtype='<f2'), 'a32': np.array([3.5, -4.0, 1e-3], dtype='<f4')}
names = {'<f2': 'F16', '<f4': 'F32'}
header, buf = {}, b''
for k, a in arrays.items():
    header[k] = {'dtype': names[a.dtype.str], 'shape': list(a.shape), 'data_offsets': [len(buf), len(buf) + a.nbytes]}
    buf += a.tobytes()
header['__metadata__'] = {'source': 'python'}
text = json.dumps(header).encode()
open(D + '/p.safetensors', 'wb').write(struct.pack('<Q', len(text)) + text + buf)
)"),
            0);
  const SafetensorsFile f = read_safetensors(dir / "p.safetensors");
  EXPECT_EQ(f.metadata.at("source"), "python");
  const HostTensor& b16 = f.tensors.at("b16");
  EXPECT_EQ(b16.dtype, DType::kFloat16);
  EXPECT_EQ(b16.shape, (Shape{1, 2}));
  EXPECT_EQ(b16.element(1), 0.25);
  const HostTensor& a32 = f.tensors.at("a32");
  EXPECT_EQ(a32.shape, Shape{3});
  EXPECT_EQ(a32.element(0), 3.5);
  EXPECT_EQ(a32.element(2), static_cast<double>(1e-3f));
}

TEST(Safetensors, RejectsMalformedFiles) {
  const auto entry = [](const std::string& name, const std::string& dtype, const std::string& shape, int b, int e) {
    return "\"" + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": " + shape + ", \"data_offsets\": [" +
           std::to_string(b) + ", " + std::to_string(e) + "]}";
  };
  // Control: two F32 [2] tensors, 16 bytes.
  ASSERT_NO_THROW(decode_safetensors(file_with("{" + entry("a", "F32", "[2]", 0, 8) + ", " + entry("b", "F32", "[2]", 8, 16) + "}", 16), "ok"));

  expect_io_error(std::vector<std::byte>(5), {"shorter than the 8-byte header length"});
  auto huge = file_with("{}", 0);
  huge[7] = std::byte{0x01};  // length 2^56 + 2
  expect_io_error(huge, {"exceeds the limit"});
  auto past = file_with("{}", 0);
  past[0] = std::byte{100};
  expect_io_error(past, {"truncated .safetensors header", "header length 100"});
  expect_io_error(file_with("{\"a\": ", 0), {"not valid JSON"});
  expect_io_error(file_with("[1, 2]", 0), {"not a JSON object but array"});
  expect_io_error(file_with("{\"a\": {\"shape\": [2], \"data_offsets\": [0, 8]}}", 8), {"tensor 'a'", "\"dtype\" missing"});
  expect_io_error(file_with("{" + entry("a", "BF16", "[2]", 0, 4) + "}", 4), {"tensor 'a'", "unsupported dtype \"BF16\""});
  expect_io_error(file_with("{" + entry("a", "F32", "[-2]", 0, 8) + "}", 8), {"tensor 'a'", "not a non-negative integer"});
  expect_io_error(file_with("{" + entry("a", "F32", "[2]", 8, 0) + "}", 8), {"begin > end"});
  // Past the buffer: a file cut short.
  expect_io_error(file_with("{" + entry("a", "F32", "[4]", 0, 16) + "}", 12), {"tensor 'a'", "end 16 is past the data buffer of 12"});
  expect_io_error(file_with("{" + entry("a", "F32", "[3]", 0, 8) + "}", 8), {"tensor 'a'", "[3]", "span 8"});
  expect_io_error(file_with("{" + entry("a", "F32", "[2]", 0, 8) + ", " + entry("b", "F32", "[2]", 4, 12) + "}", 12),
                  {"'b'", "overlap tensor 'a'"});
  expect_io_error(file_with("{" + entry("a", "F32", "[2]", 0, 8) + ", " + entry("b", "F32", "[2]", 12, 20) + "}", 20),
                  {"[8, 12)", "hole before tensor 'b'"});
  expect_io_error(file_with("{" + entry("a", "F32", "[2]", 0, 8) + "}", 12), {"12 bytes", "cover only [0, 8)"});
  expect_io_error(file_with("{\"__metadata__\": {\"k\": 3}}", 0), {"__metadata__.k is not a string"});
  // A name given twice (nlohmann would keep the last entry; the safetensors crate refuses the file, issue #401).
  expect_io_error(file_with("{" + entry("x", "F32", "[2]", 0, 8) + ", " + entry("x", "F32", "[1]", 0, 4) + "}", 8),
                  {"names tensor 'x' twice"});
  expect_io_error(file_with("{" + entry("a", "F32", "[4611686018427387904, 4]", 0, 8) + "}", 8), {"tensor 'a'", "2^62"});
}

TEST(Safetensors, EveryTruncationOfAValidFileIsAnIoError) {
  const std::vector<std::byte> full = encode_safetensors(sample(), {{"k", "v"}});
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      decode_safetensors(std::span(full).first(n), "cut.safetensors");
      ADD_FAILURE() << "a " << n << "-byte prefix was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kIo) << e.what();
    }
  }
}

// The dtypes from the header alone, in numpy's names (the safetensors README's dtype list: F64, I32, BF16, BOOL,
// F8_E4M3), for dtypes read_safetensors refuses too; a file that cannot be opened is kIo naming it.
TEST(Safetensors, DtypeNamesFromTheHeader) {
  ScratchDir dir("dtype_names");
  const auto entry = [](const std::string& name, const std::string& dtype, const std::string& shape, int b, int e) {
    return "\"" + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": " + shape + ", \"data_offsets\": [" +
           std::to_string(b) + ", " + std::to_string(e) + "]}";
  };
  const std::string header = "{\"__metadata__\":{\"k\":\"v\"}," + entry("a", "F64", "[1]", 0, 8) + "," +
                             entry("b", "I32", "[1]", 8, 12) + "," + entry("c", "BF16", "[1]", 12, 14) + "," +
                             entry("d", "BOOL", "[2]", 14, 16) + "," + entry("e", "F8_E4M3", "[1]", 16, 17) + "," +
                             entry("f", "U8", "[1]", 17, 18) + "}";
  const std::vector<std::byte> bytes = file_with(header, 18);
  std::ofstream(dir / "t.safetensors", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const std::map<std::string, std::string> want = {{"a", "float64"}, {"b", "int32"}, {"c", "bfloat16"},
                                                   {"d", "bool"},    {"e", "F8_E4M3"}, {"f", "uint8"}};
  EXPECT_EQ(read_safetensors_dtype_names(dir / "t.safetensors"), want);
  try {
    read_safetensors_dtype_names(dir / "missing.safetensors");
    FAIL() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    EXPECT_THAT(e.what(), HasSubstr("missing.safetensors"));
  }
}

TEST(Safetensors, WriteRejectsBadTensors) {
  std::map<std::string, HostTensor> m;
  m.emplace("short", HostTensor::from<float>(DType::kFloat32, {4}, {1.f}));
  try {
    encode_safetensors(m);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("'short'"));
    EXPECT_THAT(e.what(), HasSubstr("needs 16"));
  }
  std::map<std::string, HostTensor> reserved;
  reserved.emplace("__metadata__", HostTensor::from<float>(DType::kFloat32, {1}, {1.f}));
  EXPECT_THROW(encode_safetensors(reserved), Error);
}

}  // namespace
}  // namespace wgk::io
