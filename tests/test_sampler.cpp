// The clock and power sampler of the timed loops (common/harness/sampler.h), with fake
// readers in place of NVML.
#include "sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using ladder::harness::mean_of_known;
using ladder::harness::SampleSummary;
using ladder::harness::Sampler;

TEST(Sampler, MeanOfKnownSkipsUnknownReadings) {
    int n = -1;
    EXPECT_DOUBLE_EQ(mean_of_known({1500, 0, 1700, -1}, &n), 1600);
    EXPECT_EQ(n, 2);
    EXPECT_DOUBLE_EQ(mean_of_known({0, 0}, &n), 0);
    EXPECT_EQ(n, 0);
    EXPECT_DOUBLE_EQ(mean_of_known({}), 0);
}

// The mean of every reading taken while the sampler ran, not the last one: a clock that falls
// from 1980 to 1400 MHz partway through averages in between.
TEST(Sampler, AveragesTheReadingsTakenWhileItRuns) {
    std::atomic<int> reads{0};
    std::atomic<bool> late{false};
    std::vector<double> returned;  // written by the sampler's thread only, read after stop()
    Sampler sampler(
        [&] {
            const double mhz = late ? 1400.0 : 1980.0;
            returned.push_back(mhz);
            ++reads;
            return mhz;
        },
        [] { return 650.0; }, std::chrono::microseconds(500));
    sampler.start();
    while (reads < 10) std::this_thread::yield();
    late = true;
    const int early_reads = reads;
    while (reads < early_reads + 10) std::this_thread::yield();
    const SampleSummary s = sampler.stop();
    ASSERT_EQ(s.clock_samples, static_cast<int>(returned.size()));
    EXPECT_GE(s.clock_samples, 20);
    EXPECT_EQ(s.power_samples, s.clock_samples);
    EXPECT_DOUBLE_EQ(s.power_w, 650);
    double sum = 0;
    for (double v : returned) sum += v;
    EXPECT_NEAR(s.sm_clock_mhz, sum / returned.size(), 1e-9);
    EXPECT_GT(s.sm_clock_mhz, 1400);
    EXPECT_LT(s.sm_clock_mhz, 1980);
    // After stop, nothing is read any more, and a second stop summarizes nothing.
    const int after = reads;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(reads, after);
    EXPECT_EQ(sampler.stop().clock_samples, 0);
}

// A loop shorter than the period still has the sample taken at its start, and stop() does
// not wait out the period.
TEST(Sampler, ShortStretchHasOneSampleAndStopsAtOnce) {
    Sampler sampler([] { return 1755.0; }, [] { return 0.0; }, std::chrono::seconds(60));
    sampler.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const auto t0 = std::chrono::steady_clock::now();
    const SampleSummary s = sampler.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_EQ(s.clock_samples, 1);
    EXPECT_DOUBLE_EQ(s.sm_clock_mhz, 1755);
    // Without NVML every reading is 0: no sample, 0, and the harness falls back.
    EXPECT_EQ(s.power_samples, 0);
    EXPECT_DOUBLE_EQ(s.power_w, 0);
}

// Empty readers (nothing to sample) and a sampler never started.
TEST(Sampler, WithoutReadersOrStartSummarizesNothing) {
    Sampler none({}, {}, std::chrono::microseconds(100));
    none.start();
    const SampleSummary s = none.stop();
    EXPECT_EQ(s.clock_samples + s.power_samples, 0);
    Sampler idle([] { return 1.0; }, [] { return 1.0; }, std::chrono::microseconds(100));
    EXPECT_EQ(idle.stop().clock_samples, 0);
}
