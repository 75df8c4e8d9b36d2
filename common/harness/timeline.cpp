// timeline.cpp: see timeline.h (host side) and timeline.cuh (device side, and the design).
#include "timeline.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <vector>

#include "harness.h"
#include "registry.h"

namespace ladder::timeline {
namespace {

// The slot grid (timeline.h): the producer and up to 8 consumers (steps 03-04's warps),
// and k-block numbers up to kblock_rows(K). An event outside it is dropped and reported.
constexpr unsigned int kLanes = 9;
constexpr int kSmallestBk = 64;

// Room for 4x the k-blocks of one tile: step 06 ping-pong numbers two tiles' k-blocks in a
// row, a persistent kernel (step 07) several; at least 4096 (4 CTAs x 9 lanes x 4097 rows
// x 7 events x 32 bytes = 33 MB, cleared and copied once).
unsigned int kblock_rows(long long K) {
    const long long per_tile = (K + kSmallestBk - 1) / kSmallestBk;
    return static_cast<unsigned int>(std::max<long long>(4096, 4 * per_tile));
}

std::string csv_field(std::string text) {
    std::replace(text.begin(), text.end(), ',', ' ');
    return text;
}

std::string lane_name(uint16_t lane) {
    return lane == kProducerLane ? "producer" : "consumer" + std::to_string(lane - 1);
}

}  // namespace

const char* event_name(Event event) {
    switch (event) {
        case Event::LoadIssue: return "load_issue";
        case Event::LoadArrive: return "load_arrive";
        case Event::MmaStart: return "mma_start";
        case Event::MmaEnd: return "mma_end";
        case Event::Release: return "release";
        case Event::EpilogueStart: return "epilogue_start";
        case Event::EpilogueEnd: return "epilogue_end";
    }
    return "unknown";
}

bool available(const Step& step, std::string* why) {
#ifndef LADDER_TIMELINE
    (void)step;
    *why = "--timeline: this build records no timeline; configure a separate build directory "
           "with -DLADDER_TIMELINE=ON (cmake -S . -B build-timeline -G Ninja -DLADDER_TIMELINE=ON)";
    return false;
#else
    // Each variant carries the hook of its file (registry.h): the default's is gemm.cu's.
    if (step.variants[0].set_timeline == nullptr) {
        *why = std::string("--timeline: step ") + std::to_string(step.number) + " (" + step.folder +
               ") is not instrumented (its gemm.cu has no LADDER_TIMELINE_HOOK())";
        return false;
    }
    return true;
#endif
}

bool record_csv(const Step& step, const Variant& variant, long long M, long long N, long long K,
                uint64_t seed, const std::string& csv_path, std::string* error) {
    if (!available(step, error)) return false;
    // A variant file's kernel records into its own file's buffer, so the hook is the
    // variant's, not the step's.
    const TimelineHook attach = variant.set_timeline;
    if (attach == nullptr) {
        *error = std::string("--timeline: variant '") + variant.name + "' of step " +
                 std::to_string(step.number) + " is not instrumented";
        return false;
    }
    const std::string label =
        std::string("step ") + std::to_string(step.number) + (variant.name[0] ? ":" : "") + variant.name;
    try {
        using namespace ladder::harness;
        const DeviceInfo dev = device_info();
        ProblemBuffers p(M, N, K);
        fill_random(p.A.get(), p.A.count(), seed);
        fill_random(p.B.get(), p.B.count(), seed + 1);
        auto run = [&]() {
            cudaError_t err = variant.gemm(p.A.get(), p.B.get(), p.C.get(), static_cast<int>(M),
                                           static_cast<int>(N), static_cast<int>(K), nullptr);
            if (err == cudaSuccess) err = cudaDeviceSynchronize();
            if (err != cudaSuccess)
                throw Error(label + ": " + (last_error()[0] ? last_error() : cudaGetErrorString(err)));
        };

        run();  // warm-up, not recorded: first-launch costs (module load, cold L2) stay out

        Buffer buffer;
        buffer.lanes = kLanes;
        buffer.kblocks = kblock_rows(K);
        const size_t slots =
            static_cast<size_t>(kRecordedCtas) * kLanes * (buffer.kblocks + 1) * kEventKinds;
        DeviceBuffer<Record> records(slots);
        DeviceBuffer<unsigned int> dropped(1);
        LADDER_CUDA(cudaMemset(records.get(), 0, records.bytes()));  // 0 = "never written"
        LADDER_CUDA(cudaMemset(dropped.get(), 0, dropped.bytes()));
        buffer.records = records.get();
        buffer.dropped = dropped.get();
        LADDER_CUDA(attach(buffer));
        try {
            run();
        } catch (...) {
            attach(Buffer{});
            throw;
        }
        LADDER_CUDA(attach(Buffer{}));  // later launches record nothing
        const int clock_mhz = current_sm_clock_mhz();
        const int mhz = std::max(1, clock_mhz ? clock_mhz : dev.peak_sm_clock_mhz);

        unsigned int events_dropped = 0;
        LADDER_CUDA(cudaMemcpy(&events_dropped, dropped.get(), sizeof events_dropped,
                               cudaMemcpyDeviceToHost));
        std::vector<Record> all(slots);
        LADDER_CUDA(cudaMemcpy(all.data(), records.get(), records.bytes(), cudaMemcpyDeviceToHost));
        std::vector<Record> host;
        for (const Record& r : all)
            if (r.globaltimer_ns != 0) host.push_back(r);
        if (host.empty()) {
            *error = label + ": the kernel recorded no events";
            return false;
        }

        // Relative times: globaltimer against the whole run, clock64 against the CTA.
        uint64_t first_ns = std::numeric_limits<uint64_t>::max();
        std::map<uint32_t, int64_t> first_clock;
        for (const Record& r : host) {
            first_ns = std::min(first_ns, r.globaltimer_ns);
            auto [it, inserted] = first_clock.emplace(r.cta, r.clock);
            if (!inserted) it->second = std::min(it->second, r.clock);
        }
        std::sort(host.begin(), host.end(), [](const Record& a, const Record& b) {
            return a.cta != b.cta ? a.cta < b.cta : a.clock < b.clock;
        });

        std::ofstream out(csv_path);
        if (!out) {
            *error = "--timeline: cannot write " + csv_path;
            return false;
        }
        out << "step,variant,device,m,n,k,sm_clock_mhz,cta,sm,lane,event,kblock,t_ns,cycle\n";
        const std::string prefix = std::to_string(step.number) + "," + csv_field(variant.name) + "," +
                                   csv_field(dev.name) + "," + std::to_string(M) + "," +
                                   std::to_string(N) + "," + std::to_string(K) + "," +
                                   std::to_string(mhz) + ",";
        // The smallest step %globaltimer took between two events of one CTA: its resolution.
        uint64_t globaltimer_step = std::numeric_limits<uint64_t>::max();
        for (size_t i = 0; i < host.size(); ++i) {
            const Record& r = host[i];
            out << prefix << r.cta << "," << r.sm << "," << lane_name(r.lane) << ","
                << event_name(static_cast<Event>(r.event)) << ","
                << r.kblock << "," << (r.globaltimer_ns - first_ns) << ","
                << (r.clock - first_clock[r.cta]) << "\n";
            if (i > 0 && host[i - 1].cta == r.cta && r.globaltimer_ns > host[i - 1].globaltimer_ns)
                globaltimer_step = std::min(globaltimer_step, r.globaltimer_ns - host[i - 1].globaltimer_ns);
        }
        out.close();
        if (!out) {
            *error = "--timeline: error writing " + csv_path;
            return false;
        }

        std::printf("timeline %s %lldx%lldx%lld: %zu events of %zu CTAs -> %s\n", label.c_str(), M, N,
                    K, host.size(), first_clock.size(), csv_path.c_str());
        if (events_dropped)
            std::printf("timeline: some events had no slot (more than %u lanes or %u k-blocks) "
                        "and were dropped\n", kLanes, buffer.kblocks);
        for (const auto& [cta, start] : first_clock) {
            int64_t last = start;
            uint32_t sm = 0;
            for (const Record& r : host)
                if (r.cta == cta) last = std::max(last, r.clock), sm = r.sm;
            std::printf("  CTA %u on SM %u: %lld cycles = %.1f us at %d MHz\n", cta, sm,
                        static_cast<long long>(last - start), (last - start) / static_cast<double>(mhz),
                        mhz);
        }
        if (globaltimer_step != std::numeric_limits<uint64_t>::max())
            std::printf("  %%globaltimer ticks at least every %llu ns here; the chart uses clock64\n",
                        static_cast<unsigned long long>(globaltimer_step));
        return true;
    } catch (const harness::Error& e) {
        *error = e.what();
        return false;
    }
}

}  // namespace ladder::timeline
