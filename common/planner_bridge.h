// planner_bridge.h: the planner's prediction for a step's own tile configuration on the
// GPU in hand, printed by the step executables next to what they measure.
#pragma once

#include <string>

#include "cli.h"
#include "harness.h"
#include "registry.h"

namespace ladder {

// The planner's upper bound (TFLOP/s) and its limiting factor for `step` on `shape`.
void plan_for(const Step& step, const harness::DeviceInfo& device, const cli::Shape& shape,
              double* upper_bound_tflops, std::string* limiter);

// Prints the planner's one-line summary for the step's tile on `shape`.
void print_plan(const Step& step, const harness::DeviceInfo& device, const cli::Shape& shape);

}  // namespace ladder
