// csv.cpp: see csv.h.
#include "csv.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace ladder::csv {
namespace {

std::string quote(const std::string& field) {
    if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
    std::string out = "\"";
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string number(double value, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return buf;
}

}  // namespace

const std::vector<std::string>& columns() {
    static const std::vector<std::string> names = {
        "step",    "name",          "M",                 "N",      "K",
        "ms",      "tflops",        "cublas_ms",         "cublas_tflops",
        "speedup_vs_cublas",        "device",            "sm_clock_mhz",
        "cuda",    "driver",        "date",              "predicted_tflops", "predicted_limiter",
        "seed",    "runs",          "min_ms",            "max_ms", "commit",
        "inputs",  "power_w",       "tensor_clock_mhz"};
    return names;
}

std::string header_line() {
    std::string line;
    for (const std::string& c : columns()) line += (line.empty() ? "" : ",") + c;
    return line;
}

std::string format_row(const Row& r) {
    std::ostringstream s;
    s << r.step << ',' << quote(r.name) << ',' << r.M << ',' << r.N << ',' << r.K << ','
      << number(r.ms, 5) << ',' << number(r.tflops, 2) << ',' << number(r.cublas_ms, 5) << ','
      << number(r.cublas_tflops, 2) << ',' << number(r.speedup_vs_cublas, 3) << ','
      << quote(r.device) << ',' << r.sm_clock_mhz << ',' << quote(r.cuda) << ','
      << quote(r.driver) << ',' << quote(r.date) << ',' << number(r.predicted_tflops, 1) << ','
      << quote(r.predicted_limiter) << ',' << r.seed << ',' << r.runs << ',' << number(r.min_ms, 5)
      << ',' << number(r.max_ms, 5) << ',' << quote(r.commit) << ',' << quote(r.inputs) << ','
      << number(r.power_w, 1) << ',' << number(r.tensor_clock_mhz, 0);
    return s.str();
}

bool append_rows(const std::string& path, const std::vector<Row>& rows, std::string* error) {
    bool need_header = true;
    {
        std::ifstream existing(path, std::ios::binary);
        std::string first_line;
        if (existing && std::getline(existing, first_line)) {
            if (first_line != header_line()) {
                if (error)
                    *error = path + " holds rows with other columns (written by another version): "
                                    "write to a new file, or move this one away";
                return false;
            }
            need_header = false;
        }
    }
    std::ofstream out(path, std::ios::app);
    if (!out) {
        if (error) *error = "cannot open " + path + " for writing";
        return false;
    }
    if (need_header) out << header_line() << '\n';
    for (const Row& r : rows) out << format_row(r) << '\n';
    out.flush();
    if (!out) {
        if (error) *error = "write to " + path + " failed";
        return false;
    }
    return true;
}

}  // namespace ladder::csv
