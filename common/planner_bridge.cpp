// planner_bridge.cpp: see planner_bridge.h.
#include "planner_bridge.h"

#include <cstdio>

#include "planner.h"

namespace ladder {
namespace {

plan::Plan plan_of(const Step& step, const harness::DeviceInfo& device, const cli::Shape& shape) {
    plan::DeviceFacts facts;
    facts.name = device.name;
    facts.cc_major = device.major;
    facts.cc_minor = device.minor;
    facts.sm_count = device.sm_count;
    facts.smem_per_block_optin_bytes = device.smem_optin_bytes;
    facts.l2_bytes = device.l2_bytes;
    facts.mem_clock_khz = device.mem_clock_khz;
    facts.mem_bus_width_bits = device.mem_bus_width_bits;
    // The SM clock is left to the planner's default (the clock at which the datasheet's dense
    // bf16 rate is quoted), not the peak the device reports: tensor-core work does not hold
    // the peak clock, and the CLI and the executables should predict the same numbers.
    plan::Problem problem;
    problem.m = shape.M;
    problem.n = shape.N;
    problem.k = shape.K;
    return plan::evaluate(plan::machine_from_device(facts), problem, plan::to_candidate(step.tile_config()));
}

}  // namespace

void plan_for(const Step& step, const harness::DeviceInfo& device, const cli::Shape& shape,
              double* upper_bound_tflops, std::string* limiter) {
    const plan::Plan p = plan_of(step, device, shape);
    *upper_bound_tflops = p.modeled ? p.upper_bound_tflops : 0.0;
    *limiter = p.modeled ? p.limiter : "not modeled";
}

void print_plan(const Step& step, const harness::DeviceInfo& device, const cli::Shape& shape) {
    std::printf("%lldx%lldx%lld %s\n", shape.M, shape.N, shape.K,
                plan::one_line(plan_of(step, device, shape)).c_str());
}

}  // namespace ladder
