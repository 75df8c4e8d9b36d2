// csv.h: the benchmark's CSV rows. The plots (common/scripts/plot.py) and the README tables read
// these columns by name, so keep them stable; add new ones at the end.
#pragma once

#include <string>
#include <vector>

namespace ladder::csv {

struct Row {
    int step = 0;
    std::string name;  // step name, with ":variant" when the step has several schedules
    long long M = 0, N = 0, K = 0;
    double ms = 0, tflops = 0;
    double cublas_ms = 0, cublas_tflops = 0;
    double speedup_vs_cublas = 0;
    std::string device;
    int sm_clock_mhz = 0;
    std::string cuda;    // runtime version, e.g. "13.0"
    std::string driver;  // driver's CUDA version, e.g. "13.0"
    std::string date;    // YYYY-MM-DD
    double predicted_tflops = 0;    // the planner's prediction for this step's tile and loop
    std::string predicted_limiter;  // what the planner says limits it
    // (results/h100/bench.csv predates the time model: its columns plan_tflops and
    // plan_limiter hold the planner's old upper bound; the Python scripts read both.)
    // What reproduces the row: `step-N --bench --seed <seed> --m M --n N --k K` on <commit>
    // regenerates its inputs; runs timed launches gave the median `ms`, between min and max.
    unsigned long long seed = 0;
    int runs = 0;
    double min_ms = 0, max_ms = 0;
    std::string commit;  // `git describe --always --dirty` of the build, "unknown" outside git
    // The inputs of the timed runs (--inputs): "uniform" in [-1, 1], the power-capped regime,
    // or "zero", where the clock stays at its boost; and the board's power while they ran
    // (the mean of samples, as sm_clock_mhz: harness.h, Timing).
    std::string inputs = "uniform";
    double power_w = 0;
    // The clock an SM under tensor-core load counted while the timed launches ran (a witness
    // kernel's cycles over %globaltimer: harness.h, Timing); 0 where not measured.
    double tensor_clock_mhz = 0;
};

const std::vector<std::string>& columns();

// The header line and one row as CSV text (no trailing newline). Fields with commas, quotes
// or newlines are quoted.
std::string header_line();
std::string format_row(const Row& row);

// Appends rows to `path`, writing the header first when the file is new or empty.
// Returns false (and sets *error) when the file cannot be written, or when it holds rows
// of other columns (an older version's CSV), which the new rows would not line up with.
bool append_rows(const std::string& path, const std::vector<Row>& rows, std::string* error);

}  // namespace ladder::csv
