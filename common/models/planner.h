// planner.h: tile parameters from architecture facts, the way a kernel engineer works them
// out on paper before writing a kernel.
//
// Given a machine (SM count, shared memory, registers, peak tensor-core rate, bandwidths,
// memory latency), a problem (M, N, K) and a candidate tile (BM x BN x BK, stages, consumer
// warpgroups, cluster size), evaluate() answers the questions one asks of a tile:
//
//   * Does it fit?        accumulator registers per thread, shared memory per stage and in
//                         total, the most stages that fit, CTAs per SM.
//   * Is it fed?          FLOP per byte of one k-block against the machine balance, and the
//                         stages needed so that the loads in flight cover memory latency.
//   * Does it fill the GPU?  tiles, waves over the SMs, efficiency of the last wave.
//   * How fast at best?   an upper bound in TFLOP/s and the limit that sets it.
//
// It is a model, not a measurement: every step's executable prints the plan of its own
// tile next to what it measured, so students can see where the model holds and where not.
// Plain C++17, no CUDA headers: the CLI (ladder-plan) and the tests run on any machine.
#pragma once

#include <string>
#include <vector>

namespace ladder::plan {

// ---- Machine -------------------------------------------------------------------------
// What the planner needs to know about a GPU. h100_sxm() and h200() give documented
// defaults; machine_from_device() builds one from values the harness reads at run time.
struct Machine {
    std::string name;
    int sm_count = 0;
    long long smem_per_block_optin_bytes = 0;  // cudaDeviceProp::sharedMemPerBlockOptin
    long long smem_per_sm_bytes = 0;           // cudaDeviceProp::sharedMemPerMultiprocessor
    long long smem_reserved_per_block_bytes = 0;  // cudaDeviceProp::reservedSharedMemPerBlock
    int regs_per_sm = 0;                       // 32-bit registers per SM
    int regs_per_thread_max = 0;               // the ISA's per-thread limit
    int max_threads_per_sm = 0;
    int max_ctas_per_sm = 0;
    long long l2_bytes = 0;
    double sm_clock_ghz = 0;                   // the clock the peak below is computed at
    int tensor_flop_per_clk_per_sm = 0;        // dense bf16 FLOP per clock per SM (fp32 accumulate)
    double dense_bf16_tflops = 0;              // sm_count * tensor_flop_per_clk_per_sm * clock
    double dram_tbps = 0;                      // DRAM bandwidth, TB/s (1e12 bytes/s)
    // All SMs reading an operand from DRAM with TMA as a GEMM does (256-row boxes along K, rows
    // 8 KiB apart), TB/s: measured by ladder-probe; 0 (an older machine file): dram_tbps.
    double dram_read_tbps = 0;
    double l2_tbps = 0;                        // L2 -> SM bandwidth, TB/s (an assumption: see .cpp)
    double mem_latency_ns = 0;                 // load issue -> data in shared memory (assumption)
    std::string source;                        // one line: where these numbers come from

    // The constants of the time model (predict()). Measured by ladder-probe on the GPU at
    // hand and read from a machine file (read_machine_file); the built-in machines carry the
    // H100 values of results/h100/machine.json.
    double load_clock_mhz = 0;        // SM clock under tensor-core load
    double mma_sync_flop_per_clk = 0; // per SM, m16n8k16 bf16 mma.sync, operands in registers
    double wgmma_flop_per_clk = 0;    // per SM, m64n256k16 wgmma, operands in shared memory
    double ldmatrix_bytes_per_clk = 0;  // per SM, ldmatrix.x4 shared -> registers
    double l2_tma_tbps = 0;           // all SMs loading an L2-resident set with TMA, each its own lines
    double l2_tma_shared_tbps = 0;    // the same, 8 SMs reading each line at a time (0: not measured)
    double l2_tma_shared_loaded_tbps = 0;  // the same while every SM runs wgmma: a GEMM's feed (0: not measured)
    double l2_cp_async_tbps = 0;      // the same with 16-byte cp.async
    double tma_latency_ns = 0;        // one TMA load in flight, L2 hit, issue -> mbarrier complete
    // The same from DRAM (lines no kernel touched since they left the L2): what a run's first
    // fill waits for. 0 (a machine file written before ladder-probe measured it): an L2 hit's.
    double tma_dram_latency_ns = 0;
    double tma_one_sm_gbps = 0;       // one SM alone loading with TMA (bytes per ns = GB/s)
    double cp_async_latency_ns = 0;   // one 16-byte cp.async in flight, L2 hit
    double mbarrier_round_trip_ns = 0;  // arrive + try_wait on one mbarrier
    double store16_tbps = 0;          // all SMs storing C with 16-byte st.global
    double store4_tbps = 0;           // the same with 4-byte stores
    double tma_store_tbps = 0;        // the same with TMA stores from shared memory
    // One CTA on one SM storing alone, per store kind (GB/s = bytes per ns): what an SM's
    // epilogue gets where few SMs store at once. 0 (a machine file written before ladder-probe
    // measured them): every SM gets its share of the GPU-wide rate, as if all stored at once.
    double store16_one_sm_gbps = 0;
    double store4_one_sm_gbps = 0;
    double tma_store_one_sm_gbps = 0;
    double launch_us = 0;             // one kernel launch back to back with the previous one
    // Costs no ladder-probe test measures yet, fitted on the H200 benchmark of the committed
    // code (results/h200/bench.csv), one number per variant over all 18 shapes; the same SM
    // on the H100. A machine file may set them ("tma_request_ns", "gpu_fence_ns",
    // "memcpy_async_issue_clk", "wgmma_kblock_overhead_clk").
    // One bulk-copy request through the SM's TMA unit: the 03 bulk1d rows (384 requests per
    // k-block), predicted at the clock each row recorded.
    double tma_request_ns = 6.5;
    // A GPU-scope release (MEMBAR.ALL.GPU) between two k-blocks: the 07 cg rows launched
    // with clusters, predicted at the clock each row recorded (on top of the wgmma turn below).
    double gpu_fence_ns = 290;
    // Issue cycles one warp-wide cuda::memcpy_async adds over a cp.async: the median time
    // ratio of the 02 pipeline rows to the 02 rows of the same shape (1.12), a ratio the
    // clock cancels from.
    double memcpy_async_issue_clk = 11;
    // SM cycles per k-block in which a wgmma step's tensor pipe idles between two k-blocks
    // (the wgmma peak ladder-probe measures has no barriers between its wgmma groups).
    // Fitted like the three above: of 0, 50, 100, 140, 150, 175 and 200 cycles, 140 puts the
    // most H200 rows within 15% at each row's clock (148 of 152). ncu bounds it: step 07 at
    // 4096^3 keeps its tensor pipe 88% busy over the whole kernel, epilogues and last wave
    // included (results/h200/step07_experiments/ncu_4096_committed.txt), and 1024 cycles of
    // math per k-block at 88% leave 1024 x (1/0.88 - 1) = 140 cycles.
    double wgmma_kblock_overhead_clk = 140;
    // Clusters of 2 and of 4 CTAs (one per SM) the GPU holds at once, from the machine file
    // ("resident_clusters_of_2", "_of_4"); 0: sm_count / cluster, as if every SM could join one.
    int resident_clusters_of_2 = 0;
    int resident_clusters_of_4 = 0;
    // The clock under the power limit (clock_under_power_limit(); README "The clock under the
    // power limit"): board power P = power_idle_w + (f / sm_clock_max_mhz)^3 x (power_busy_w +
    // u x P_op), u the tensor pipe's busy fraction, P_op one of the four below by instruction
    // and operands. Measured by ladder-probe (section 9); all 0 (a machine file without them):
    // no power model, every prediction runs at load_clock_mhz.
    double sm_clock_max_mhz = 0;      // the SM clock where the limit does not bind
    double power_limit_w = 0;         // the board's enforced power limit
    double power_idle_w = 0;          // no kernel running
    double power_busy_w = 0;          // every SM running, tensor pipe idle, at sm_clock_max_mhz
    double power_wgmma_random_w = 0;  // a fully busy tensor pipe, at sm_clock_max_mhz: wgmma, random operands
    double power_wgmma_zero_w = 0;    // wgmma, zero operands
    double power_mma_sync_random_w = 0;  // mma.sync, random operands
    double power_mma_sync_zero_w = 0;    // mma.sync, zero operands
    // The memory traffic's share (README "The clock under the power limit"): watts per TB/s of
    // bytes the L2 reads for the SMs, at sm_clock_max_mhz (scaled by (f / f_max)^2: the L2
    // and the crossbar taken to share the SMs' voltage), and per TB/s of DRAM traffic (HBM
    // has its own fixed clock and voltage: not scaled). Measured by ladder-probe (section 9's
    // streams); 0 (a machine file written before the probe measured them): no memory term,
    // the clock is predicted from the tensor pipe's activity alone.
    double power_l2_w_per_tbps = 0;
    double power_dram_w_per_tbps = 0;
    std::vector<std::string> not_measured;  // constants the machine file marks "measured": false
};

// H100 SXM5 (80 GB HBM3) and H200 SXM (141 GB HBM3e): values and their sources in planner.cpp.
Machine h100_sxm();

// Clusters of `cluster` CTAs, one CTA per SM, that run at once: the machine file's count
// where it has one, else every SM in a cluster (sm_count / cluster).
int resident_clusters(const Machine& machine, int cluster);
Machine h200();

// Dense bf16 tensor-core FLOP per clock per SM for a compute capability: 4096 for sm_90
// (Hopper), 2048 for sm_80 (A100); 0 when the planner does not know the GPU.
int dense_bf16_flop_per_clk_per_sm(int cc_major, int cc_minor);

// Values the harness reads with cudaGetDeviceProperties / cudaDeviceGetAttribute. Any field
// left at 0 keeps the H100 SXM default, so the harness can pass only what it has.
struct DeviceFacts {
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    long long smem_per_block_optin_bytes = 0;
    long long smem_per_sm_bytes = 0;
    long long smem_reserved_per_block_bytes = 0;
    int regs_per_sm = 0;
    int max_threads_per_sm = 0;
    long long l2_bytes = 0;
    int sm_clock_khz = 0;         // cudaDevAttrClockRate (the peak SM clock)
    int mem_clock_khz = 0;        // cudaDevAttrMemoryClockRate
    int mem_bus_width_bits = 0;   // cudaDevAttrGlobalMemoryBusWidth
};
Machine machine_from_device(const DeviceFacts& facts);

// A multi-line description of the machine with the source of each number.
std::string describe(const Machine& machine);

// ---- Problem and candidate -------------------------------------------------------------
struct Problem {
    long long m = 4096, n = 4096, k = 4096;
    // All-zero A and B (a benchmark's "zero" inputs): the tensor cores' operands do not toggle,
    // they draw less power, and under the power limit the clock stays higher.
    bool zero_inputs = false;
};

// How a kernel's k-block loop is built: what predict() charges per k-block and per tile.
enum class Structure {
    MmaSyncCpAsync,   // step 02: all warps copy with cp.async, ldmatrix + mma.sync
    MmaSyncTma,       // steps 03-04: one thread issues TMA, all warps ldmatrix + mma.sync
    WgmmaInline,      // step 05: the consumer warpgroups also issue the TMA refills
    WarpSpecialized,  // step 06 cooperative: a producer warpgroup, one tile per CTA
    PingPong,         // step 06 ping-pong (gemm_pingpong.cu): two consumers, each on its own 64-row tile
    Persistent,       // step 07: one CTA per SM loops over tiles, TMA-store epilogue
};
const char* structure_name(Structure s);
// The structure of step `number` (1..7) and variant ("" or e.g. "pingpong"); false if unknown.
bool structure_of_step(int number, const std::string& variant, Structure* out);

struct Candidate;
// The tile and structure step `number` (2..7) is built with, for its variant ("cluster1",
// "pingpong", ...; "" for the default); false for a step outside the model.
bool step_candidate(int number, const std::string& variant, Candidate* out);

// One tile configuration to evaluate. Mirrors ladder::TileConfig (step_api.h).
struct Candidate {
    int bm = 128;                   // rows of C per CTA
    int bn = 128;                   // columns of C per CTA
    int bk = 64;                    // K extent of one k-block (one pipeline stage)
    int stages = 4;                 // shared-memory stages (0: no shared-memory tiles)
    int consumer_warpgroups = 2;    // warpgroups issuing wgmma (0: a step without warpgroups)
    int cluster = 1;                // CTAs per cluster along M, sharing (multicasting) the B tile
    int threads = 0;                // threads per CTA; 0: consumers plus one producer warpgroup
    Structure structure = Structure::WarpSpecialized;  // how the k-block loop is built
    int split_k = 1;                // CTAs sharing one output tile's K range (1: none)
    // Persistent (07) only: clusters sharing the k-blocks of the last wave's leftover tiles
    // (stream-K; 0: none, and split_k > 1 then cuts each leftover tile into split_k slices).
    int stream_k = 0;
    // What a step's variant changes in the k-block (step_candidate sets them):
    int copies_per_kblock = 2;      // TMA requests one CTA issues per k-block (03 bulk1d: a row each)
    int smem_conflict_ways = 1;     // ldmatrix bank-conflict degree (8: an unswizzled 128-byte-row tile)
    bool gpu_fence_per_kblock = false;  // every k-block's release is a GPU-scope fence (07 cg, clusters)
    bool memcpy_async = false;      // 02's copies spelled cuda::memcpy_async into a thread-scope pipeline
    // The TMA unit asks the L2 for 128-byte lines, not 256-byte pairs (07's every-shape maps
    // where K % 64 != 0, tiles.cuh): a box row that straddles two lines costs two requests.
    bool line_requests = false;
    // 07's every-shape kernel in ping-pong (tile_choice::pingpong): each consumer warpgroup
    // on a whole tile of its own, one's epilogue under the other's main loop. Outside the
    // model: such a problem is "not modeled".
    bool pingpong = false;
};

// From ladder::TileConfig (or anything with the same field names), without this header
// having to include the CUDA headers that step_api.h pulls in.
template <typename TileConfigLike>
Candidate to_candidate(const TileConfigLike& c, Structure s = Structure::WarpSpecialized) {
    return Candidate{c.bm, c.bn, c.bk, c.stages, c.consumer_warpgroups, c.cluster, c.threads, s, 1};
}

// "128x256x64:4:2:1" (BMxBNxBK:stages:consumer warpgroups:cluster).
std::string label(const Candidate& candidate);

// 128-byte L2 lines one 128-byte row of a box touches on average, rows K x 2 bytes apart: 1
// where 2K is a multiple of 128, else 2 - gcd(2K, 128) / 128 (K = 2056: 1.875).
double line_requests_per_row(long long k);

// ---- Prediction: time per k-block, per tile and in all --------------------------------------
// Every term is nanoseconds on one SM; see predict() in planner_model.cpp and the
// "How the planner predicts" section of the README.
struct Prediction {
    bool valid = false;
    double clock_mhz = 0;        // the SM clock the issue terms are converted at
    bool power_limited = false;  // clock_mhz is where board power meets the limit (below sm_clock_max_mhz)
    double power_w = 0;          // the board power the power model gives at clock_mhz (0: no model)
    double tensor_busy = 0;      // the tensor pipe's busy fraction: executed FLOP / (SMs x clock x 4096) / time
    double l2_traffic_tbps = 0;  // bytes the L2 reads for the SMs over the run, per time (TB/s)
    double dram_traffic_tbps = 0;  // bytes read from and written to DRAM over the run, per time (TB/s)
    int active_sms = 0;          // SMs with work in the busiest wave
    double issue_ns = 0;         // the SM issuing one k-block's math (mma.sync+ldmatrix, or wgmma)
    double feed_ns = 0;          // one k-block's bytes at this SM's share of the L2->SM bandwidth
    double fill_ns = 0;          // one stage alone: load latency + bytes at one SM's own rate
    double ring_ns = 0;          // (fill + issue + barrier) / stages in flight (Little's law)
    double kblock_ns = 0;        // max(issue, feed, ring)
    double prologue_ns = 0;      // first stage's fill, once per tile (once per SM when persistent)
    double epilogue_ns = 0;      // writing the C tile, per tile
    long long k_blocks = 0;      // k-blocks of one unit: a tile's, or a slice or run of a shared one
    double tile_ns = 0;          // prologue + k-blocks x k-block + epilogue
    long long rounds = 0;        // tiles one SM runs one after the other (waves, or tiles per SM)
    double launch_ns = 0;
    double dram_ns = 0;          // compulsory DRAM traffic at the DRAM bandwidth
    double total_us = 0;         // the prediction
    double tflops = 0;           // 2*M*N*K / total
    std::string limiter;         // the largest term
};

// ---- Plan: everything evaluate() works out -----------------------------------------------
struct Plan {
    Machine machine;
    Problem problem;
    Candidate candidate;

    bool fits = false;        // valid, fits in shared memory and registers, at least one CTA per SM
    bool modeled = false;     // false for steps without shared-memory tiles (outside the model)
    std::string limiter;      // what sets upper_bound_tflops, or why the candidate does not fit
    std::vector<std::string> notes;  // caveats worth printing

    // Threads and registers
    int threads_per_cta = 0;
    int acc_regs_per_thread = -1;     // fp32 accumulators per consumer thread; -1: n/a
    int reg_budget_per_thread = -1;   // registers a consumer thread may use; -1: n/a

    // Shared memory
    long long smem_per_stage_bytes = 0;    // (bm + bn) * bk * 2
    long long smem_operand_bytes = 0;      // stages * smem_per_stage_bytes
    long long smem_barrier_bytes = 0;      // two 8-byte mbarriers per stage
    long long smem_align_pad_bytes = 0;    // slack to align the base to 1024 bytes
    long long smem_total_bytes = 0;        // what the kernel asks for
    int max_stages_that_fit = 0;           // with one CTA per SM
    int ctas_per_sm = 0;

    // One k-block: math against data
    double kblock_flops = 0;               // 2 * bm * bn * bk
    double kblock_bytes = 0;               // bytes one CTA loads per k-block (after multicast)
    double intensity = 0;                  // 2*bm*bn*bk / ((bm+bn)*bk*2) FLOP/byte
    double dram_balance = 0;               // peak FLOP/s / DRAM bytes/s
    double l2_balance = 0;                 // peak FLOP/s / L2 bytes/s
    double math_ns_per_kblock = 0;         // one CTA's share of its SM's tensor cores
    double transfer_ns_per_kblock = 0;     // one CTA's share of its SM's share of L2 bandwidth
    int stages_needed = 0;                 // so that (stages-1) * math >= latency + transfer

    // Filling the GPU
    long long tiles_m = 0, tiles_n = 0, tiles = 0;
    long long k_blocks = 0;                // ceil(k / bk)
    long long slots = 0;                   // sm_count * ctas_per_sm CTAs run at once
    double waves = 0;                      // tiles / slots
    long long full_waves = 0;              // ceil(waves)
    long long last_wave_tiles = 0;
    double tiles_per_sm = 0;
    double wave_efficiency = 0;            // tiles / (full_waves * slots)
    double edge_efficiency = 0;            // useful m*n / (tiles * bm * bn)

    // Time lower bounds for the whole GEMM, microseconds
    double dram_bytes = 0;                 // compulsory: read A and B once, write C once
    double l2_bytes_moved = 0;             // L2 -> shared memory, every CTA's k-blocks
    double math_us = 0;                    // tensor cores busy, waves included
    double pipeline_us = 0;                // math, or latency when too few stages
    double dram_us = 0;
    double l2_us = 0;
    double bound_us = 0;                   // the largest of the above
    double upper_bound_tflops = 0;         // 2*m*n*k / bound_us (useful FLOP only)

    // The prediction (predict(), filled in by evaluate() for modeled candidates)
    Prediction prediction;
};

Plan evaluate(const Machine& machine, const Problem& problem, const Candidate& candidate);

// The time model alone, for a candidate that fits with `ctas_per_sm` CTAs per SM. The clock:
// clock_mhz where > 0 (e.g. the clock a benchmark row recorded); else, on a machine with a
// power model, the clock under the power limit (clock_under_power_limit); else the machine's
// load clock.
Prediction predict(const Machine& machine, const Problem& problem, const Candidate& candidate,
                   int ctas_per_sm, double clock_mhz = 0);

// ---- The clock under the power limit ------------------------------------------------------
// Whether the machine has the constants of the power model (all of them positive where they
// must be).
bool has_power_model(const Machine& machine);
// What a run does per unit of time, which sets its power: the tensor pipe's busy fraction
// and the memory traffic (TB/s). From a double: the busy fraction alone, no traffic.
struct Activity {
    double tensor_busy = 0, l2_tbps = 0, dram_tbps = 0;
    Activity(double busy = 0, double l2 = 0, double dram = 0) : tensor_busy(busy), l2_tbps(l2), dram_tbps(dram) {}
};
// Board power at SM clock `clock_mhz` with the tensor pipe busy a fraction `tensor_busy` of
// the time: power_idle_w + (clock / sm_clock_max_mhz)^3 (power_busy_w + tensor_busy P_op)
// + the memory traffic's share: (clock / sm_clock_max_mhz)^2 power_l2_w_per_tbps x L2 TB/s +
// power_dram_w_per_tbps x DRAM TB/s (0 where the machine file has no memory term).
double board_power_w(const Machine& machine, double clock_mhz, const Activity& activity, bool mma_sync,
                     bool zero_inputs);
// Whether the machine has the memory-traffic term of the power model.
bool has_memory_power(const Machine& machine);
// What ladder-probe measures for the power model: a loop's board power and SM clock, held
// for seconds, and its tensor pipe's busy fraction.
struct PowerSample {
    double power_w = 0, clock_mhz = 0, tensor_busy = 0;
};
// (P - power_idle_w) / (f / sm_clock_max_mhz)^3 = power_busy_w + u x P_op: one sample's
// activity power scaled to the peak clock.
double power_at_peak_clock_w(double idle_w, double clock_max_mhz, const PowerSample& sample);
// ladder-probe's memory loops (tensor pipe idle): the watts per TB/s of a stream of `tbps`
// whose board power and clock are `sample`'s, once P_idle, (f / f_max)^3 base_w (what the SMs
// draw at f_max running the same kernel without its bytes: the probe's baseline) and
// `known_w` (what the other traffic of the same loop draws, e.g. its L2 share in a DRAM
// stream) are taken off; divided by (f / f_max)^2 where the traffic follows the SMs' voltage.
double memory_power_w_per_tbps(double idle_w, double clock_max_mhz, double base_w, const PowerSample& sample,
                               double tbps, double known_w, bool follows_sm_voltage);
// power_busy_w and P_op from two samples of one instruction and operands at two busy
// fractions (the line through their activity powers). False, with *why, where they cannot
// give it: busy fractions too close, or a negative power.
bool fit_busy_and_op_power(double idle_w, double clock_max_mhz, const PowerSample& a, const PowerSample& b,
                           double* busy_w, double* op_w, std::string* why);
// P_op of another instruction or operands, from one sample and the power_busy_w above.
double fit_op_power(double idle_w, double clock_max_mhz, double busy_w, const PowerSample& sample);
// The SM clock at which board power meets the limit for a kernel whose tensor pipe is busy a
// fraction busy_at(f) of the time at clock f: sm_clock_max_mhz where the limit does not bind,
// else the clock where it does (bisection; busy_at may fall as f rises, where memory sets the
// pace, and the power still rises with f). 0 without a power model.
// busy_at(f) gives the run's Activity at clock f (or its busy fraction alone).
template <typename BusyAt>
double clock_under_power_limit(const Machine& m, bool mma_sync, bool zero_inputs, BusyAt busy_at) {
    if (!has_power_model(m)) return 0;
    const double top = m.sm_clock_max_mhz;
    if (board_power_w(m, top, Activity(busy_at(top)), mma_sync, zero_inputs) <= m.power_limit_w) return top;
    double lo = 0.2 * top, hi = top;  // no Hopper clock runs below a fifth of its peak
    for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (lo + hi);
        (board_power_w(m, mid, Activity(busy_at(mid)), mma_sync, zero_inputs) > m.power_limit_w ? hi : lo) = mid;
    }
    return lo;
}

// The clock of a benchmark row (ladder-plan --compare). The harness times a step in a loop
// (time_alternating, common/harness/harness.cu): every round launches the step and then cuBLAS
// on the same problem, and every batch of rounds waits behind a one-thread kernel that spins
// kBenchHoldNsPerLaunch per launch of the batch while the host enqueues it: 2 x that per round. The limiter
// holds the board's power averaged over far longer than one batch, so what it holds under
// the limit is a round's energy over a round's time: the GEMMs at their power, the spin at
// power_idle_w (one thread on one SM). The clock where that average meets the limit is above
// the clock of either GEMM run alone back to back wherever the spin is a sizable part of
// the round (short kernels). One kernel of a round: the problem it computes, its launch.
constexpr double kBenchHoldNsPerLaunch = 30000;  // harness.cu time_alternating: kHostNsPerLaunch
struct LoopKernel {
    Problem problem;
    Candidate candidate;
    int ctas_per_sm = 1;
};
// The clock under the power limit of a loop whose rounds run `kernels` one after the other
// and then idle `idle_ns_per_round`; 0 without a power model. (With one kernel and no idle
// time: predict()'s clock.)
double loop_clock_mhz(const Machine& machine, const std::vector<LoopKernel>& kernels, double idle_ns_per_round);
// The board power of that loop at SM clock `clock_mhz`: a round's energy over its time, each
// kernel's time and activity from the time model at that clock; 0 without a power model.
// Against a benchmark row's power_w at its sm_clock_mhz (both means over its loop), it checks
// the power model where the clock is known, whatever the limiter did to reach it.
double loop_power_w(const Machine& machine, const std::vector<LoopKernel>& kernels, double idle_ns_per_round,
                    double clock_mhz);

// The plan of step `number`'s own tile and loop structure (step_candidate) for `problem`:
// what ladder-plan --step, the step executables and the CSV's predicted columns all show.
// A step outside the model (01) gives a plan with fits == false.
Plan plan_step(const Machine& machine, int number, const std::string& variant, const Problem& problem);

// ---- Machine files (results/<device folder>/machine.json) -----------------------------------
// "h100" for "NVIDIA H100 80GB HBM3", "h200" for "NVIDIA H200": the first word after NVIDIA, lower case.
std::string device_folder(const std::string& device_name);
// Reads the constants of a machine file written by ladder-probe into `machine` (fields the file
// lacks keep their values). False with *error naming the file and the problem.
bool read_machine_file(const std::string& path, Machine* machine, std::string* error);

// ---- Step 07's configuration per shape ------------------------------------------------------
// Persistent warp-specialized tiles a step-07-like kernel can be built with: 128x256, 128x128
// and 64x256 (one consumer warpgroup), clusters 1 and 2, split-K 1, 2 and 4.
std::vector<Candidate> step07_candidates(const Machine& machine);
struct Choice {
    Candidate candidate;
    Plan plan;
};
// The candidate with the shortest predicted time for M x N x K (ties: the earlier candidate);
// plan.fits is false when no candidate fits.
Choice choose_config(long long m, long long n, long long k, const Machine& machine,
                     const std::vector<Candidate>& candidates);

// The most stages of this tile whose shared memory (operands, barriers, alignment slack) fits
// with `ctas_per_sm` CTAs resident on one SM; 0 if not even one stage fits.
int max_stages_that_fit(const Machine& machine, const Candidate& candidate, int ctas_per_sm = 1);

// Tiles a Hopper engineer would try: BM, BN in {64, 128, 256}, BK 64, consumer warpgroups
// min(BM/64, 2), cluster 1 and 2, and for each the most stages that fit with one CTA per SM
// and (when at least two) with two CTAs per SM.
std::vector<Candidate> default_candidates(const Machine& machine);

// Evaluates every candidate; best upper bound first, ties to the smaller shared-memory
// footprint, then to less L2 traffic. Candidates that do not fit come last.
std::vector<Plan> rank(const Machine& machine, const Problem& problem,
                       const std::vector<Candidate>& candidates);

// Several lines of explanation for students.
std::string explain(const Plan& plan);
// About 100 characters, printed by each step's executable next to its measurement.
std::string one_line(const Plan& plan);

// ---- The ladder-plan command line ---------------------------------------------------------
struct CliOptions {
    Problem problem;
    std::string machine = "h100";     // h100 | h200 | a machine file (.json)
    int step = 0;                     // > 0: the structure of this step (--step N[:variant])
    std::string variant;
    std::string compare_csv;          // --compare: predict every row of a benchmark CSV
    double clock_mhz = 0;             // > 0: convert issue terms at this clock
    std::string inputs;               // --inputs: "uniform", "zeros" or "" (not given)
    bool has_candidate = false;
    Candidate candidate;
    int top = 10;
    double l2_tbps = 0;               // > 0: override the machine's assumed L2 bandwidth
    double latency_ns = 0;            // > 0: override the assumed memory latency
    bool help = false;
};

// Parses the arguments after the program name. On a bad argument returns false and sets
// *error to a message naming it; the CLI then exits with status 2.
bool parse_cli(const std::vector<std::string>& args, CliOptions* options, std::string* error);

// Parses "BMxBNxBK[:stages[:wgs[:cluster]]]"; a part left out takes the default:
// min(BM/64, 2) warpgroups, cluster 1, and stages -1, which stands for "the most that fit"
// (resolve it with max_stages_that_fit before evaluating).
bool parse_candidate(const std::string& text, Candidate* candidate, std::string* error);

std::string cli_usage();

}  // namespace ladder::plan
