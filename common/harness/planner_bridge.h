// planner_bridge.h: the planner's prediction for a step's own tile configuration on the
// GPU in hand, printed by the step executables next to what they measure and written to
// the CSV. The machine is the device's (SM count, shared memory, ...) with the time model's
// constants from results/<gpu>/machine.json in the source tree (written by ladder-probe),
// or the built-in H100 constants when that file does not exist (a note says so).
#pragma once

#include <string>

#include "cli.h"
#include "harness.h"
#include "registry.h"

namespace ladder {

// The planner's predicted TFLOP/s and limiter for `step` (its `variant`, "" for the default)
// on `shape`; 0 and "not modeled" for a step outside the model.
void plan_for(const Step& step, const char* variant, const harness::DeviceInfo& device,
              const cli::Shape& shape, double* predicted_tflops, std::string* limiter);

// Prints where the machine constants come from and the planner's one-line summary for the
// step's tile on `shape`.
void print_plan(const Step& step, const harness::DeviceInfo& device, const cli::Shape& shape);

}  // namespace ladder
