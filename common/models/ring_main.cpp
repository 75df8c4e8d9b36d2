// ladder-ring: run a step's ring schedule (ring_schedules.cpp) in the CPU model under many
// interleavings and say whether it hangs or races, and where.
//   ladder-ring --step 4 [--k-blocks 9] [--cluster 2] [--seeds 2000] [--fault NAME]
// Exit 0: no problem in any interleaving tried; 1: the first problem found (printed with
// the seed that found it); 2: bad arguments, a --cluster for a step without clusters, or a
// fault that changes nothing in the step's schedule.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "arg_parse.h"  // printable
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

// Bounds that keep a run to seconds (about 5 s at the largest product, step 7, on one core).
constexpr int kMostKBlocks = 64;
constexpr int kMostSeeds = 100000;
constexpr long long kMostSeedKBlocks = 1000000;

std::string usage_text() {
    std::string text = "usage: ladder-ring --step {3,4,6,7} [--k-blocks 1..64] [--cluster {1,2,4}] [--seeds 1..100000] "
                       "[--fault NAME]\n"
                       "Runs step N's ring schedule (ring_schedules.cpp) under many interleavings on the CPU and\n"
                       "says whether it hangs or races (seeds x k-blocks at most 1000000: seconds). --cluster is\n"
                       "step 7's alone (default 2); --fault injects a classic mistake, one that changes the\n"
                       "step's schedule. Exit 0: no problem found; 1: the first problem, with the seed that\n"
                       "found it; 2: bad arguments.\nfaults:";
    for (const char* f : kFaults) text += std::string(" ") + f;
    return text + "\n";
}

int usage(const std::string& why) {
    std::fprintf(stderr, "ladder-ring: %s\n%s", ladder::printable(why).c_str(), usage_text().c_str());
    return 2;
}

bool parse_int(const char* text, int lo, int hi, int& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < lo || v > hi) return false;
    out = static_cast<int>(v);
    return true;
}

bool same_op(const Op& a, const Op& b) {
    return a.code == b.code && a.barrier.cta == b.barrier.cta && a.barrier.kind == b.barrier.kind &&
           a.barrier.index == b.barrier.index && a.parity == b.parity && a.bytes == b.bytes && a.slot == b.slot &&
           a.k_block == b.k_block && a.cta_mask == b.cta_mask;
}

bool same_protocol(const Protocol& a, const Protocol& b) {
    if (a.ctas != b.ctas || a.stages != b.stages || a.full_count != b.full_count ||
        a.empty_count != b.empty_count || a.stage_bytes != b.stage_bytes || a.agents.size() != b.agents.size())
        return false;
    for (size_t i = 0; i < a.agents.size(); ++i) {
        const std::vector<Op>& x = a.agents[i].ops;
        const std::vector<Op>& y = b.agents[i].ops;
        if (a.agents[i].cta != b.agents[i].cta || x.size() != y.size()) return false;
        for (size_t j = 0; j < x.size(); ++j)
            if (!same_op(x[j], y[j])) return false;
    }
    return true;
}

// The faults that change the schedule of `step` for these arguments. The rest are no mistake
// this schedule can make (step 04 multicasts nothing; step 03 has no empty barrier), and
// running one would report the correct schedule as "ok": whether a fault applies is read from
// the schedules themselves, so that it stays right as they are edited.
std::string faults_that_apply(int step, int k_blocks, int cluster) {
    const Protocol clean = schedule_for_step(step, k_blocks, cluster);
    std::string names;
    for (const char* name : kFaults) {
        Faults f;
        set_fault(name, f);
        if (!same_protocol(schedule_for_step(step, k_blocks, cluster, f), clean))
            names += (names.empty() ? "" : ", ") + std::string(name);
    }
    return names.empty() ? "none" : names;
}

}  // namespace

int main(int argc, char** argv) {
    int step = 0, k_blocks = 9, cluster = 2, seeds = 2000;
    bool cluster_given = false;
    std::string fault;
    Faults faults;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::printf("%s", usage_text().c_str());
            return 0;
        }
        if (arg != "--step" && arg != "--k-blocks" && arg != "--cluster" && arg != "--seeds" && arg != "--fault")
            return usage("unknown option " + arg);
        if (i + 1 >= argc) return usage("missing value after " + arg);
        const char* value = argv[++i];
        if (arg == "--step") {
            if (!parse_int(value, 3, 7, step) || step == 5) return usage("--step must be 3, 4, 6 or 7");
        } else if (arg == "--k-blocks") {
            // 64 k-blocks take every ring of the steps (at most 6 stages) round ten times and
            // run in about a second at the default seeds; the cost grows faster than linearly
            // with the k-blocks (1000 took a minute).
            if (!parse_int(value, 1, kMostKBlocks, k_blocks))
                return usage("--k-blocks must be 1.." + std::to_string(kMostKBlocks) +
                             " (every ring goes round at least ten times in 64)");
        } else if (arg == "--cluster") {
            if (!parse_int(value, 1, 4, cluster) || cluster == 3) return usage("--cluster must be 1, 2 or 4");
            cluster_given = true;
        } else if (arg == "--seeds") {
            if (!parse_int(value, 1, kMostSeeds, seeds)) return usage("--seeds must be 1.." + std::to_string(kMostSeeds));
        } else {
            if (!set_fault(value, faults)) return usage("unknown fault " + std::string(value));
            fault = value;
        }
    }
    if (step == 0) return usage("--step is required");
    // A run is seeds x k-blocks interleaved steps: bounded so that every run ends in seconds.
    if (static_cast<long long>(seeds) * k_blocks > kMostSeedKBlocks)
        return usage("--seeds x --k-blocks must be at most " + std::to_string(kMostSeedKBlocks) + " (" +
                     std::to_string(seeds) + " x " + std::to_string(k_blocks) + " would run for minutes)");
    if (cluster_given && step != 7) {
        std::fprintf(stderr, "ladder-ring: --cluster is step 7's alone: step %d runs one CTA, no cluster\n", step);
        return 2;
    }
    const Protocol p = schedule_for_step(step, k_blocks, cluster, faults);
    if (!fault.empty() && same_protocol(p, schedule_for_step(step, k_blocks, cluster))) {
        std::fprintf(stderr, "ladder-ring: --fault %s changes nothing in %s with %d k-block%s%s (faults that do: %s)\n",
                     fault.c_str(), p.name.c_str(), k_blocks, k_blocks == 1 ? "" : "s",
                     step == 7 ? (", cluster " + std::to_string(cluster)).c_str() : "",
                     faults_that_apply(step, k_blocks, cluster).c_str());
        return 2;
    }
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
