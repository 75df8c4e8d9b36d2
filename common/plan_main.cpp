// plan_main.cpp: ladder-plan, the tile planner on the command line. CPU only: it uses the
// documented H100/H200 defaults (planner.cpp), never the GPU.
//
//   ladder-plan --m 4096 --n 4096 --k 4096            rank tiles, explain the winner
//   ladder-plan --candidate 128x256x64:4:2:1          explain one tile
//   ladder-plan --machine h200 --l2-tbps 8            what if the L2 were slower?
#include <cstdio>
#include <string>
#include <vector>

#include "planner.h"

namespace {

using namespace ladder::plan;

// "-" for a value the plan does not have (accumulators of a step without warpgroups).
std::string regs_text(const Plan& p) {
    return p.acc_regs_per_thread >= 0 ? std::to_string(p.acc_regs_per_thread) : std::string("-");
}

void print_table(const std::vector<Plan>& plans, int top) {
    std::printf("%4s  %-12s %6s %3s %7s %8s %4s %5s %6s %5s %5s %9s  %s\n", "rank", "tile", "stages",
                "wgs", "cluster", "smem KiB", "acc", "CTA/SM", "waves", "eff", "need", "<= TFLOP/s",
                "limited by");
    int row = 0;
    for (const Plan& p : plans) {
        if (row == top) break;
        const Candidate& c = p.candidate;
        const std::string tile = std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk);
        if (p.fits && p.modeled)
            std::printf("%4d  %-12s %6d %3d %7d %8.1f %4s %6d %6.2f %4.0f%% %5d %10.0f  %s\n", row + 1,
                        tile.c_str(), c.stages, c.consumer_warpgroups, c.cluster, p.smem_total_bytes / 1024.0,
                        regs_text(p).c_str(), p.ctas_per_sm, p.waves, 100.0 * p.wave_efficiency,
                        p.stages_needed, p.upper_bound_tflops, p.limiter.c_str());
        else
            std::printf("%4d  %-12s %6d %3d %7d %8.1f %4s %6s %6s %5s %5s %10s  %s\n", row + 1, tile.c_str(),
                        c.stages, c.consumer_warpgroups, c.cluster, p.smem_total_bytes / 1024.0,
                        regs_text(p).c_str(), "-", "-", "-", "-", "-", p.limiter.c_str());
        ++row;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    CliOptions options;
    std::string error;
    if (!parse_cli(args, &options, &error)) {
        std::fprintf(stderr, "ladder-plan: %s\n\n%s", error.c_str(), cli_usage().c_str());
        return 2;
    }
    if (options.help) {
        std::printf("%s", cli_usage().c_str());
        return 0;
    }

    Machine machine = options.machine == "h200" ? h200() : h100_sxm();
    if (options.l2_tbps > 0) machine.l2_tbps = options.l2_tbps;
    if (options.latency_ns > 0) machine.mem_latency_ns = options.latency_ns;
    const Problem& problem = options.problem;

    std::printf("%s", describe(machine).c_str());
    std::printf("problem  C[%lld,%lld] = A[%lld,%lld] * B[%lld,%lld]^T, bf16 in, fp32 accumulate: %.1f GFLOP\n\n",
                problem.m, problem.n, problem.m, problem.k, problem.n, problem.k,
                2.0 * problem.m * problem.n * problem.k * 1e-9);

    if (options.has_candidate) {
        Candidate candidate = options.candidate;
        if (candidate.stages < 0) candidate.stages = std::max(1, max_stages_that_fit(machine, candidate));
        const Plan plan = evaluate(machine, problem, candidate);
        std::printf("%s\n%s\n", explain(plan).c_str(), one_line(plan).c_str());
        return 0;
    }

    const std::vector<Plan> plans = rank(machine, problem, default_candidates(machine));
    std::printf("Candidates, best upper bound first (ties: less shared memory). 'need' = stages needed\n"
                "to hide the memory latency; 'eff' = efficiency of the last wave.\n\n");
    print_table(plans, options.top);
    std::printf("\nWinner:\n%s", explain(plans.front()).c_str());
    for (const Plan& p : plans)
        if (p.fits && p.modeled && p.limiter != plans.front().limiter) {
            std::printf("\nThe best tile limited by something else: %s\n  %s\n", label(p.candidate).c_str(),
                        one_line(p).c_str());
            break;
        }
    std::printf("\nThis is a model: an upper bound from the numbers above, not a prediction of what a\n"
                "kernel will reach. Each step's executable prints its own plan next to its measurement.\n");
    return 0;
}
