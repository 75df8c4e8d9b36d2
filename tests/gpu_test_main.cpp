// main() of ladder_gpu_tests (and of an exercise build's ladder_gpu_tests_step<N>):
// GoogleTest's, plus the exit status CTest reads from a batch.
// tests/CMakeLists.txt runs the cases in a few processes (a --gtest_filter each), not one
// process per case, so CTest can no longer see a skip case by case. This exits with
//   77  (the batches' SKIP_RETURN_CODE) when every selected case skipped and none failed:
//       no GPU, or not one that can run the step; the reasons are printed, once each;
//   1   when the filter selects no case: a batch that checks nothing must not pass;
// and otherwise as GoogleTest does (0 when nothing failed, a case that skipped beside cases
// that ran included; 1 on a failure, whose case, shape included, GoogleTest names).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace {

constexpr int kExitSkip = 77;
#ifdef LADDER_GPU_TESTS_STEP
#define LADDER_STRING(x) #x
#define LADDER_NAME(n) "ladder_gpu_tests_step" LADDER_STRING(n)
constexpr const char* kExecutable = LADDER_NAME(LADDER_GPU_TESTS_STEP);
#else
constexpr const char* kExecutable = "ladder_gpu_tests";
#endif

// The message of each skipped case's GTEST_SKIP, with how many cases gave it.
std::map<std::string, int> skip_reasons() {
    std::map<std::string, int> reasons;
    const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
    for (int i = 0; i < unit.total_test_suite_count(); ++i) {
        const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
        for (int j = 0; j < suite.total_test_count(); ++j) {
            const ::testing::TestResult& result = *suite.GetTestInfo(j)->result();
            if (!result.Skipped()) continue;
            std::string why = "(no reason given)";
            for (int k = 0; k < result.total_part_count(); ++k)
                if (result.GetTestPartResult(k).skipped()) {
                    why = result.GetTestPartResult(k).message();
                    break;
                }
            ++reasons[why];
        }
    }
    return reasons;
}

}  // namespace

int main(int argc, char** argv) {
    // Listing runs no case: GoogleTest's own answer.
    bool listing = false;
    for (int i = 1; i < argc; ++i) listing = listing || std::strcmp(argv[i], "--gtest_list_tests") == 0;
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    if (listing || rc != 0) return rc;
    const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
    if (unit.test_to_run_count() == 0) {
        std::printf("FAIL: --gtest_filter selects no case of %s\n", kExecutable);
        return 1;
    }
    if (unit.successful_test_count() == 0 && unit.skipped_test_count() > 0) {
        for (const auto& [why, count] : skip_reasons())
            std::printf("SKIP: %s (%d case%s)\n", why.c_str(), count, count == 1 ? "" : "s");
        return kExitSkip;
    }
    return rc;
}
