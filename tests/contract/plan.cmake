# Planner tests (owned by the "plan" helper), included from tests/contract/CMakeLists.txt.
wgk_add_test(contract_plan plan_test.cpp)
# Rows of the signature grid are aggregates with trailing members left out on purpose.
target_compile_options(test_contract_plan PRIVATE -Wno-missing-field-initializers)
