// sampler.cpp: see sampler.h.
#include "sampler.h"

#include <utility>

namespace ladder::harness {

double mean_of_known(const std::vector<double>& values, int* count) {
    double sum = 0;
    int n = 0;
    for (double v : values)
        if (v > 0) sum += v, ++n;
    if (count) *count = n;
    return n ? sum / n : 0.0;
}

Sampler::Sampler(Reader clock_mhz, Reader power_w, std::chrono::microseconds period)
    : clock_(std::move(clock_mhz)), power_(std::move(power_w)), period_(period) {}

Sampler::~Sampler() { stop(); }

void Sampler::start() {
    if (thread_.joinable()) return;
    stopping_ = false;
    clocks_.clear();
    powers_.clear();
    thread_ = std::thread([this] { run(); });
}

void Sampler::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        // Read without the lock: an NVML call takes microseconds to a millisecond, and stop()
        // must not wait behind it for the lock.
        lock.unlock();
        if (clock_) clocks_.push_back(clock_());
        if (power_) powers_.push_back(power_());
        lock.lock();
        if (wake_.wait_for(lock, period_, [this] { return stopping_; })) return;
    }
}

SampleSummary Sampler::stop() {
    SampleSummary s;
    if (!thread_.joinable()) return s;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
    s.sm_clock_mhz = mean_of_known(clocks_, &s.clock_samples);
    s.power_w = mean_of_known(powers_, &s.power_samples);
    return s;
}

}  // namespace ladder::harness
