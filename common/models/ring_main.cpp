// ladder-ring: run a step's ring schedule (ring_schedules.cpp) in the CPU model under many
// interleavings and say whether it hangs or races, and where.
//   ladder-ring --step 4 [--k-blocks 9] [--cluster 2] [--seeds 2000] [--fault NAME]
// Exit 0: no problem in any interleaving tried; 1: the first problem found (printed with
// the seed that found it); 2: bad arguments.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ring_schedules.h"

namespace {

using namespace ladder::ring;

const char* const kFaults[] = {"full-parity", "empty-parity", "no-flip", "empty-count",
                               "full-count", "tx-bytes", "early-release", "local-release",
                               "no-multicast"};

bool set_fault(const std::string& name, Faults& f) {
    if (name == "full-parity") f.full_parity_xor = 1;
    else if (name == "empty-parity") f.empty_parity_xor = 1;
    else if (name == "no-flip") f.no_flip = true;
    else if (name == "empty-count") f.empty_count_delta = -1;
    else if (name == "full-count") f.full_count_delta = 1;
    else if (name == "tx-bytes") f.tx_delta = -static_cast<long>(STEP_STAGE_BYTES) / 3;
    else if (name == "early-release") f.release_before_reads = true;
    else if (name == "local-release") f.local_release_only = true;
    else if (name == "no-multicast") f.no_multicast = true;
    else return false;
    return true;
}

int usage(const char* why) {
    std::fprintf(stderr, "ladder-ring: %s\nusage: ladder-ring --step {3,4,6,7} [--k-blocks N>=1] "
                         "[--cluster {1,2,4}] [--seeds N>=1] [--fault NAME]\nfaults:", why);
    for (const char* f : kFaults) std::fprintf(stderr, " %s", f);
    std::fprintf(stderr, "\n");
    return 2;
}

bool parse_int(const char* text, int lo, int hi, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < lo || v > hi) return false;
    out = static_cast<int>(v);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    int step = 0, k_blocks = 9, cluster = 2, seeds = 2000;
    Faults faults;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) return usage(("missing value after " + arg).c_str());
        const char* value = argv[++i];
        if (arg == "--step") {
            if (!parse_int(value, 3, 7, step) || step == 5) return usage("--step must be 3, 4, 6 or 7");
        } else if (arg == "--k-blocks") {
            if (!parse_int(value, 1, 100000, k_blocks)) return usage("--k-blocks must be 1..100000");
        } else if (arg == "--cluster") {
            if (!parse_int(value, 1, 4, cluster) || cluster == 3) return usage("--cluster must be 1, 2 or 4");
        } else if (arg == "--seeds") {
            if (!parse_int(value, 1, 10000000, seeds)) return usage("--seeds must be 1..10000000");
        } else if (arg == "--fault") {
            if (!set_fault(value, faults)) return usage(("unknown fault " + std::string(value)).c_str());
        } else {
            return usage(("unknown option " + arg).c_str());
        }
    }
    if (step == 0) return usage("--step is required");
    const Protocol p = schedule_for_step(step, k_blocks, cluster, faults);
    std::printf("%s, %d k-blocks%s: %d interleavings\n", p.name.c_str(), k_blocks,
                step == 7 ? (", cluster " + std::to_string(cluster)).c_str() : "", seeds);
    const Verdict v = run_seeds(p, seeds);
    if (v.ok) {
        std::printf("ok: no hang and no race in any of them\n");
        return 0;
    }
    std::printf("%s\n(seed %llu; seed 0 is the in-order interleaving)\n", v.message.c_str(),
                static_cast<unsigned long long>(v.seed));
    return 1;
}
