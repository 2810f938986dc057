# The manifest loader's libFuzzer target (owned by the "contract" helper), included from
# tests/fuzz/CMakeLists.txt. As there, the library sources are compiled into the target so that
# they carry the coverage instrumentation. Run (new units go to the FIRST folder: keep it outside git):
#   mkdir -p /tmp/manifest-corpus
#   build-fuzz/tests/fuzz/fuzz_manifest /tmp/manifest-corpus tests/fuzz/corpus/manifest -max_total_time=120
file(GLOB WGK_FUZZ_CONTRACT_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/contract/*.cpp)
list(FILTER WGK_FUZZ_CONTRACT_SOURCES EXCLUDE REGEX "/plan[^/]*\\.cpp$")  # the Planner is not on the load path
file(GLOB WGK_FUZZ_MANIFEST_EXPR_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/expr/*.cpp)
add_executable(fuzz_manifest ${CMAKE_CURRENT_LIST_DIR}/fuzz_manifest.cpp ${WGK_FUZZ_CONTRACT_SOURCES}
               ${WGK_FUZZ_MANIFEST_EXPR_SOURCES} ${PROJECT_SOURCE_DIR}/src/core/tensor.cpp)
target_include_directories(fuzz_manifest PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(fuzz_manifest PRIVATE nlohmann_json::nlohmann_json)
target_compile_options(fuzz_manifest PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
target_link_options(fuzz_manifest PRIVATE -fsanitize=fuzzer,address,undefined)
