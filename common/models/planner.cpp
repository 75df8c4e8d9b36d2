// planner.cpp: the arithmetic behind planner.h. Read it top to bottom: machine facts first,
// then evaluate(), which follows the order a kernel engineer works in on paper.
#include "planner.h"

#include "arg_parse.h"  // parse_whole, printable, kMaxDimension, valid_k
#include "tile_choice.h"  // kFamily, in_family: the tiles --tile accepts (step 07's)

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace ladder::plan {
namespace {

// ---- Assumptions of the model (each one is printed or explained somewhere) -------------
constexpr int kWarpgroupThreads = 128;          // 4 warps issue one wgmma together
constexpr int kWgmmaRowsPerWarpgroup = 64;      // wgmma's M is 64 per warpgroup
constexpr int kBytesPerElement = 2;             // bf16 operands
constexpr long long kBarrierBytesPerStage = 16; // a "full" and an "empty" mbarrier, 8 bytes each
constexpr long long kAlignPadBytes = 1024;      // 128B-swizzled tiles need a 1024-byte aligned
                                                // base; the kernel aligns the dynamic smem
                                                // pointer itself and asks for 1 KiB extra
constexpr int kProducerRegsPerThread = 40;      // the producer warpgroup gives registers away
                                                // with setmaxnreg.dec (it only issues TMA)
constexpr int kNonAccumulatorRegs = 32;         // addresses, loop counters, barrier phases,
                                                // wgmma descriptors, epilogue temporaries
constexpr int kRegAllocationGranule = 8;        // registers are handed out per thread in 8s
constexpr double kWorthNaming = 0.90;           // a loss above 10% gets named as the limiter

// The L2 -> SM fill rate is not on any datasheet. Published third-party estimates for an
// H100 SXM range from about 7 to 12 TB/s; we assume 40 bytes per clock per SM, which is
// 10.5 TB/s for 132 SMs at 1.98 GHz. Override it with ladder-plan --l2-tbps.
constexpr double kAssumedL2BytesPerClkPerSm = 40.0;

// Time from issuing a TMA load to the data landing in shared memory when it misses L2.
// A deliberately pessimistic round number, not measured here (pointer-chasing benchmarks
// report less for a single load): the DRAM access plus the TMA and mbarrier round trip.
constexpr double kAssumedMemLatencyNs = 800.0;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

double kib(long long bytes) { return static_cast<double>(bytes) / 1024.0; }

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buffer[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buffer, sizeof buffer, fmt, args);
    va_end(args);
    return buffer;
}

double peak_flops(const Machine& m) { return m.dense_bf16_tflops * 1e12; }

// Rows of A and B one stage holds. A ping-pong stage feeds one consumer: half of A's rows.
int stage_rows(const Candidate& c) {
    return (c.structure == Structure::PingPong ? c.bm / 2 : c.bm) + c.bn;
}

// Threads of one CTA: the consumers plus one producer warpgroup, unless the step says.
int threads_per_cta(const Candidate& c) {
    if (c.threads > 0) return c.threads;
    if (c.consumer_warpgroups > 0) return (c.consumer_warpgroups + 1) * kWarpgroupThreads;
    return 0;  // unknown (a step without warpgroups that did not say)
}

// Registers one consumer thread may use when `ctas` CTAs share the SM's register file.
// With a producer warpgroup we assume setmaxnreg moves the producer's registers to the
// consumers (the producer keeps kProducerRegsPerThread); without one, all threads get the same.
int register_budget(const Machine& m, const Candidate& c, int threads, int ctas) {
    const int regs_per_cta = m.regs_per_sm / ctas;
    const int consumer_threads = c.consumer_warpgroups * kWarpgroupThreads;
    const int producer_threads = threads - consumer_threads;
    int raw = producer_threads > 0
                  ? (regs_per_cta - producer_threads * kProducerRegsPerThread) / consumer_threads
                  : regs_per_cta / threads;
    raw -= raw % kRegAllocationGranule;
    return std::max(0, std::min(raw, m.regs_per_thread_max));
}

// The reason a candidate cannot be built as stated, or "" when it can.
std::string invalid_reason(const Machine& m, const Problem& p, const Candidate& c) {
    if (m.sm_count <= 0 || m.smem_per_block_optin_bytes <= 0 || m.smem_per_sm_bytes <= 0 ||
        m.regs_per_sm <= 0 || m.regs_per_thread_max <= 0 || m.max_threads_per_sm <= 0 ||
        m.max_ctas_per_sm <= 0 || m.dram_tbps <= 0 || m.l2_tbps <= 0 || m.mem_latency_ns < 0)
        return "machine description incomplete";
    if (p.m <= 0 || p.n <= 0 || p.k <= 0) return "M, N and K must be positive";
    if (c.bm <= 0 || c.bn <= 0) return "BM and BN must be positive";
    if (c.stages < 0) return "stages must be 0 or more";
    // A step without shared-memory tiles (stages 0) may have no k-block (BK 0).
    if (c.bk < 0 || (c.bk == 0 && c.stages > 0)) return "BK must be positive";
    if (c.consumer_warpgroups < 0) return "consumer warpgroups must be 0 or more";
    if (c.cluster < 1 || c.cluster > 16) return "cluster must be 1..16 (8 is the portable maximum)";
    if (c.threads < 0 || c.threads > 1024) return "a CTA has 1..1024 threads";
    if (c.consumer_warpgroups > 0) {
        const int rows = kWgmmaRowsPerWarpgroup * c.consumer_warpgroups;
        if (c.bm % rows != 0)
            return format("BM=%d is not a multiple of %d (each of %d warpgroups owns 64-row wgmma slabs)",
                          c.bm, rows, c.consumer_warpgroups);
        if (c.bn % 8 != 0 || c.bn > 256) return "wgmma needs BN a multiple of 8, at most 256";
        if (c.bk % 16 != 0) return "wgmma consumes bf16 K in steps of 16: BK must be a multiple of 16";
        if (c.threads > 0 && c.threads < c.consumer_warpgroups * kWarpgroupThreads)
            return "fewer threads than the consumer warpgroups need";
    }
    return "";
}

}  // namespace

// ---- Machines ---------------------------------------------------------------------------
// Tensor-core rate per SM: an H100 SM has 4 tensor cores, each doing 512 dense bf16
// multiply-adds per clock = 4 * 512 * 2 = 4096 FLOP/clk/SM. NVIDIA's H100 SXM datasheet
// figure of 989.4 TFLOP/s dense bf16 is exactly 132 SMs * 4096 * 1.83 GHz, so the datasheet
// quotes the peak at 1.83 GHz, below the 1.98 GHz maximum the driver reports. A100: 2048
// (108 SMs * 2048 * 1.41 GHz = 312 TFLOP/s, its datasheet figure).
int dense_bf16_flop_per_clk_per_sm(int cc_major, int cc_minor) {
    if (cc_major == 9 && cc_minor == 0) return 4096;
    if (cc_major == 8 && cc_minor == 0) return 2048;
    return 0;
}

Machine h100_sxm() {
    Machine m;
    m.name = "H100 SXM5 80GB (defaults)";
    m.sm_count = 132;                           // datasheet / Hopper whitepaper
    m.smem_per_block_optin_bytes = 232448;      // 227 KiB, CUDA Programming Guide (cc 9.0)
    m.smem_per_sm_bytes = 233472;               // 228 KiB, same source
    m.smem_reserved_per_block_bytes = 1024;     // 1 KiB the driver keeps per CTA, same source
    m.regs_per_sm = 65536;                      // same source
    m.regs_per_thread_max = 255;                // same source
    m.max_threads_per_sm = 2048;                // same source
    m.max_ctas_per_sm = 32;                     // same source
    m.l2_bytes = 50LL * 1024 * 1024;            // 50 MB, Hopper whitepaper
    m.sm_clock_ghz = 1.83;                      // the clock the datasheet peak implies (see above)
    m.tensor_flop_per_clk_per_sm = 4096;
    m.dense_bf16_tflops = m.sm_count * m.tensor_flop_per_clk_per_sm * m.sm_clock_ghz * 1e-3;  // 989.4
    m.dram_tbps = 3.35;                         // HBM3, datasheet
    m.l2_tbps = kAssumedL2BytesPerClkPerSm * m.sm_count * 1.98 * 1e-3;  // assumption, at max clock
    m.mem_latency_ns = kAssumedMemLatencyNs;    // assumption
    // The time model's constants: results/h100/machine.json, where each says how it was
    // obtained (not measured by ladder-probe: read off the H100 benchmark and timelines).
    m.load_clock_mhz = 1980;
    m.mma_sync_flop_per_clk = 2450;
    m.wgmma_flop_per_clk = 3890;
    m.ldmatrix_bytes_per_clk = 128;
    m.l2_tma_tbps = 9.0;
    m.l2_cp_async_tbps = 9.0;
    m.tma_latency_ns = 250;
    m.tma_one_sm_gbps = 220;
    m.cp_async_latency_ns = 250;
    m.mbarrier_round_trip_ns = 20;
    m.store16_tbps = 4.3;
    m.store4_tbps = 4.5;
    m.tma_store_tbps = 3.4;
    m.launch_us = 4.0;
    m.not_measured = {"all: results/h100/machine.json"};
    m.source = "datasheet: 132 SMs, 989.4 dense bf16 TFLOP/s (=132 x 4096 FLOP/clk x 1.83 GHz), "
               "3.35 TB/s HBM3; CUDA guide: smem/registers; assumed: L2 bandwidth, latency; "
               "time model: results/h100/machine.json (not measured)";
    return m;
}

Machine h200() {
    // Same GH100 chip configuration as the H100 SXM (132 SMs, same SM, same datasheet peak of
    // 989 TFLOP/s dense bf16); the difference is memory: 141 GB of HBM3e at 4.8 TB/s. The H200
    // datasheet does not list the L2 size; we keep the H100's 50 MB (check l2CacheSize).
    Machine m = h100_sxm();
    m.name = "H200 SXM 141GB (defaults)";
    m.dram_tbps = 4.8;  // HBM3e, datasheet
    m.source = "datasheet: 132 SMs, 989 dense bf16 TFLOP/s, 4.8 TB/s HBM3e; other values as H100 "
               "SXM; assumed: L2 size and bandwidth, latency";
    return m;
}

Machine machine_from_device(const DeviceFacts& f) {
    Machine m = h100_sxm();
    m.name = f.name.empty() ? std::string("GPU") : f.name;
    if (f.sm_count > 0) m.sm_count = f.sm_count;
    if (f.smem_per_block_optin_bytes > 0) m.smem_per_block_optin_bytes = f.smem_per_block_optin_bytes;
    if (f.smem_per_sm_bytes > 0) m.smem_per_sm_bytes = f.smem_per_sm_bytes;
    if (f.smem_reserved_per_block_bytes > 0) m.smem_reserved_per_block_bytes = f.smem_reserved_per_block_bytes;
    if (f.regs_per_sm > 0) m.regs_per_sm = f.regs_per_sm;
    if (f.max_threads_per_sm > 0) m.max_threads_per_sm = f.max_threads_per_sm;
    if (f.l2_bytes > 0) m.l2_bytes = f.l2_bytes;

    // Peak: the device reports its maximum SM clock, which gives a ceiling above the
    // datasheet's (1.98 GHz vs 1.83 GHz on an H100 SXM). It stays an upper bound: under a
    // long GEMM the clock settles lower when the GPU reaches its power limit.
    std::string peak_from = "1.83 GHz datasheet clock";
    if (f.sm_clock_khz > 0) {
        m.sm_clock_ghz = f.sm_clock_khz * 1e-6;
        peak_from = "reported peak SM clock";
    }
    if (f.cc_major > 0) m.tensor_flop_per_clk_per_sm = dense_bf16_flop_per_clk_per_sm(f.cc_major, f.cc_minor);
    m.dense_bf16_tflops = m.sm_count * m.tensor_flop_per_clk_per_sm * m.sm_clock_ghz * 1e-3;
    // The L2 figure stays the built-in one (it is not a function of the clock the device
    // reports), so that ladder-plan and the step executables agree.

    // DRAM: HBM transfers on both clock edges: 2 * clock * bus width in bytes.
    std::string dram_from = "H100 SXM datasheet";
    if (f.mem_clock_khz > 0 && f.mem_bus_width_bits > 0) {
        m.dram_tbps = 2.0 * f.mem_clock_khz * 1e3 * (f.mem_bus_width_bits / 8.0) * 1e-12;
        dram_from = "2 x memory clock x bus width";
    }
    m.source = format("read from the device: SMs, smem, registers, L2 size; peak = SMs x %d FLOP/clk x %s; "
                      "DRAM = %s; assumed: L2 bandwidth, latency",
                      m.tensor_flop_per_clk_per_sm, peak_from.c_str(), dram_from.c_str());
    return m;
}

std::string describe(const Machine& m) {
    std::ostringstream out;
    out << format("machine  %s\n", m.name.c_str());
    out << format("  %d SMs, %.0f KiB shared memory per block (opt-in), %d registers per SM, %.0f MiB L2\n",
                  m.sm_count, kib(m.smem_per_block_optin_bytes), m.regs_per_sm,
                  static_cast<double>(m.l2_bytes) / (1024.0 * 1024.0));
    out << format("  peak %.1f dense bf16 TFLOP/s = %d SMs x %d FLOP/clk x %.2f GHz\n",
                  m.dense_bf16_tflops, m.sm_count, m.tensor_flop_per_clk_per_sm, m.sm_clock_ghz);
    out << format("  DRAM %.2f TB/s, L2->SM %.1f TB/s (assumed), memory latency %.0f ns (assumed)\n",
                  m.dram_tbps, m.l2_tbps, m.mem_latency_ns);
    out << format("  time model: clock under load %.0f MHz; mma.sync %.0f, wgmma %.0f FLOP/clk/SM; ldmatrix %.0f B/clk/SM\n",
                  m.load_clock_mhz, m.mma_sync_flop_per_clk, m.wgmma_flop_per_clk, m.ldmatrix_bytes_per_clk);
    out << format("              L2->SM %.2f TB/s (TMA), %.2f (cp.async), one SM %.0f GB/s; latency TMA %.0f ns,"
                  " cp.async %.0f ns, mbarrier %.0f ns\n",
                  m.l2_tma_tbps, m.l2_cp_async_tbps, m.tma_one_sm_gbps, m.tma_latency_ns, m.cp_async_latency_ns,
                  m.mbarrier_round_trip_ns);
    if (m.l2_tma_shared_tbps > 0)
        out << format("              L2->SM %.2f TB/s (TMA) where 8 SMs read each line at a time, as a GEMM's do\n",
                      m.l2_tma_shared_tbps);
    if (m.l2_tma_shared_loaded_tbps > 0)
        out << format("              L2->SM %.2f TB/s (TMA) the same while the SMs run wgmma, a GEMM's feed\n",
                      m.l2_tma_shared_loaded_tbps);
    if (has_power_model(m))
        out << format("  power model: P = %.0f W idle + (f / %.0f MHz)^3 x (%.0f W + busy x %.0f W wgmma, %.0f mma.sync "
                      "random; %.0f, %.0f zeros), limit %.0f W\n",
                      m.power_idle_w, m.sm_clock_max_mhz, m.power_busy_w, m.power_wgmma_random_w,
                      m.power_mma_sync_random_w, m.power_wgmma_zero_w, m.power_mma_sync_zero_w, m.power_limit_w);
    if (has_power_model(m))
        out << (has_memory_power(m)
                    ? format("              + (f / %.0f MHz)^2 x %.1f W per TB/s from the L2 + %.1f W per TB/s from DRAM\n",
                             m.sm_clock_max_mhz, m.power_l2_w_per_tbps, m.power_dram_w_per_tbps)
                    : std::string("              no memory-traffic term (a machine file from before ladder-probe "
                                  "measured it)\n"));
    if (m.dram_read_tbps > 0)
        out << format("              DRAM %.2f TB/s as a GEMM's TMA reads get it\n", m.dram_read_tbps);
    if (m.tma_dram_latency_ns > 0)
        out << format("              TMA latency from DRAM %.0f ns (a run's first fill)\n", m.tma_dram_latency_ns);
    out << format("              stores %.2f (16 B), %.2f (4 B), %.2f (TMA) TB/s; launch %.1f us\n", m.store16_tbps,
                  m.store4_tbps, m.tma_store_tbps, m.launch_us);
    if (m.store16_one_sm_gbps > 0 || m.store4_one_sm_gbps > 0 || m.tma_store_one_sm_gbps > 0)
        out << format("              one SM storing alone %.1f (16 B), %.1f (4 B), %.1f (TMA) GB/s\n",
                      m.store16_one_sm_gbps, m.store4_one_sm_gbps, m.tma_store_one_sm_gbps);
    if (!m.not_measured.empty()) {
        out << "  not measured by ladder-probe:";
        for (const std::string& key : m.not_measured) out << " " << key;
        out << "\n";
    }
    out << "  sources: " << m.source << "\n";
    return out.str();
}

std::string label(const Candidate& c) {
    return format("%dx%dx%d:%d:%d:%d", c.bm, c.bn, c.bk, c.stages, c.consumer_warpgroups, c.cluster);
}

// ---- Shared memory -----------------------------------------------------------------------
int max_stages_that_fit(const Machine& m, const Candidate& c, int ctas_per_sm) {
    if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || ctas_per_sm <= 0) return 0;
    const long long per_stage = static_cast<long long>(stage_rows(c)) * c.bk * kBytesPerElement +
                                kBarrierBytesPerStage;
    // One CTA may use at most the opt-in limit; together the CTAs of an SM (each with its
    // driver-reserved KiB) share the SM's shared memory.
    const long long per_cta = std::min(m.smem_per_block_optin_bytes,
                                       m.smem_per_sm_bytes / ctas_per_sm - m.smem_reserved_per_block_bytes);
    const long long for_stages = per_cta - kAlignPadBytes;
    return for_stages > 0 ? static_cast<int>(for_stages / per_stage) : 0;
}

// ---- evaluate(): the paper calculation ---------------------------------------------------
Plan evaluate(const Machine& machine, const Problem& problem, const Candidate& c) {
    Plan p;
    p.machine = machine;
    p.problem = problem;
    p.candidate = c;

    if (std::string why = invalid_reason(machine, problem, c); !why.empty()) {
        p.limiter = "invalid: " + why;
        return p;
    }
    const Machine& m = machine;
    // The problem's sizes as doubles, for products that could overflow 64-bit integers.
    const double M = static_cast<double>(problem.m), N = static_cast<double>(problem.n),
                 K = static_cast<double>(problem.k);
    p.threads_per_cta = threads_per_cta(c);

    // 1. Shared memory: one stage holds a BMxBK slab of A and a BNxBK slab of B.
    p.smem_per_stage_bytes = static_cast<long long>(stage_rows(c)) * c.bk * kBytesPerElement;
    p.smem_operand_bytes = c.stages * p.smem_per_stage_bytes;
    if (c.stages > 0) {
        p.smem_barrier_bytes = c.stages * kBarrierBytesPerStage;
        p.smem_align_pad_bytes = kAlignPadBytes;
    }
    p.smem_total_bytes = p.smem_operand_bytes + p.smem_barrier_bytes + p.smem_align_pad_bytes;
    p.max_stages_that_fit = max_stages_that_fit(m, c, 1);

    // 2. CTAs per SM: limited by shared memory, threads and the hardware's CTA slots ...
    int ctas = m.max_ctas_per_sm;
    if (p.smem_total_bytes > 0) {
        const long long per_cta = p.smem_total_bytes + m.smem_reserved_per_block_bytes;
        ctas = p.smem_total_bytes <= m.smem_per_block_optin_bytes
                   ? static_cast<int>(std::min<long long>(ctas, m.smem_per_sm_bytes / per_cta))
                   : 0;
    }
    if (p.threads_per_cta > 0) ctas = std::min(ctas, m.max_threads_per_sm / p.threads_per_cta);

    // 3. ... and by registers: the fp32 accumulators of the BMxBN tile are spread over the
    // consumer threads, one register each. Fewer CTAs per SM leave more registers per thread.
    if (c.consumer_warpgroups > 0) {
        p.acc_regs_per_thread = c.bm * c.bn / (c.consumer_warpgroups * kWarpgroupThreads);
        while (ctas > 0 &&
               register_budget(m, c, p.threads_per_cta, ctas) < p.acc_regs_per_thread + kNonAccumulatorRegs)
            --ctas;
        p.reg_budget_per_thread = register_budget(m, c, p.threads_per_cta, std::max(ctas, 1));
    }
    // Without warpgroups (steps 02-04) the accumulators are spread evenly over all threads.
    if (c.consumer_warpgroups == 0 && p.threads_per_cta > 0 && c.stages > 0) {
        int regs = c.bm * c.bn / p.threads_per_cta + kNonAccumulatorRegs;
        regs += (kRegAllocationGranule - regs % kRegAllocationGranule) % kRegAllocationGranule;
        ctas = std::min(ctas, m.regs_per_sm / (regs * p.threads_per_cta));
    }
    p.ctas_per_sm = ctas;

    // 4. One k-block: FLOP done against bytes brought in. With a cluster of C CTAs along M,
    // the C CTAs need the same B slab: it is read from L2 once and multicast to all of them.
    p.kblock_flops = 2.0 * c.bm * c.bn * c.bk;
    p.kblock_bytes = (c.bm + static_cast<double>(c.bn) / c.cluster) * c.bk * kBytesPerElement;
    if (c.bk > 0) p.intensity = p.kblock_flops / static_cast<double>(p.smem_per_stage_bytes);
    p.dram_balance = peak_flops(m) / (m.dram_tbps * 1e12);
    p.l2_balance = peak_flops(m) / (m.l2_tbps * 1e12);

    // 5. Tiles and waves. A cluster launches whole clusters: tiles along M round up to C.
    p.tiles_m = ceil_div(ceil_div(problem.m, c.bm), c.cluster) * c.cluster;
    p.tiles_n = ceil_div(problem.n, c.bn);
    p.tiles = p.tiles_m * p.tiles_n;
    p.k_blocks = c.bk > 0 ? ceil_div(problem.k, c.bk) : 0;
    p.edge_efficiency = M * N / (static_cast<double>(p.tiles) * c.bm * c.bn);
    p.tiles_per_sm = static_cast<double>(p.tiles) / m.sm_count;
    p.dram_bytes = (M * K + N * K + M * N) * kBytesPerElement;
    p.l2_bytes_moved = static_cast<double>(p.tiles) * p.k_blocks * p.kblock_bytes;

    // Reasons not to go on.
    if (p.smem_total_bytes > m.smem_per_block_optin_bytes) {
        p.limiter = format("shared memory: does not fit (%.1f KiB > %.0f KiB per block)",
                           kib(p.smem_total_bytes), kib(m.smem_per_block_optin_bytes));
        return p;
    }
    if (c.consumer_warpgroups > 0 && ctas == 0) {
        p.limiter = format("registers: %d accumulators + ~%d others > %d per thread",
                           p.acc_regs_per_thread, kNonAccumulatorRegs, p.reg_budget_per_thread);
        return p;
    }
    if (ctas == 0) {
        p.limiter = "does not fit: no CTA can be resident on an SM";
        return p;
    }
    p.fits = true;
    p.slots = static_cast<long long>(m.sm_count) * ctas;
    p.waves = static_cast<double>(p.tiles) / p.slots;
    p.full_waves = ceil_div(p.tiles, p.slots);
    p.last_wave_tiles = p.tiles - (p.full_waves - 1) * p.slots;
    p.wave_efficiency = static_cast<double>(p.tiles) / (p.full_waves * p.slots);

    if (c.stages == 0) {
        p.limiter = "outside the model: no shared-memory tiles";
        p.notes.push_back("the planner bounds tiled kernels that stage operands through shared memory");
        return p;
    }
    if (m.dense_bf16_tflops <= 0) {
        p.limiter = "unknown tensor-core peak for this GPU";
        return p;
    }
    p.modeled = true;

    // 6. The pipeline. A CTA shares its SM's tensor cores and its SM's share of the L2
    // bandwidth with the other CTAs on that SM.
    const double cta_flops_per_s = peak_flops(m) / m.sm_count / ctas;
    const double cta_bytes_per_s = m.l2_tbps * 1e12 / m.sm_count / ctas;
    const double math_ns = p.kblock_flops / cta_flops_per_s * 1e9;
    const double transfer_ns = p.kblock_bytes / cta_bytes_per_s * 1e9;
    p.math_ns_per_kblock = math_ns;
    p.transfer_ns_per_kblock = transfer_ns;
    // A stage's round trip is load latency + transfer + math; while one stage is consumed,
    // the other (stages - 1) must be in flight: (stages - 1) * math >= latency + transfer.
    // In double first: a machine described with extreme numbers must not overflow the int.
    const double needed = 1 + std::ceil((m.mem_latency_ns + transfer_ns) / math_ns - 1e-9);
    p.stages_needed = needed < 1e9 ? static_cast<int>(needed) : 1000000000;
    // With S stages the ring completes S k-blocks per round trip (Little's law), and never
    // faster than the tensor cores allow.
    const double kblock_ns =
        std::max(math_ns, (m.mem_latency_ns + transfer_ns + math_ns) / c.stages);

    // 7. Lower bounds on the time of the whole GEMM. Every wave takes as long as a full one.
    const double per_tile_kblocks = static_cast<double>(p.k_blocks);
    p.math_us = p.full_waves * per_tile_kblocks * math_ns * 1e-3;
    p.pipeline_us = p.full_waves * per_tile_kblocks * kblock_ns * 1e-3;
    // DRAM: only the compulsory traffic (A and B read once, C written once), i.e. we assume
    // L2 catches every re-read. L2: every CTA's k-blocks cross from L2 to shared memory.
    p.dram_us = p.dram_bytes / (m.dram_tbps * 1e12) * 1e6;
    p.l2_us = p.l2_bytes_moved / (m.l2_tbps * 1e12) * 1e6;
    p.bound_us = std::max({p.pipeline_us, p.l2_us, p.dram_us});
    const double useful_flops = 2.0 * M * N * K;
    p.upper_bound_tflops = useful_flops / (p.bound_us * 1e-6) * 1e-12;

    // 8. Name the limiter. When the pipeline sets the bound, name the biggest of its three
    // losses: stalls for data (too few stages), the idle SMs of the last wave, and the
    // outputs outside C that edge tiles compute; if none costs 10%, it is the math itself.
    if (p.bound_us == p.pipeline_us) {
        const double latency_factor = math_ns / kblock_ns;
        const double worst = std::min({latency_factor, p.wave_efficiency, p.edge_efficiency});
        if (worst < kWorthNaming || latency_factor < 1 - 1e-9) {
            if (worst == latency_factor)
                p.limiter = "memory latency: too few stages";
            else if (worst == p.wave_efficiency)
                p.limiter = "wave quantization";
            else
                p.limiter = "tile padding at the edges";
        } else {
            p.limiter = "tensor-core math";
        }
    } else if (p.bound_us == p.l2_us) {
        p.limiter = "L2->SM bandwidth";
    } else {
        p.limiter = "DRAM bandwidth";
    }

    // 9. The prediction: the time model of planner_model.cpp for the same tile.
    p.prediction = predict(m, problem, c, ctas);

    // 10. Caveats worth a line.
    std::vector<std::string>& notes = p.notes;
    if (c.consumer_warpgroups == 0)
        notes.push_back("no warpgroups: the bound uses the wgmma peak, which warp-level mma.sync does not "
                        "reach; the prediction uses the measured mma.sync rate");
    if (c.cluster > 1)
        notes.push_back(format("the %d CTAs of a cluster are assumed to lie along M and multicast one B slab",
                               c.cluster));
    const Machine& mm = p.machine;
    if (c.memcpy_async)
        notes.push_back(format("cuda::memcpy_async: %.0f more issue cycles per warp-wide copy in the issue term "
                               "(memcpy_async_issue_clk, fitted, not probed)", mm.memcpy_async_issue_clk));
    if (c.copies_per_kblock != 2 && c.structure != Structure::MmaSyncCpAsync)
        notes.push_back(format("%d TMA requests per k-block at %.1f ns each in the fill (tma_request_ns, fitted, "
                               "not probed)", c.copies_per_kblock, mm.tma_request_ns));
    if (c.smem_conflict_ways > 1)
        notes.push_back(format("unswizzled tile: every ldmatrix conflicts %d ways on the shared-memory banks", c.smem_conflict_ways));
    if (c.gpu_fence_per_kblock && c.cluster > 1)
        notes.push_back(format("a GPU-scope fence per k-block adds %.0f ns to the issue term (gpu_fence_ns, fitted, "
                               "not probed)", mm.gpu_fence_ns));
    if (c.consumer_warpgroups > 0)
        notes.push_back(format("%.0f cycles per k-block between two k-blocks' wgmma (wgmma_kblock_overhead_clk, "
                               "fitted, not probed)", mm.wgmma_kblock_overhead_clk));
    if (c.stream_k > 0)
        notes.push_back(format("stream-K: %d clusters share the k-blocks of the last wave's tiles", c.stream_k));
    else if (p.tiles < p.slots && c.split_k == 1)
        notes.push_back("fewer tiles than CTA slots: splitting K (split-K, stream-K) would fill the GPU");
    return p;
}

// ---- Candidates and ranking ---------------------------------------------------------------
std::vector<Candidate> default_candidates(const Machine& machine) {
    std::vector<Candidate> out;
    for (int bm : {64, 128, 256})
        for (int bn : {64, 128, 256})
            for (int cluster : {1, 2}) {
                Candidate c;
                c.bm = bm;
                c.bn = bn;
                c.bk = 64;  // 64 bf16 = 128 bytes: one 128B-swizzle row, the widest TMA swizzle
                c.consumer_warpgroups = std::min(bm / kWgmmaRowsPerWarpgroup, 2);
                c.cluster = cluster;
                c.threads = 0;
                const int one_cta = max_stages_that_fit(machine, c, 1);
                const int two_ctas = max_stages_that_fit(machine, c, 2);
                c.stages = std::max(one_cta, 1);  // at least one stage, so a tile too big still shows
                out.push_back(c);
                if (two_ctas >= 2 && two_ctas != one_cta) {
                    c.stages = two_ctas;
                    out.push_back(c);
                }
            }
    return out;
}

std::vector<Plan> rank(const Machine& machine, const Problem& problem,
                       const std::vector<Candidate>& candidates) {
    std::vector<Plan> plans;
    plans.reserve(candidates.size());
    for (const Candidate& c : candidates) plans.push_back(evaluate(machine, problem, c));
    std::stable_sort(plans.begin(), plans.end(), [](const Plan& a, const Plan& b) {
        const double scale = std::max(a.upper_bound_tflops, b.upper_bound_tflops);
        if (std::fabs(a.upper_bound_tflops - b.upper_bound_tflops) > 1e-9 * scale)
            return a.upper_bound_tflops > b.upper_bound_tflops;
        if (a.fits != b.fits) return a.fits;
        if (a.smem_total_bytes != b.smem_total_bytes) return a.smem_total_bytes < b.smem_total_bytes;
        return a.l2_bytes_moved < b.l2_bytes_moved;
    });
    return plans;
}

// ---- Text -----------------------------------------------------------------------------------
std::string explain(const Plan& p) {
    const Candidate& c = p.candidate;
    const Machine& m = p.machine;
    std::ostringstream out;
    out << format("plan for %dx%dx%d, %d stages, %d consumer warpgroups, cluster %d on %s\n", c.bm, c.bn,
                  c.bk, c.stages, c.consumer_warpgroups, c.cluster, m.name.c_str());
    out << format("  problem       M=%lld N=%lld K=%lld\n", p.problem.m, p.problem.n, p.problem.k);
    if (p.limiter.rfind("invalid", 0) == 0) {
        out << "  " << p.limiter << "\n";
        return out.str();
    }

    if (c.consumer_warpgroups > 0) {
        out << format("  threads       %d per CTA (%d consumer warpgroups%s)\n", p.threads_per_cta,
                      c.consumer_warpgroups,
                      p.threads_per_cta > c.consumer_warpgroups * kWarpgroupThreads ? " + producer" : "");
        out << format("  registers     %d x %d fp32 accumulators / %d consumer threads = %d per thread;"
                      " budget %d per thread\n",
                      c.bm, c.bn, c.consumer_warpgroups * kWarpgroupThreads, p.acc_regs_per_thread,
                      p.reg_budget_per_thread);
    } else {
        out << "  registers     n/a (no warpgroups: accumulators are spread over warps as the step chooses)\n";
    }

    if (c.stages > 0) {
        out << format("  shared memory (%d+%d) x %d x 2 B = %.1f KiB per stage; x %d stages = %.1f KiB,"
                      " + %lld B barriers + %lld B alignment = %.1f KiB of %.0f KiB\n",
                      c.bm, c.bn, c.bk, kib(p.smem_per_stage_bytes), c.stages, kib(p.smem_operand_bytes),
                      p.smem_barrier_bytes, p.smem_align_pad_bytes, kib(p.smem_total_bytes),
                      kib(m.smem_per_block_optin_bytes));
        out << format("                at most %d stages fit with one CTA per SM; %d resident per SM\n", p.max_stages_that_fit,
                      p.ctas_per_sm);
    } else {
        out << "  shared memory none (operands come straight from global memory)\n";
    }
    if (!p.fits) {
        out << "  does not fit: " << p.limiter << "\n";
        return out.str();
    }

    if (p.modeled) {
        out << format("  intensity     2x%dx%dx%d FLOP / %.0f B = %.1f FLOP/B per k-block; to keep the"
                      " tensor cores busy the machine needs %.0f FLOP/B from DRAM, %.0f from L2\n",
                      c.bm, c.bn, c.bk, static_cast<double>(p.smem_per_stage_bytes), p.intensity,
                      p.dram_balance, p.l2_balance);
        if (p.intensity < p.dram_balance)
            out << format("                below the DRAM balance: L2 must serve the re-reads (each A slab"
                          " is read by %lld CTAs, each B slab by %lld)\n",
                          p.tiles_n, p.tiles_m);
        if (c.cluster > 1)
            out << format("                multicast: a CTA reads %.0f B from L2 per k-block, %.1f FLOP/B"
                          " from L2\n",
                          p.kblock_bytes, p.kblock_flops / p.kblock_bytes);
    }
    out << format("  waves         %lld x %lld = %lld tiles on %d SMs x %d = %.2f waves (%.2f tiles per SM);"
                  " last wave %lld/%lld, efficiency %.1f%%\n",
                  p.tiles_m, p.tiles_n, p.tiles, m.sm_count, p.ctas_per_sm, p.waves, p.tiles_per_sm,
                  p.last_wave_tiles, p.slots, 100.0 * p.wave_efficiency);
    if (p.edge_efficiency < 1.0)
        out << format("                edge tiles: %.1f%% of the computed outputs are inside C\n",
                      100.0 * p.edge_efficiency);
    if (p.modeled) {
        out << format("  pipeline      per k-block: %.0f ns math, %.0f ns transfer, %.0f ns latency ->"
                      " needs %d stages, has %d\n",
                      p.math_ns_per_kblock, p.transfer_ns_per_kblock, m.mem_latency_ns, p.stages_needed,
                      c.stages);
        out << format("  time bounds   math %.1f us, pipeline %.1f us, L2 %.1f us (%.2f GB), DRAM %.1f us"
                      " (%.1f MB compulsory)\n",
                      p.math_us, p.pipeline_us, p.l2_us, p.l2_bytes_moved * 1e-9, p.dram_us,
                      p.dram_bytes * 1e-6);
        out << format("  upper bound   %.0f TFLOP/s (%.0f%% of the %.0f peak), limited by %s\n",
                      p.upper_bound_tflops, 100.0 * p.upper_bound_tflops / m.dense_bf16_tflops,
                      m.dense_bf16_tflops, p.limiter.c_str());
    } else {
        out << "  upper bound   n/a, not modeled: " << p.limiter << "\n";
    }
    if (p.prediction.valid) {
        const Prediction& r = p.prediction;
        out << format("  predicted     %s at %.0f MHz on %d SMs; per k-block: issue %.0f ns, L2 feed %.0f ns,"
                      " ring (fill %.0f + issue + barrier) / stages ahead %.0f ns -> %.0f ns\n",
                      structure_name(c.structure), r.clock_mhz, r.active_sms, r.issue_ns, r.feed_ns,
                      r.fill_ns, r.ring_ns, r.kblock_ns);
        out << format("                per tile: prologue %.0f ns + %lld k-blocks + epilogue %.0f ns = %.1f us;"
                      " %lld after one another on the busiest SM; launch %.1f us\n",
                      r.prologue_ns, r.k_blocks, r.epilogue_ns, r.tile_ns * 1e-3, r.rounds, r.launch_ns * 1e-3);
        if (r.power_w > 0)
            out << format("  clock         %.0f MHz: board power %.0f W with the tensor pipe %.0f%% busy on %s operands, "
                          "%.1f TB/s from the L2, %.2f TB/s of DRAM (%s)\n",
                          r.clock_mhz, r.power_w, 100 * r.tensor_busy, p.problem.zero_inputs ? "zero" : "random",
                          r.l2_traffic_tbps, r.dram_traffic_tbps,
                          r.power_limited ? format("the %.0f W limit holds the clock there", m.power_limit_w).c_str()
                                          : format("under the %.0f W limit at the full clock", m.power_limit_w).c_str());
        out << format("  prediction    %.1f us = %.0f TFLOP/s, limited by %s\n", r.total_us, r.tflops,
                      r.limiter.c_str());
    }
    for (const std::string& n : p.notes) out << "  note          " << n << "\n";
    return out.str();
}

std::string one_line(const Plan& p) {
    const Candidate& c = p.candidate;
    std::string tile = c.bk > 0 ? format("%dx%dx%d", c.bm, c.bn, c.bk) : format("%dx%d", c.bm, c.bn);
    if (c.cluster > 1) tile += format(" c%d", c.cluster);
    if (p.limiter.rfind("invalid", 0) == 0) return "plan: " + tile + ": " + p.limiter;
    if (c.stages == 0)
        return format("plan: %s, no shared-memory tiles, %lld tiles = %.2f waves: outside the model",
                      tile.c_str(), p.tiles, p.waves);
    std::string regs = p.acc_regs_per_thread >= 0 ? format("%d acc regs/thr", p.acc_regs_per_thread)
                                                  : std::string("acc regs n/a");
    std::string head = format("plan: %s x%d stages %.0f KiB, %s", tile.c_str(), c.stages,
                              kib(p.smem_total_bytes), regs.c_str());
    if (!p.fits) return head + ": " + p.limiter;
    if (!p.modeled)
        return head + (p.limiter.rfind("not modeled", 0) == 0 ? ": " : ": not modeled: ") + p.limiter;
    if (!p.prediction.valid)
        return head + format(", %lld tiles = %.2f waves (%.0f%%), <= %.0f TFLOP/s (%s)", p.tiles, p.waves,
                             100.0 * p.wave_efficiency, p.upper_bound_tflops, p.limiter.c_str());
    return head + format(", %lld tiles = %.2f waves (%.0f%%) -> %.1f us = %.0f TFLOP/s (%s)", p.tiles,
                         p.waves, 100.0 * p.wave_efficiency, p.prediction.total_us, p.prediction.tflops,
                         p.prediction.limiter.c_str());
}

// ---- Command line ---------------------------------------------------------------------------
namespace {

// A whole number of plain digits in [1, max_value] (the step executables' rule, arg_parse.h).
bool parse_positive(const std::string& text, long long max_value, long long* value) {
    unsigned long long v = 0;
    if (!ladder::parse_whole(text.c_str(), static_cast<unsigned long long>(max_value), &v) || v == 0) return false;
    *value = static_cast<long long>(v);
    return true;
}

bool parse_positive_double(const std::string& text, double* value) {
    if (text.empty() || text[0] == ' ') return false;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (errno != 0 || end != text.c_str() + text.size() || !(v > 0) || !std::isfinite(v)) return false;
    *value = v;
    return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, separator)) parts.push_back(part);
    if (!text.empty() && text.back() == separator) parts.push_back("");
    return parts;
}

}  // namespace

bool parse_candidate(const std::string& text, Candidate* candidate, std::string* error) {
    const std::vector<std::string> fields = split(text, ':');
    const std::vector<std::string> dims = fields.empty() ? std::vector<std::string>{} : split(fields[0], 'x');
    if (fields.empty() || fields.size() > 4 || dims.size() != 3) {
        *error = "--candidate '" + ladder::printable(text) +
                 "': expected BMxBNxBK[:stages[:warpgroups[:cluster]]], e.g. 128x256x64:4:2:1";
        return false;
    }
    Candidate c;
    long long v = 0;
    const char* dim_names[3] = {"BM", "BN", "BK"};
    int* dim_fields[3] = {&c.bm, &c.bn, &c.bk};
    for (int i = 0; i < 3; ++i) {
        if (!parse_positive(dims[i], 4096, &v)) {
            *error = "--candidate '" + ladder::printable(text) + "': " + dim_names[i] +
                     " must be a whole number in 1..4096, not '" + ladder::printable(dims[i]) + "'";
            return false;
        }
        *dim_fields[i] = static_cast<int>(v);
    }
    c.stages = -1;  // the most that fit, resolved once the machine is known
    c.consumer_warpgroups = std::min(c.bm / kWgmmaRowsPerWarpgroup, 2);
    c.cluster = 1;
    const char* names[3] = {"stages", "warpgroups", "cluster"};
    int* fields_out[3] = {&c.stages, &c.consumer_warpgroups, &c.cluster};
    for (size_t i = 1; i < fields.size(); ++i) {
        const std::string& f = fields[i];
        // Stages may be 0 (no shared-memory tiles) and warpgroups 0 (no warpgroups);
        // the cluster must be at least 1.
        const bool zero_ok = (i == 1 || i == 2);
        if (zero_ok && f == "0") {
            *fields_out[i - 1] = 0;
            continue;
        }
        if (!parse_positive(f, 64, &v)) {
            *error = "--candidate '" + ladder::printable(text) + "': " + names[i - 1] +
                     " must be a whole number in " + (zero_ok ? "0" : "1") + "..64, not '" + ladder::printable(f) + "'";
            return false;
        }
        *fields_out[i - 1] = static_cast<int>(v);
    }
    *candidate = c;
    return true;
}

bool parse_cli(const std::vector<std::string>& args, CliOptions* options, std::string* error) {
    CliOptions o;
    std::string candidate_text, tile;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        if (flag == "-h" || flag == "--help") {
            o.help = true;
            continue;
        }
        const bool known = flag == "--m" || flag == "--n" || flag == "--k" || flag == "--machine" ||
                           flag == "--candidate" || flag == "--top" || flag == "--l2-tbps" ||
                           flag == "--latency-ns" || flag == "--step" || flag == "--compare" || flag == "--tile" ||
                           flag == "--clock-mhz" || flag == "--inputs";
        if (!known) {
            *error = "unknown argument '" + ladder::printable(flag) + "' (try --help)";
            return false;
        }
        if (i + 1 >= args.size()) {
            *error = flag + " needs a value";
            return false;
        }
        const std::string& value = args[++i];
        long long n = 0;
        if (flag == "--m" || flag == "--n" || flag == "--k") {
            // The problems every step accepts (arg_parse.h), as the step executables read them:
            // a prediction for one no step would run is no answer.
            if (!parse_positive(value, ladder::kMaxDimension, &n)) {
                *error = flag + " must be a whole number from 1 to " + std::to_string(ladder::kMaxDimension) +
                         ", not '" + ladder::printable(value) + "'";
                return false;
            }
            if (flag == "--k" && !ladder::valid_k(n)) {
                *error = "--k must be a multiple of 8 (rows of whole 16-byte chunks), not " + std::to_string(n);
                return false;
            }
            (flag == "--m" ? o.problem.m : flag == "--n" ? o.problem.n : o.problem.k) = n;
        } else if (flag == "--top") {
            if (!parse_positive(value, 1000, &n)) {
                *error = "--top must be a whole number in 1..1000, not '" + ladder::printable(value) + "'";
                return false;
            }
            o.top = static_cast<int>(n);
        } else if (flag == "--machine") {
            const bool file = value.size() > 5 && value.compare(value.size() - 5, 5, ".json") == 0;
            if (value != "h100" && value != "h200" && !file) {
                *error = "--machine must be h100, h200 or a machine file (.json), not '" +
                         ladder::printable(value) + "'";
                return false;
            }
            o.machine = value;
        } else if (flag == "--step") {
            const size_t colon = value.find(':');
            Structure s;
            if (!parse_positive(value.substr(0, colon), 7, &n) || !structure_of_step(static_cast<int>(n), "", &s)) {
                *error = "--step must be 2..7 with an optional :variant (e.g. 6:pingpong), not '" +
                         ladder::printable(value) + "'";
                return false;
            }
            o.step = static_cast<int>(n);
            o.variant = colon == std::string::npos ? "" : value.substr(colon + 1);
        } else if (flag == "--tile") {
            // Step 07's default variant forced to one tile of its family, as step-7 --tile.
            int rows = 0, columns = 0;
            char end = 0;
            if (std::sscanf(value.c_str(), "%dx%d%c", &rows, &columns, &end) != 2 ||
                !tile_choice::in_family({rows, columns})) {
                std::string family;
                for (const tile_choice::Shape& t : tile_choice::kFamily)
                    family += (family.empty() ? "" : ", ") + std::to_string(t.rows) + "x" + std::to_string(t.columns);
                *error = "--tile must be a tile of step 07's family (" + family + "), not '" +
                         ladder::printable(value) + "'";
                return false;
            }
            tile = "tile" + value;
        } else if (flag == "--compare") {
            o.compare_csv = value;
        } else if (flag == "--inputs") {
            // "zero" as the step executables' --inputs and the CSV's inputs column spell it.
            if (value != "uniform" && value != "zero" && value != "zeros") {
                *error = "--inputs must be uniform or zero, not '" + ladder::printable(value) + "'";
                return false;
            }
            o.inputs = value == "uniform" ? "uniform" : "zeros";
            o.problem.zero_inputs = value != "uniform";
        } else if (flag == "--candidate") {
            if (!parse_candidate(value, &o.candidate, error)) return false;
            o.has_candidate = true;
            candidate_text = value;
        } else {
            // Bounds far outside any GPU, so the model's arithmetic (stage counts in int)
            // stays finite and in range.
            const bool l2 = flag == "--l2-tbps", clock = flag == "--clock-mhz";
            const double lo = l2 ? 0.01 : clock ? 100 : 1, hi = l2 ? 1000 : clock ? 10000 : 1e6;
            double d = 0;
            if (!parse_positive_double(value, &d) || d < lo || d > hi) {
                *error = flag + " must be a number from " + format("%g", lo) + " to " + format("%g", hi) +
                         ", not '" + ladder::printable(value) + "'";
                return false;
            }
            (l2 ? o.l2_tbps : clock ? o.clock_mhz : o.latency_ns) = d;
        }
    }
    if (!tile.empty()) {
        if (o.step != 7 || !o.variant.empty()) {
            *error = "--tile goes with --step 7 (the default variant's tile family), without a :variant";
            return false;
        }
        o.variant = tile;
    }
    if (o.has_candidate) {
        // The machine-independent rules of evaluate(): a tile it would call invalid is a bad
        // argument, not a plan. Stages left out are resolved later, and at least 1.
        Candidate c = o.candidate;
        if (c.stages < 0) c.stages = 1;
        if (std::string why = invalid_reason(h100_sxm(), o.problem, c); !why.empty()) {
            *error = "--candidate '" + ladder::printable(candidate_text) + "': " + why;
            return false;
        }
    }
    *options = o;
    return true;
}

std::string cli_usage() {
    return "usage: ladder-plan [--m M] [--n N] [--k K] [--machine h100|h200|FILE.json] [--top N]\n"
           "                   [--step N[:variant] [--tile RxC]] [--candidate BMxBNxBK[:stages[:warpgroups[:cluster]]]]\n"
           "                   [--clock-mhz MHz] [--inputs uniform|zero] [--l2-tbps TB/s] [--latency-ns ns]\n"
           "       ladder-plan --compare BENCH.csv [--machine FILE.json] [--clock-mhz MHz] [--inputs uniform|zero]\n"
           "\n"
           "Works out, on paper, how well tile configurations can do on a Hopper GPU for\n"
           "C[M,N] = A[M,K] * B[N,K]^T in bf16: registers, shared memory, pipeline stages,\n"
           "waves and an upper bound in TFLOP/s with what limits it.\n"
           "  --m, --n, --k      problem shape (default 4096 each)\n"
           "  --machine          h100 (H100 SXM, default) or h200: documented defaults, no GPU needed\n"
           "  --candidate        evaluate one tile and explain it, e.g. 128x256x64:4:2:1\n"
           "                     (left-out parts: most stages that fit, min(BM/64,2) warpgroups, cluster 1)\n"
           "  --machine FILE     a machine file written by ladder-probe (results/<gpu>/machine.json)\n"
           "  --step N[:variant] predict with step N's loop structure and tile (default: 06's)\n"
           "  --tile RxC         with --step 7: its default variant forced to that tile, as step-7 --tile\n"
           "  --clock-mhz        convert the issue terms at this SM clock (default: the clock under the\n"
           "                     power limit where the machine file has the power model, else its clock\n"
           "                     under load)\n"
           "  --inputs           uniform (random A and B, the default) or zero: what the tensor cores\n"
           "                     multiply sets their power and so the clock under the power limit; with\n"
           "                     --compare it replaces each row's inputs column\n"
           "  --compare CSV      predict every row of a benchmark CSV and report the hit rate\n"
           "  --top N            rows of the ranking to print (default 10)\n"
           "  --l2-tbps, --latency-ns   replace the two assumed numbers of the model\n";
}

}  // namespace ladder::plan
