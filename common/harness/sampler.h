// sampler.h: the SM clock and board power over a stretch of GPU work, sampled from a
// background thread while the host waits for that work. A benchmark row's NVML clock is the
// mean of the samples taken while its timed loop ran, not one reading after it: under the
// power limit the clock moves while a loop runs (the limiter overshoots, then settles over
// seconds), and one reading catches it wherever it happens to be. NVML refreshes what it
// reports about every 0.1 s (measured on the H200), so the first samples of a loop still describe the board before
// it; the clock the SMs run tensor-core work at is the witness's (harness.h, Timing).
// Plain C++: the readers are functions, NVML's in the harness (harness.cu), fakes in the tests.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ladder::harness {

// What the samples of one stretch give. A reader that returns 0 or less (unknown: no NVML,
// no such GPU) contributes nothing; a quantity with no sample at all stays 0.
struct SampleSummary {
    double sm_clock_mhz = 0;  // mean of the clock samples
    double power_w = 0;       // mean of the power samples
    int clock_samples = 0;
    int power_samples = 0;
};

// The mean of the values above 0; 0 where there is none.
double mean_of_known(const std::vector<double>& values, int* count = nullptr);

class Sampler {
public:
    using Reader = std::function<double()>;
    // Samples both readers once at start(), then every `period` until stop(). Either reader
    // may be empty (not sampled).
    Sampler(Reader clock_mhz, Reader power_w, std::chrono::microseconds period);
    ~Sampler();
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;

    void start();
    // Stops the thread (after the sample it is taking, if any) and summarizes every sample
    // since start(). Without start(), or a second time, an empty summary.
    SampleSummary stop();

private:
    void run();
    Reader clock_, power_;
    std::chrono::microseconds period_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
    std::vector<double> clocks_, powers_;  // written by the thread only, read after join
};

}  // namespace ladder::harness
