// planner_bridge.cpp: see planner_bridge.h.
#include "planner_bridge.h"

#include <cstdio>
#include <fstream>

#include "planner.h"

#ifndef LADDER_SOURCE_DIR
#error "LADDER_SOURCE_DIR must name the repository root (set by common/CMakeLists.txt)"
#endif

namespace ladder {
namespace {

// The device's machine, and in *source where its time-model constants come from.
plan::Machine machine_of(const harness::DeviceInfo& device, std::string* source) {
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
    // bf16 rate is quoted), not the peak the device reports, so that the bound agrees with
    // ladder-plan; the prediction uses the machine file's clock under load.
    plan::Machine machine = plan::machine_from_device(facts);
    const std::string path =
        std::string(LADDER_SOURCE_DIR) + "/results/" + plan::device_folder(device.name) + "/machine.json";
    std::string error;
    if (!std::ifstream(path).good()) {
        *source = "no " + path + " (run ladder-probe): built-in H100 constants";
    } else if (!plan::read_machine_file(path, &machine, &error)) {
        *source = error + ": built-in H100 constants";
    } else {
        *source = path;
    }
    return machine;
}

plan::Problem problem_of(const cli::Shape& shape) {
    plan::Problem problem;
    problem.m = shape.M;
    problem.n = shape.N;
    problem.k = shape.K;
    return problem;
}

}  // namespace

void plan_for(const Step& step, const char* variant, const harness::DeviceInfo& device,
              const cli::Shape& shape, double* predicted_tflops, std::string* limiter) {
    std::string source;
    const plan::Plan p = plan::plan_step(machine_of(device, &source), step.number, variant ? variant : "",
                                         problem_of(shape));
    *predicted_tflops = p.prediction.valid ? p.prediction.tflops : 0.0;
    *limiter = p.prediction.valid ? p.prediction.limiter : "not modeled";
}

void print_plan(const Step& step, const harness::DeviceInfo& device, const cli::Shape& shape) {
    std::string source;
    const plan::Machine machine = machine_of(device, &source);
    std::printf("machine constants: %s\n", source.c_str());
    const plan::Plan p = plan::plan_step(machine, step.number, "", problem_of(shape));
    std::printf("%lldx%lldx%lld %s\n", shape.M, shape.N, shape.K,
                p.candidate.bk > 0 ? plan::one_line(p).c_str() : "plan: outside the model");
}

}  // namespace ladder
