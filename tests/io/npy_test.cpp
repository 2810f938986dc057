// .npy read/write: the shared reference cases, round trips, numpy as the outside oracle in both directions,
// and hand-made malformed files.
#include "io/npy.h"

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "python_oracle.h"
#include "wgk/error.h"

namespace wgk::io {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using test::ScratchDir;

const std::filesystem::path kCases = std::filesystem::path(WGK_SHARED_DIR) / "cases";

std::vector<std::byte> bytes_of(std::string_view s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// A version 1.0 file with the given header text (not padded) followed by `data_bytes` zero bytes.
std::vector<std::byte> npy_v1(const std::string& header, std::size_t data_bytes) {
  std::string s = "\x93NUMPY";
  s += '\x01';
  s += '\x00';
  s += static_cast<char>(header.size() & 0xff);
  s += static_cast<char>(header.size() >> 8);
  s += header;
  s.append(data_bytes, '\0');
  return bytes_of(s);
}

// Asserts decode_npy throws kIo whose message contains the file name and every fragment.
void expect_io_error(const std::vector<std::byte>& bytes, const std::vector<std::string>& fragments) {
  try {
    decode_npy(bytes, "bad.npy");
    FAIL() << "no error; expected one containing " << ::testing::PrintToString(fragments);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("bad.npy"));
    for (const auto& f : fragments) EXPECT_THAT(e.what(), HasSubstr(f));
  }
}

TEST(Npy, ReadsEverySharedCaseWithTheShapesOfCaseJson) {
  int files = 0;
  for (const auto& folder : {"onnx-node", "ort-oracle"}) {
    for (const auto& entry : std::filesystem::directory_iterator(kCases / folder)) {
      const auto json = nlohmann::json::parse(std::ifstream(entry.path() / "case.json"));
      std::map<std::string, std::string> files_by_name = json["inputs"].get<std::map<std::string, std::string>>();
      files_by_name["y"] = json["expected"]["y"].get<std::string>();
      for (const auto& [name, file] : files_by_name) {
        SCOPED_TRACE(entry.path().filename().string() + "/" + file);
        const HostTensor t = read_npy(entry.path() / file);
        if (name == "y") {
          EXPECT_EQ(t.shape, json["shapes"]["x"].get<Shape>());  // y has x's shape
        } else {
          EXPECT_EQ(t.shape, json["shapes"][name].get<Shape>());
        }
        EXPECT_EQ(t.dtype, name == "positionIds" ? DType::kInt64 : DType::kFloat32);
        EXPECT_EQ(t.data.size(), static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype));
        ++files;
      }
    }
  }
  EXPECT_GE(files, 21 * 4);
}

TEST(Npy, CaseDataMatchesNumpyBytes) {
  WGK_REQUIRE_NUMPY();
  ScratchDir dir("case_bytes");
  const auto source = kCases / "onnx-node" / "test_rotary_embedding";
  for (const std::string name : {"x", "positionIds", "cos"}) {
    // numpy loads the file and dumps the raw C-order data; ours must be the same bytes.
    ASSERT_EQ(test::run_python(dir, "np.ascontiguousarray(np.load(" + ::testing::PrintToString((source / (name + ".npy")).string()) +
                                        ")).tofile(D + '/raw.bin')"),
              0);
    std::ifstream raw(dir / "raw.bin", std::ios::binary);
    std::vector<char> expected((std::istreambuf_iterator<char>(raw)), std::istreambuf_iterator<char>());
    const HostTensor t = read_npy(source / (name + ".npy"));
    ASSERT_EQ(t.data.size(), expected.size()) << name;
    EXPECT_EQ(std::memcmp(t.data.data(), expected.data(), expected.size()), 0) << name;
  }
}

TEST(Npy, RoundTripsEveryDtypeAndRank) {
  const std::vector<HostTensor> tensors = {
      HostTensor::from<float>(DType::kFloat32, {2, 3}, {1.5f, -2.f, 0.f, 3.25f, -0.f, 1e30f}),
      HostTensor::from<std::uint16_t>(DType::kFloat16, {3}, {0x3c00, 0xc000, 0x7e00}),
      HostTensor::from<std::int64_t>(DType::kInt64, {}, {-(std::int64_t{1} << 40)}),
      HostTensor::from<std::uint32_t>(DType::kUInt32, {1, 2, 1, 2}, {0u, 1u, 0xffffffffu, 7u}),
      HostTensor::from<float>(DType::kFloat32, {0, 5}, {}),
  };
  for (const HostTensor& t : tensors) {
    SCOPED_TRACE(shape_string(t.shape));
    const std::vector<std::byte> bytes = encode_npy(t);
    EXPECT_EQ((bytes.size() - t.data.size()) % 64, 0u) << "data starts 64-byte aligned, as numpy writes";
    const HostTensor back = decode_npy(bytes, "memory");
    EXPECT_EQ(back.dtype, t.dtype);
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.data, t.data);
  }
}

TEST(Npy, NumpyReadsWhatWeWrite) {
  WGK_REQUIRE_NUMPY();
  ScratchDir dir("numpy_reads");
  write_npy(dir / "f4.npy", HostTensor::from<float>(DType::kFloat32, {2, 3}, {1.5f, -2.f, 0.f, 3.25f, 100.f, -7.f}));
  write_npy(dir / "f2.npy", HostTensor::from<std::uint16_t>(DType::kFloat16, {3}, {0x3c00, 0xc000, 0x3800}));  // 1, -2, 0.5
  write_npy(dir / "i8.npy", HostTensor::from<std::int64_t>(DType::kInt64, {}, {-(std::int64_t{1} << 40)}));
  write_npy(dir / "u4.npy", HostTensor::from<std::uint32_t>(DType::kUInt32, {2, 1, 2}, {0u, 1u, 0xffffffffu, 7u}));
  write_npy(dir / "empty.npy", HostTensor::from<float>(DType::kFloat32, {0, 5}, {}));
  EXPECT_EQ(test::run_python(dir, R"(
def check(name, descr, shape, values):
    a = np.load(D + '/' + name, allow_pickle=False)
    assert a.dtype.str == descr, (name, a.dtype.str)
    assert a.shape == shape, (name, a.shape)
    assert not np.isfortran(a) or a.ndim < 2
    assert a.tolist() == values, (name, a.tolist())
check('f4.npy', '<f4', (2, 3), [[1.5, -2.0, 0.0], [3.25, 100.0, -7.0]])
check('f2.npy', '<f2', (3,), [1.0, -2.0, 0.5])
check('i8.npy', '<i8', (), -(1 << 40))
check('u4.npy', '<u4', (2, 1, 2), [[[0, 1]], [[4294967295, 7]]])
check('empty.npy', '<f4', (0, 5), [])
)"),
            0);
}

TEST(Npy, WeReadWhatNumpyWritesInAllThreeVersions) {
  WGK_REQUIRE_NUMPY();
  ScratchDir dir("numpy_writes");
  ASSERT_EQ(test::run_python(dir, R"(
np.save(D + '/f4.npy', np.array([[0.5, -1.0], [2.0, 8.0]], dtype='<f4'))
np.save(D + '/f2.npy', np.array([1.0, -2.0, 65504.0], dtype='<f2'))
np.save(D + '/i8.npy', np.array([[-3], [1 << 40]], dtype='<i8'))
np.save(D + '/u4.npy', np.array(4000000000, dtype='<u4'))
for v in [(1, 0), (2, 0), (3, 0)]:
    with open(D + '/v%d.npy' % v[0], 'wb') as f:
        np.lib.format.write_array(f, np.arange(6, dtype='<f4').reshape(3, 2), version=v)
)"),
            0);
  const HostTensor f4 = read_npy(dir / "f4.npy");
  EXPECT_EQ(f4.shape, (Shape{2, 2}));
  EXPECT_EQ(f4.element(1), -1.0);
  EXPECT_EQ(f4.element(3), 8.0);
  const HostTensor f2 = read_npy(dir / "f2.npy");
  EXPECT_EQ(f2.dtype, DType::kFloat16);
  EXPECT_EQ(f2.element(2), 65504.0);  // largest finite binary16
  const HostTensor i8 = read_npy(dir / "i8.npy");
  EXPECT_EQ(i8.shape, (Shape{2, 1}));
  EXPECT_EQ(i8.element(0), -3.0);
  EXPECT_EQ(i8.element(1), 1099511627776.0);
  const HostTensor u4 = read_npy(dir / "u4.npy");
  EXPECT_EQ(u4.shape, Shape{});
  EXPECT_EQ(u4.element(0), 4e9);
  for (const char* v : {"v1.npy", "v2.npy", "v3.npy"}) {
    const HostTensor t = read_npy(dir / v);
    EXPECT_EQ(t.shape, (Shape{3, 2})) << v;
    EXPECT_EQ(t.element(5), 5.0) << v;
  }
}

TEST(Npy, RejectsWhatNumpyWritesButWeDoNotSupport) {
  WGK_REQUIRE_NUMPY();
  ScratchDir dir("numpy_unsupported");
  ASSERT_EQ(test::run_python(dir, R"(
np.save(D + '/f8.npy', np.zeros((2,), dtype='<f8'))
np.save(D + '/i4.npy', np.zeros((2,), dtype='<i4'))
np.save(D + '/be.npy', np.zeros((2,), dtype='>f4'))
np.save(D + '/fortran.npy', np.asfortranarray(np.zeros((2, 3), dtype='<f4')))
)"),
            0);
  const auto expect = [&](const char* file, const std::vector<std::string>& fragments) {
    try {
      read_npy(dir / file);
      ADD_FAILURE() << file << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kIo);
      EXPECT_THAT(e.what(), HasSubstr(file));
      for (const auto& f : fragments) EXPECT_THAT(e.what(), HasSubstr(f)) << file;
    }
  };
  // numpy's name of the dtype; which dtype to save instead is the input's type constraint's, not the reader's
  // (before: "save x.astype(np.int64)" for any integer file, whatever input it was for).
  expect("f8.npy", {"unsupported .npy dtype '<f8' (float64)", "an input's allowed dtypes are its type constraint's"});
  expect("i4.npy", {"unsupported .npy dtype '<i4' (int32)", "an input's allowed dtypes are its type constraint's"});
  for (const char* file : {"f8.npy", "i4.npy"}) {
    try {
      read_npy(dir / file);
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), Not(HasSubstr("astype"))) << file;
    }
  }
  // The dtype as numpy names it, from the header alone (numpy's own names for these files).
  EXPECT_EQ(read_npy_dtype_name(dir / "f8.npy"), "float64");
  EXPECT_EQ(read_npy_dtype_name(dir / "i4.npy"), "int32");
  EXPECT_EQ(read_npy_dtype_name(dir / "be.npy"), "float32");  // byte order aside
  bool big_endian = false;
  EXPECT_EQ(read_npy_dtype_name(dir / "be.npy", &big_endian), "float32");
  EXPECT_TRUE(big_endian) << "be.npy's descr is '>f4'";
  EXPECT_EQ(read_npy_dtype_name(dir / "i4.npy", &big_endian), "int32");
  EXPECT_FALSE(big_endian) << "i4.npy's descr is '<i4'";
  expect("be.npy", {"'>f4'", "big-endian", "newbyteorder('<')"});
  expect("fortran.npy", {"fortran_order", "[2, 3]", "np.ascontiguousarray(x)"});
}

TEST(Npy, UnsupportedLayoutsSayHowToConvert) {
  // The same headers as numpy writes them (issue 15: the error names the fix), without numpy.
  expect_io_error(npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16), {"'<f8' (float64)", "type constraint"});
  expect_io_error(npy_v1("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 8), {"'<i4' (int32)", "type constraint"});
  expect_io_error(npy_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8), {"big-endian", "newbyteorder('<')"});
  expect_io_error(npy_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24), {"fortran_order", "np.ascontiguousarray(x)"});
}

TEST(Npy, DtypeNameFromTheHeader) {
  // numpy's names (numpy.dtype(descr).name) of the descrs, byte order aside; the data is not read: each file
  // holds a header only, no data bytes.
  ScratchDir dir("dtype_name");
  const std::vector<std::pair<std::string, std::string>> names = {
      {"<f4", "float32"}, {"<f2", "float16"}, {"<i8", "int64"}, {"<u4", "uint32"}, {"<i4", "int32"},
      {"<f8", "float64"}, {"|b1", "bool"},    {"|u1", "uint8"}, {">i8", "int64"}, {"<c8", "complex64"}};
  for (const auto& [descr, name] : names) {
    const auto bytes = npy_v1("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }", 0);
    std::ofstream(dir / "h.npy", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    EXPECT_EQ(read_npy_dtype_name(dir / "h.npy"), name) << descr;
  }
  EXPECT_THROW(read_npy_dtype_name(dir / "missing.npy"), Error);
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
  ASSERT_NO_THROW(decode_npy(npy_v1(good, 24), "good.npy"));  // 2 * 3 * 4 bytes: the control

  expect_io_error(bytes_of(std::string("\x93NUMPZ\x01\x00\x00\x00", 10)), {"bad magic"});
  expect_io_error(bytes_of("\x93NUM"), {"shorter than the 8-byte preamble"});
  auto v9 = npy_v1(good, 24);
  v9[6] = std::byte{9};
  expect_io_error(v9, {"unsupported .npy format version 9.0"});
  // Truncated data: 2 * 3 float32 need 24 bytes; 20 are present.
  expect_io_error(npy_v1(good, 20), {"truncated .npy data", "needs 24", "found 20"});
  expect_io_error(npy_v1(good, 28), {"trailing bytes", "needs 24", "found 28"});
  // Header length pointing past the end of the file.
  auto cut = npy_v1(good, 0);
  cut.resize(cut.size() - 10);
  expect_io_error(cut, {"truncated .npy header"});
  expect_io_error(npy_v1("{'descr': '<f4', 'shape': (2, 3), }", 24), {"malformed .npy header", "fortran_order"});
  expect_io_error(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 24), {"negative dimension"});
  expect_io_error(npy_v1("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3), }", 24), {"expected True or False"});
  expect_io_error(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 24), {"unexpected key 'x'"});
  expect_io_error(npy_v1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8), {"structured"});
  expect_io_error(npy_v1("not a dict", 0), {"malformed .npy header"});
  // A NUL in 'descr' (numpy refuses the header too): malformed, and the quoted header shows it as \x00 instead of
  // ending the message there (a breaker's finding).
  expect_io_error(npy_v1(std::string("{'descr': '<f4\0', 'fortran_order': False, 'shape': (2, 3), }", 60), 24),
                  {"a control byte in a string", "'<f4\\x00', 'fortran_order'"});
  expect_io_error(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0),
                  {"overflows int64"});
  // 2^31 * 2^31 elements: past numel's 2^62 bound, rejected before any size arithmetic.
  expect_io_error(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648, 4), }", 0),
                  {".npy shape"});
  // 2^40 float32 elements claimed, 8 bytes present: no allocation is attempted.
  expect_io_error(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", 8),
                  {"truncated .npy data", "needs 4398046511104", "found 8"});
}

TEST(Npy, EveryTruncationOfAValidFileIsAnIoError) {
  const std::vector<std::byte> full = encode_npy(HostTensor::from<float>(DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      decode_npy(std::span(full).first(n), "cut.npy");
      ADD_FAILURE() << "a " << n << "-byte prefix was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kIo) << e.what();
    }
  }
}

TEST(Npy, ReadNamesTheMissingFile) {
  try {
    read_npy("/nonexistent/dir/x.npy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("/nonexistent/dir/x.npy"), HasSubstr("cannot open")));
  }
}

TEST(Npy, WriteRejectsATensorWhoseDataDoesNotMatchItsShape) {
  const HostTensor t = HostTensor::from<float>(DType::kFloat32, {2, 3}, {1.f, 2.f});
  try {
    encode_npy(t);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("[2, 3]"), HasSubstr("needs 24"), HasSubstr("has 8")));
  }
}

}  // namespace
}  // namespace wgk::io
