# The manifest loader's libFuzzer target (owned by the "contract" helper). Included from
# tests/fuzz/CMakeLists.txt when WGK_FUZZ is ON; the libraries it links should be compiled with
# -fsanitize=fuzzer-no-link (plus address,undefined) for coverage feedback.
add_executable(fuzz_manifest ${CMAKE_CURRENT_LIST_DIR}/fuzz_manifest.cpp)
target_compile_options(fuzz_manifest PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_options(fuzz_manifest PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_manifest PRIVATE wgk_contract)
