// CPU tests of the CSV writer and the step executables' command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cli.h"
#include "csv.h"
#include "harness.h"  // timed_run_count

using namespace ladder;

TEST(Csv, HeaderHasTheColumnsThePlotsRead) {
    const std::string header = csv::header_line();
    EXPECT_EQ(header.rfind("step,name,M,N,K,ms,tflops,cublas_ms,cublas_tflops,speedup_vs_cublas,"
                           "device,sm_clock_mhz,cuda,driver,date",
                           0),
              0u)
        << header;
}

TEST(Csv, FormatsAndQuotes) {
    csv::Row r;
    r.step = 6;
    r.name = "warp_specialized:pingpong";
    r.M = 4096, r.N = 4096, r.K = 4096;
    r.ms = 0.25;
    r.tflops = 549.7558;
    r.device = "NVIDIA H100 80GB HBM3, \"SXM\"";
    r.date = "2026-11-22";
    const std::string line = csv::format_row(r);
    EXPECT_EQ(line.rfind("6,warp_specialized:pingpong,4096,4096,4096,0.25000,549.76,", 0), 0u) << line;
    EXPECT_NE(line.find("\"NVIDIA H100 80GB HBM3, \"\"SXM\"\"\""), std::string::npos) << line;
}

TEST(Csv, AppendWritesTheHeaderOnce) {
    char path[] = "/tmp/ladder_csv_testXXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    csv::Row r;
    r.step = 1;
    r.name = "naive";
    std::string error;
    ASSERT_TRUE(csv::append_rows(path, {r}, &error)) << error;
    ASSERT_TRUE(csv::append_rows(path, {r, r}, &error)) << error;
    std::ifstream in(path);
    std::string line;
    int lines = 0, headers = 0;
    while (std::getline(in, line)) {
        ++lines;
        if (line.rfind("step,", 0) == 0) ++headers;
    }
    std::remove(path);
    EXPECT_EQ(lines, 4);
    EXPECT_EQ(headers, 1);
}

TEST(Csv, RowsSayHowToReproduceThem) {
    const std::string header = csv::header_line();
    EXPECT_NE(header.find(",predicted_limiter,seed,runs,min_ms,max_ms,commit,inputs,power_w,tensor_clock_mhz"),
              std::string::npos) << header;
    csv::Row r;
    r.seed = 18446744073709551615ull;
    r.runs = 37;
    r.min_ms = 0.125;
    r.max_ms = 0.5;
    r.commit = "abc1234-dirty";
    r.power_w = 612.25;
    r.tensor_clock_mhz = 1702.4;
    const std::string line = csv::format_row(r);
    EXPECT_NE(line.find(",18446744073709551615,37,0.12500,0.50000,abc1234-dirty"), std::string::npos) << line;
    EXPECT_NE(line.find(",612.2,1702"), std::string::npos) << line;
}

TEST(Csv, RefusesToAppendToAFileOfOtherColumns) {
    char path[] = "/tmp/ladder_csv_testXXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    {
        std::ofstream old(path);
        old << "step,name,M,N,K,ms\n1,naive,1,1,8,0.1\n";
    }
    std::string error;
    EXPECT_FALSE(csv::append_rows(path, {csv::Row{}}, &error));
    EXPECT_NE(error.find("other columns"), std::string::npos) << error;
    std::remove(path);
}

TEST(Csv, ReportsAnUnwritablePath) {
    std::string error;
    EXPECT_FALSE(csv::append_rows("/nonexistent-dir/x.csv", {csv::Row{}}, &error));
    EXPECT_NE(error.find("/nonexistent-dir/x.csv"), std::string::npos);
}

namespace {
bool parse(std::initializer_list<const char*> args, cli::Options* o, std::string* error) {
    std::vector<const char*> argv = {"step-1"};
    argv.insert(argv.end(), args);
    return cli::parse(static_cast<int>(argv.size()), argv.data(), o, error);
}
}  // namespace

TEST(Cli, NoArgumentsChecksThenBenchmarksTheDefaultSets) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({}, &o, &error)) << error;
    EXPECT_TRUE(o.check);
    EXPECT_TRUE(o.bench);
    EXPECT_EQ(o.check_shapes.size(), cli::check_shapes().size());
    EXPECT_EQ(o.bench_shapes.size(), cli::default_bench_shapes().size());
    EXPECT_GE(o.min_runs, 20);
}

TEST(Cli, OneShapeIsAllThreeSizes) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({"--bench", "--m", "1000", "--n", "64", "--k", "72"}, &o, &error)) << error;
    EXPECT_FALSE(o.check);
    ASSERT_EQ(o.bench_shapes.size(), 1u);
    EXPECT_EQ(o.bench_shapes[0].M, 1000);
    EXPECT_EQ(o.bench_shapes[0].N, 64);
    EXPECT_EQ(o.bench_shapes[0].K, 72);
    // One or two of them would be a shape the user never chose (M x 4096 x 4096).
    EXPECT_FALSE(parse({"--bench", "--m", "1000", "--k", "72"}, &o, &error));
    EXPECT_NE(error.find("--m and --k without --n"), std::string::npos) << error;
    EXPECT_FALSE(parse({"--m", "64"}, &o, &error));
    EXPECT_NE(error.find("give --m, --n and --k together"), std::string::npos) << error;
}

TEST(Cli, SizesListAndNames) {
    std::vector<cli::Shape> shapes;
    std::string error;
    ASSERT_TRUE(cli::parse_sizes("512,1000x1992x2056", &shapes, &error)) << error;
    ASSERT_EQ(shapes.size(), 2u);
    EXPECT_EQ(shapes[0].N, 512);
    EXPECT_EQ(shapes[1].N, 1992);
    ASSERT_TRUE(cli::parse_sizes("quick", &shapes, &error));
    EXPECT_EQ(shapes.size(), cli::quick_bench_shapes().size());
}

// `bench` runs --sizes short: every family plot.py draws, 4096^3 for the ladder chart, and a
// budget that keeps step 01 at 4096^3 (5.5 s) and drops its 8192x4096x4096 (11 s).
TEST(Cli, ShortSetCoversTheFamiliesWithItsOwnBudget) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({"--sizes", "short"}, &o, &error)) << error;
    const std::vector<cli::Shape> shapes = cli::short_bench_shapes();
    ASSERT_EQ(o.bench_shapes.size(), shapes.size());
    auto has = [&](long long M, long long N, long long K) {
        return std::any_of(shapes.begin(), shapes.end(),
                           [&](const cli::Shape& s) { return s.M == M && s.N == N && s.K == K; });
    };
    EXPECT_TRUE(has(4096, 4096, 4096));
    EXPECT_TRUE(has(1000, 1992, 2056));
    EXPECT_TRUE(has(64, 4096, 4096));
    EXPECT_TRUE(has(8192, 4096, 4096));
    EXPECT_EQ(o.bench_budget_ms, 8000);
    EXPECT_LT(20 * 275.0, o.bench_budget_ms);  // step 01's 4096^3 launch on an H100 or H200
    EXPECT_GT(20 * 549.0, o.bench_budget_ms);  // and its 8192x4096x4096 launch
    ASSERT_TRUE(parse({}, &o, &error)) << error;
    EXPECT_EQ(o.bench_budget_ms, 20000);
    ASSERT_TRUE(parse({"--sizes", "4096"}, &o, &error)) << error;
    EXPECT_EQ(o.bench_budget_ms, 0);
}

TEST(Cli, VariantsSelectsTheComparedOnes) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({}, &o, &error)) << error;
    EXPECT_TRUE(cli::selects_variant(o, 7, "cg", false));  // all, as before
    ASSERT_TRUE(parse({"--variants", "compared"}, &o, &error)) << error;
    EXPECT_TRUE(cli::selects_variant(o, 7, "cluster2", true));
    EXPECT_TRUE(cli::selects_variant(o, 7, "cluster1", false));
    EXPECT_FALSE(cli::selects_variant(o, 7, "cg", false));
    EXPECT_TRUE(cli::selects_variant(o, 6, "pingpong", false));
    EXPECT_TRUE(cli::selects_variant(o, 5, "", true));
    ASSERT_TRUE(parse({"--variants", "default"}, &o, &error)) << error;
    EXPECT_TRUE(cli::selects_variant(o, 6, "cooperative", true));
    EXPECT_FALSE(cli::selects_variant(o, 6, "pingpong", false));
    ASSERT_TRUE(parse({"--variant", "pingpong"}, &o, &error)) << error;
    EXPECT_FALSE(cli::selects_variant(o, 6, "cooperative", true));
    EXPECT_TRUE(cli::selects_variant(o, 6, "pingpong", false));
    EXPECT_FALSE(parse({"--variants", "some"}, &o, &error));
    EXPECT_NE(error.find("all, compared or default"), std::string::npos) << error;
    EXPECT_FALSE(parse({"--variants", "compared", "--variant", "cg"}, &o, &error));
    EXPECT_NE(error.find("not both"), std::string::npos) << error;
}

TEST(Cli, RejectsBadArguments) {
    cli::Options o;
    std::string error;
    EXPECT_FALSE(parse({"--m", "0"}, &o, &error));
    EXPECT_NE(error.find("--m"), std::string::npos);
    EXPECT_FALSE(parse({"--k", "-8"}, &o, &error));
    EXPECT_FALSE(parse({"--n", "12abc"}, &o, &error));
    EXPECT_FALSE(parse({"--n"}, &o, &error));
    EXPECT_NE(error.find("needs a value"), std::string::npos);
    EXPECT_FALSE(parse({"--sizes", "4096x4096"}, &o, &error));
    EXPECT_FALSE(parse({"--sizes", "1x2x3x4"}, &o, &error));
    EXPECT_FALSE(parse({"--m", "64", "--sizes", "quick"}, &o, &error));
    EXPECT_FALSE(parse({"--runs", "5"}, &o, &error));
    EXPECT_FALSE(parse({"--reference", "fp64"}, &o, &error));
    EXPECT_FALSE(parse({"--frobnicate"}, &o, &error));
    EXPECT_NE(error.find("--frobnicate"), std::string::npos);
    EXPECT_FALSE(parse({"--reference", "cpu", "--sizes", "8192"}, &o, &error));
}

TEST(Cli, RejectsAKThatIsNotWholeSixteenByteRows) {
    cli::Options o;
    std::string error;
    for (const char* k : {"7", "12", "4"}) {
        EXPECT_FALSE(parse({"--k", k}, &o, &error)) << k;
        EXPECT_NE(error.find("multiple of 8"), std::string::npos) << error;
    }
    EXPECT_FALSE(parse({"--sizes", "64x64x12"}, &o, &error));
    EXPECT_NE(error.find("multiple of 8"), std::string::npos) << error;
    EXPECT_FALSE(parse({"--sizes", "100"}, &o, &error));  // a cube of K = 100
}

TEST(Cli, KeepsSizesToTheContractsCap) {
    cli::Options o;
    std::string error;
    EXPECT_TRUE(parse({"--m", "2147418112", "--n", "1", "--k", "8"}, &o, &error)) << error;
    EXPECT_FALSE(parse({"--m", "2147418113"}, &o, &error));
    EXPECT_NE(error.find("2147418112"), std::string::npos) << error;
    EXPECT_FALSE(parse({"--sizes", "64x2147483647x64"}, &o, &error));
}

TEST(Cli, SeedIsPlainDigits) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({"--seed", "18446744073709551615"}, &o, &error)) << error;
    EXPECT_EQ(o.seed, 18446744073709551615ULL);
    for (const char* bad : {" -1", "-1", "+1", " 1", "1 ", "", "18446744073709551616", "0x10"}) {
        EXPECT_FALSE(parse({"--seed", bad}, &o, &error)) << "'" << bad << "'";
        EXPECT_NE(error.find("--seed"), std::string::npos) << error;
    }
}

TEST(Cli, ReferenceIsCublasCpuOrGpu) {
    std::string error;
    cli::Options o;
    ASSERT_TRUE(parse({"--reference", "gpu", "--m", "3000", "--n", "3000", "--k", "1032"}, &o, &error)) << error;
    EXPECT_TRUE(o.gpu_reference);
    EXPECT_FALSE(o.cpu_reference);  // any size: the float64 GEMM runs on the GPU
    cli::Options c;
    ASSERT_TRUE(parse({"--reference", "cpu", "--sizes", "small"}, &c, &error)) << error;
    EXPECT_TRUE(c.cpu_reference);
    EXPECT_FALSE(c.gpu_reference);
    cli::Options d;
    ASSERT_TRUE(parse({"--reference", "cublas"}, &d, &error)) << error;
    EXPECT_FALSE(d.cpu_reference || d.gpu_reference);
    EXPECT_FALSE(parse({"--reference", "fp64"}, &d, &error));
    EXPECT_NE(error.find("cublas, cpu or gpu"), std::string::npos) << error;
}

TEST(Cli, RunsHaveAnUpperBound) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({"--runs", "1000"}, &o, &error)) << error;
    EXPECT_EQ(o.min_runs, 1000);
    EXPECT_FALSE(parse({"--runs", "100001"}, &o, &error));
    EXPECT_NE(error.find("100000"), std::string::npos) << error;
    // Every refused count names the one valid range.
    for (const char* runs : {"0", "19", "100001", "x"}) {
        EXPECT_FALSE(parse({"--runs", runs}, &o, &error)) << runs;
        EXPECT_NE(error.find("--runs must be from 20 (the median of fewer runs is noise) to 100000, not '" +
                             std::string(runs) + "'"),
                  std::string::npos)
            << error;
    }
}

// More runs than the ~0.3 s budget gives are honoured, never fewer (min_runs above the
// usual cap of 500 once made std::clamp's low bound exceed its high bound).
TEST(Timing, RunCountHonoursMinRuns) {
    EXPECT_EQ(ladder::harness::timed_run_count(0.001, 1000), 1000);
    EXPECT_EQ(ladder::harness::timed_run_count(0.001, 20), 500);
    EXPECT_EQ(ladder::harness::timed_run_count(100, 20), 20);
    EXPECT_EQ(ladder::harness::timed_run_count(1, 20), 300);
    EXPECT_EQ(ladder::harness::timed_run_count(0, 20), 500);
}

TEST(Cli, CpuReferenceSizeCheckDoesNotOverflow) {
    cli::Options o;
    std::string error;
    // 2e9 * 2e9 * 8 overflows a signed 64-bit product (and once wrapped to a negative).
    EXPECT_FALSE(parse({"--reference", "cpu", "--m", "2000000000", "--n", "2000000000", "--k", "8"}, &o, &error));
    EXPECT_NE(error.find("--reference cpu"), std::string::npos) << error;
    EXPECT_TRUE(parse({"--reference", "cpu", "--m", "1024", "--n", "1024", "--k", "2048"}, &o, &error)) << error;
    EXPECT_FALSE(parse({"--reference", "cpu", "--m", "1024", "--n", "1024", "--k", "2056"}, &o, &error));
}

TEST(Cli, EchoesBadInputAsPrintableText) {
    cli::Options o;
    std::string error;
    EXPECT_FALSE(parse({"--reference", "\xff\x01z"}, &o, &error));
    EXPECT_NE(error.find("'\\xff\\x01z'"), std::string::npos) << error;
    EXPECT_FALSE(parse({"--\xc3"}, &o, &error));
    EXPECT_NE(error.find("--\\xc3"), std::string::npos) << error;
}

TEST(Cli, GraphReplaysGoWithTheDefaultTiming) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({"--bench"}, &o, &error)) << error;
    EXPECT_FALSE(o.graph);
    ASSERT_TRUE(parse({"--bench", "--graph", "--sizes", "512x512x16384"}, &o, &error)) << error;
    EXPECT_TRUE(o.graph);
    EXPECT_FALSE(parse({"--bench", "--graph", "--regime", "cool"}, &o, &error));
    EXPECT_NE(error.find("--graph times the default alternating runs"), std::string::npos) << error;
}

TEST(Cli, RegimesAndTheirDefaultLengths) {
    cli::Options o;
    std::string error;
    ASSERT_TRUE(parse({"--bench", "--regime", "sustained"}, &o, &error)) << error;
    EXPECT_EQ(o.regime, "sustained");
    EXPECT_EQ(o.regime_seconds, 60);
    ASSERT_TRUE(parse({"--bench", "--regime", "cool", "--regime-seconds", "5"}, &o, &error)) << error;
    EXPECT_EQ(o.regime, "cool");
    EXPECT_EQ(o.regime_seconds, 5);
    ASSERT_TRUE(parse({"--bench"}, &o, &error)) << error;
    EXPECT_TRUE(o.regime.empty());
    EXPECT_FALSE(parse({"--regime", "warm"}, &o, &error));
    {
        // --inputs: uniform (the default, the power-capped regime) or zero (the clock's boost).
        cli::Options in;
        std::string why;
        ASSERT_TRUE(parse({"--bench"}, &in, &why)) << why;
        EXPECT_EQ(in.inputs, "uniform");
        ASSERT_TRUE(parse({"--bench", "--inputs", "zero"}, &in, &why)) << why;
        EXPECT_EQ(in.inputs, "zero");
        EXPECT_FALSE(parse({"--inputs", "ones"}, &in, &why));
        EXPECT_NE(why.find("--inputs must be uniform or zero, not 'ones'"), std::string::npos) << why;
    }
    EXPECT_NE(error.find("cool or sustained"), std::string::npos) << error;
    EXPECT_FALSE(parse({"--regime-seconds", "30"}, &o, &error));
    EXPECT_NE(error.find("goes with --regime"), std::string::npos) << error;
    EXPECT_FALSE(parse({"--regime", "sustained", "--regime-seconds", "0"}, &o, &error));
}
