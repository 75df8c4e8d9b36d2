// plan_main.cpp: ladder-plan, the tile planner on the command line. CPU only: it uses a
// machine file (results/<gpu>/machine.json, written by ladder-probe) or the built-in
// H100/H200 defaults, never the GPU.
//
//   ladder-plan --m 4096 --n 4096 --k 4096            rank tiles, explain the winner
//   ladder-plan --candidate 128x256x64:4:2:1          explain one tile
//   ladder-plan --machine h200 --l2-tbps 8            what if the L2 were slower?
//   ladder-plan --step 5 --machine results/h200/machine.json   step 05's predicted time
//   ladder-plan --compare results/h100/bench.csv --machine results/h100/machine.json
// The steps and their variants are those registered in libladder (registry.h), which it links
// for that list alone.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "planner.h"
#include "registry.h"

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

// One CSV line split at commas outside double quotes ("" inside quotes is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            out.back() += '"';
            ++i;
        } else if (ch == '"') {
            quoted = !quoted;
        } else if (ch == ',' && !quoted) {
            out.emplace_back();
        } else if (ch != '\r') {
            out.back() += ch;
        }
    }
    return out;
}

// The shapes the accuracy goal is stated for: squares from 2048^3 up, and the LLM shapes
// (M = 8192 tokens, N x K = 4096x4096, 14336x4096, 4096x14336, 28672x8192).
bool goal_shape(long long m, long long n, long long k) {
    if (m == n && n == k) return m >= 2048;
    return m == 8192 && ((n == 4096 && k == 4096) || (n == 14336 && k == 4096) || (n == 4096 && k == 14336) ||
                         (n == 28672 && k == 8192));
}

std::string format_ratio(double ratio) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.2f", ratio);
    return buffer;
}

struct HitCount {
    int rows = 0, hits = 0;
    void add(bool hit) { ++rows, hits += hit; }
    std::string text() const {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%d of %d (%.0f%%)", hits, rows, rows ? 100.0 * hits / rows : 0.0);
        return buffer;
    }
};

// --compare: the predicted time of every row of a benchmark CSV next to the measured one, at
// the predicted clock (under the power limit where the machine file has the power model, else
// the machine's clock under load or --clock-mhz) and at the clock the row recorded.
// `inputs`: "" (each row's inputs column, or "@zero" in its name), "uniform" or "zeros".
int compare(const std::string& path, const Machine& machine, double clock_mhz, const std::string& inputs) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) {
        std::fprintf(stderr, "ladder-plan: cannot read '%s'\n", path.c_str());
        return 1;
    }
    const std::vector<std::string> header = csv_fields(line);
    std::map<std::string, size_t> col;
    for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
    for (const char* need : {"step", "name", "M", "N", "K", "ms", "sm_clock_mhz"})
        if (!col.count(need)) {
            std::fprintf(stderr, "ladder-plan: '%s' has no column '%s'\n", path.c_str(), need);
            return 1;
        }
    const bool power_model = clock_mhz <= 0 && has_power_model(machine);
    // MHz: the clock the row recorded, then the predicted one; busy: the predicted tensor-pipe
    // busy fraction, which sets the power.
    std::printf("%-30s %-18s %9s %9s %6s %5s %5s %4s %9s %6s  %s\n", "step", "M x N x K", "meas us", "pred us",
                "ratio", "MHz", "pred", "busy", "@row clk", "ratio", "predicted limiter");
    HitCount goal15, all20, goal15_row, all20_row, default15, all15, clock5, power5, headline10;
    // Rows held at the limit (@sustained) apart from the benchmark loop's rows, whose loop
    // ends before the limiter has settled (common/models/README.md, "The clock under the power limit").
    HitCount clock5_sustained, power5_sustained;
    // The same rows against the clock a witness kernel counted under tensor-core load
    // (tensor_clock_mhz, where the CSV has it), and how far below NVML's clock that was.
    HitCount clock5_witness;
    double witness_over_nvml = 0;
    std::string headline_misses;
    int line_number = 1;
    while (std::getline(in, line)) {
        ++line_number;
        if (line.empty()) continue;
        const std::vector<std::string> f = csv_fields(line);
        if (f.size() < header.size()) {
            std::fprintf(stderr, "ladder-plan: %s:%d has %zu fields, the header %zu\n", path.c_str(), line_number,
                         f.size(), header.size());
            return 1;
        }
        const int step = std::atoi(f[col["step"]].c_str());
        const std::string name = f[col["name"]];
        const size_t colon = name.find(':');
        // "name:variant@regime": the regime (@zero, @sustained) is how it ran, not what.
        std::string variant = colon == std::string::npos ? "" : name.substr(colon + 1);
        const bool zero_in_name = name.find("@zero") != std::string::npos;
        // @sustained: the kinds ran back to back, with no spin between batches of rounds.
        const bool sustained = name.find("@sustained") != std::string::npos;
        variant = variant.substr(0, variant.find('@'));
        // A row of a variant the step no longer registers (an older CSV) is not predicted.
        const ladder::Step* registered = ladder::find_step(step);
        if (registered == nullptr || (ladder::find_variant(*registered, variant.c_str()) == nullptr &&
                                      ladder::find_tile(*registered, variant.c_str()) == nullptr))
            continue;
        const ladder::Variant* fallback = ladder::find_variant(*registered, "");
        const bool default_variant =
            variant.empty() || (fallback != nullptr && fallback->name != nullptr && variant == fallback->name);
        Problem problem{std::atoll(f[col["M"]].c_str()), std::atoll(f[col["N"]].c_str()),
                        std::atoll(f[col["K"]].c_str())};
        problem.zero_inputs = inputs.empty() ? zero_in_name || (col.count("inputs") && f[col["inputs"]] == "zero")
                                             : inputs == "zeros";
        const double measured_us = std::atof(f[col["ms"]].c_str()) * 1e3;
        const double row_clock = std::atof(f[col["sm_clock_mhz"]].c_str());
        const std::string shape = std::to_string(problem.m) + "x" + std::to_string(problem.n) + "x" +
                                  std::to_string(problem.k);
        const std::string label = std::to_string(step) + " " + name;
        // The plan's candidate: the step's tile as the step launches it for this shape.
        Candidate c;
        const Plan plan = step_candidate(step, variant, &c) ? plan_step(machine, step, variant, problem) : Plan{};
        Prediction at_row, at_machine;
        if (plan.fits && plan.modeled) {
            // plan.problem: the problem the step computes (step 07 computes C^T for few columns).
            at_row = predict(machine, plan.problem, plan.candidate, std::max(plan.ctas_per_sm, 1), row_clock);
            // The clock of the benchmark's loop, which alternates the step with cuBLAS (modeled
            // as step 07's default, the ladder's kernel closest to it) and idles between batches.
            double loop_clock = clock_mhz;
            if (power_model) {
                std::vector<LoopKernel> round = {{plan.problem, plan.candidate, std::max(plan.ctas_per_sm, 1)}};
                const Plan companion = plan_step(machine, 7, "", problem);
                if (companion.fits && companion.modeled)
                    round.push_back({companion.problem, companion.candidate, std::max(companion.ctas_per_sm, 1)});
                const double idle_ns = sustained ? 0.0 : 2 * kBenchHoldNsPerLaunch;
                loop_clock = loop_clock_mhz(machine, round, idle_ns);
                // The power model at the clock the row ran at, against the power it drew there.
                const double row_power = col.count("power_w") ? std::atof(f[col["power_w"]].c_str()) : 0;
                if (row_power > 0 && row_clock > 0 && row_clock < 0.97 * machine.sm_clock_max_mhz)
                    (sustained ? power5_sustained : power5)
                        .add(std::fabs(loop_power_w(machine, round, idle_ns, row_clock) / row_power - 1) <= 0.05);
            }
            at_machine = predict(machine, plan.problem, plan.candidate, std::max(plan.ctas_per_sm, 1), loop_clock);
        }
        if (!at_machine.valid || !at_row.valid || !(measured_us > 0)) {
            std::printf("%-30s %-18s %9.1f %9s %6s %5.0f %5s %4s %9s %6s  not modeled%s\n", label.c_str(),
                        shape.c_str(), measured_us, "-", "-", row_clock, "-", "-", "-", "-",
                        plan.limiter.empty() || plan.limiter == "not modeled" ? "" : (": " + plan.limiter).c_str());
            continue;
        }
        const double ratio = at_machine.total_us / measured_us, ratio_row = at_row.total_us / measured_us;
        const bool goal = goal_shape(problem.m, problem.n, problem.k);
        const bool hit15 = std::fabs(ratio - 1) <= 0.15;
        if (goal) goal15.add(hit15), goal15_row.add(std::fabs(ratio_row - 1) <= 0.15);
        all20.add(std::fabs(ratio - 1) <= 0.20), all20_row.add(std::fabs(ratio_row - 1) <= 0.20);
        all15.add(hit15);
        if (default_variant) default15.add(hit15);
        if (default_variant && !problem.zero_inputs && problem.m == 4096 && problem.n == 4096 && problem.k == 4096) {
            const bool hit = std::fabs(ratio - 1) <= 0.10;
            headline10.add(hit);
            if (!hit) headline_misses += " " + std::to_string(step) + " (" + format_ratio(ratio) + ")";
        }
        // Rows that ran below 97% of the unthrottled clock ran at the power limit.
        if (power_model && row_clock > 0 && row_clock < 0.97 * machine.sm_clock_max_mhz) {
            (sustained ? clock5_sustained : clock5).add(std::fabs(at_machine.clock_mhz / row_clock - 1) <= 0.05);
            const double witness = col.count("tensor_clock_mhz") ? std::atof(f[col["tensor_clock_mhz"]].c_str()) : 0;
            if (!sustained && witness > 0) {
                clock5_witness.add(std::fabs(at_machine.clock_mhz / witness - 1) <= 0.05);
                witness_over_nvml += witness / row_clock;
            }
        }
        std::printf("%-30s %-18s %9.1f %9.1f %6.2f %5.0f %5.0f %4.2f %9.1f %6.2f  %s%s\n", label.c_str(),
                    shape.c_str(), measured_us, at_machine.total_us, ratio, row_clock, at_machine.clock_mhz,
                    at_machine.tensor_busy, at_row.total_us, ratio_row, at_machine.limiter.c_str(),
                    goal ? "" : "  (outside the 15% goal)");
    }
    char clock_text[96];
    if (power_model)
        std::snprintf(clock_text, sizeof clock_text, "at the clock of each row's loop under the %.0f W limit", machine.power_limit_w);
    else
        std::snprintf(clock_text, sizeof clock_text, "at %.0f MHz", clock_mhz > 0 ? clock_mhz : machine.load_clock_mhz);
    std::printf("\nwithin 15%% on squares >= 2048^3 and the LLM shapes: %s %s, %s at each row's clock\n",
                goal15.text().c_str(), clock_text, goal15_row.text().c_str());
    std::printf("within 20%% on all rows of steps 02-07:                %s %s, %s at each row's clock\n",
                all20.text().c_str(), clock_text, all20_row.text().c_str());
    std::printf("within 15%%, %s: %s of the default-variant rows, %s of all rows\n", clock_text,
                default15.text().c_str(), all15.text().c_str());
    std::printf("within 10%% on 4096^3 (each step's default, uniform inputs): %s%s%s\n", headline10.text().c_str(),
                headline_misses.empty() ? "" : "; outside:", headline_misses.c_str());
    if (power_model && (clock5.rows > 0 || clock5_sustained.rows == 0))
        std::printf("predicted clock within 5%% of the recorded one on rows below 97%% of %.0f MHz: %s%s\n",
                    machine.sm_clock_max_mhz, clock5.text().c_str(),
                    has_memory_power(machine) ? ""
                                              : " (no memory-traffic power term in the machine file: "
                                                "the clock follows the tensor pipe alone)");
    if (power_model && clock5_witness.rows > 0)
        std::printf("the same rows against the tensor clock a witness counted (tensor_clock_mhz, on average %.1f%% "
                    "below NVML's): predicted clock within 5%% on %s\n",
                    100 * (1 - witness_over_nvml / clock5_witness.rows), clock5_witness.text().c_str());
    if (power_model && clock5_sustained.rows > 0)
        std::printf("rows held at the limit (@sustained): predicted clock within 5%% of the recorded one on %s, "
                    "predicted power within 5%% on %s\n",
                    clock5_sustained.text().c_str(), power5_sustained.text().c_str());
    if (power_model && power5.rows > 0)
        std::printf("the loop's predicted power at the recorded clock within 5%% of the recorded power_w on those "
                    "rows: %s\n",
                    power5.text().c_str());
    return 0;
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
    if (options.step > 0) {
        // A variant the step does not have would silently be predicted as its default.
        const ladder::Step* step = ladder::find_step(options.step);
        const std::string given = std::to_string(options.step) + (options.variant.empty() ? "" : ":" + options.variant);
        if (step == nullptr || !ladder::step_built(*step)) {
            std::fprintf(stderr, "ladder-plan: --step %s: step %d is not built into this libladder\n",
                         ladder::printable(given).c_str(), options.step);
            return 2;
        }
        if (ladder::find_variant(*step, options.variant.c_str()) == nullptr &&
            ladder::find_tile(*step, options.variant.c_str()) == nullptr) {  // --tile: "tileRxC"
            std::fprintf(stderr, "ladder-plan: --step %s: step %d has no variant '%s' (variants of step %d: %s)\n",
                         ladder::printable(given).c_str(), options.step,
                         ladder::printable(options.variant).c_str(), options.step,
                         ladder::variant_names(*step).c_str());
            return 2;
        }
    }

    Machine machine = options.machine == "h200" ? h200() : h100_sxm();
    if (options.machine != "h100" && options.machine != "h200" &&
        !read_machine_file(options.machine, &machine, &error)) {
        std::fprintf(stderr, "ladder-plan: %s\n", error.c_str());
        return 2;
    }
    if (options.l2_tbps > 0) machine.l2_tbps = machine.l2_tma_tbps = machine.l2_cp_async_tbps = options.l2_tbps;
    if (options.latency_ns > 0) machine.mem_latency_ns = machine.tma_latency_ns = options.latency_ns;
    // A clock given on the command line is the clock: the power model would replace it.
    if (options.clock_mhz > 0) machine.load_clock_mhz = options.clock_mhz, machine.power_limit_w = 0;
    if (!options.compare_csv.empty())
        return compare(options.compare_csv, machine, options.clock_mhz, options.inputs);
    const Problem& problem = options.problem;

    std::printf("%s", describe(machine).c_str());
    std::printf("problem  C[%lld,%lld] = A[%lld,%lld] * B[%lld,%lld]^T, bf16 in, fp32 accumulate: %.1f GFLOP\n\n",
                problem.m, problem.n, problem.m, problem.k, problem.n, problem.k,
                2.0 * problem.m * problem.n * problem.k * 1e-9);

    if (options.step > 0 && !options.has_candidate) {
        // The step as it launches for this shape: the number its executable and the CSV show.
        const Plan plan = plan_step(machine, options.step, options.variant, problem);
        std::printf("%s\n%s\n", explain(plan).c_str(), one_line(plan).c_str());
        return 0;
    }
    if (options.has_candidate || options.step > 0) {
        Candidate candidate = options.candidate;
        if (options.step > 0) {
            Candidate of_step;
            step_candidate(options.step, options.variant, &of_step);
            if (options.has_candidate) {
                of_step.bm = candidate.bm, of_step.bn = candidate.bn, of_step.bk = candidate.bk;
                of_step.stages = candidate.stages, of_step.consumer_warpgroups = candidate.consumer_warpgroups;
                of_step.cluster = candidate.cluster;
            }
            candidate = of_step;
        }
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
    std::printf("\nThe ranking is by the upper bound; the prediction lines use the time model with a\n"
                "warp-specialized loop. Each step's executable prints its own prediction next to its\n"
                "measurement (ladder-plan --step N gives the same number).\n");
    return 0;
}
