// arg_parse.h: the rules every command line of the ladder reads its values by, shared by
// the step executables (cli.cpp), the C API's messages (step_api.cpp) and ladder-plan
// (planner.cpp). Plain C++, header only: ladder-plan needs no CUDA.
//
// A bad value is reported by the caller as "<flag> must be ..., not '<value>'" with the value
// passed through printable(), and the executable exits with status 2.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ladder {

// The problem contract's sizes (step_api.h), which check_gemm_args enforces and every command
// line takes a problem by, so that none accepts one every step refuses. The largest M, N or
// K: 2^31 - 2^16, so that a tile origin plus a tile extent never overflows the int
// arithmetic of the kernels.
constexpr int kMaxDimension = 2147483647 - 65535;

// K: at least 8 and a multiple of 8, so that every row of A and B is whole 16-byte chunks.
inline bool valid_k(long long k) { return k >= 8 && k % 8 == 0; }

// A whole number of plain digits (no sign, no space: strtoull would take " -1" as 2^64-1,
// and strtoll a leading tab) from 0 to max_value.
inline bool parse_whole(const char* text, unsigned long long max_value, unsigned long long* out) {
    if (text == nullptr || *text == '\0') return false;
    for (const char* c = text; *c != '\0'; ++c)
        if (*c < '0' || *c > '9') return false;
    errno = 0;
    const unsigned long long v = std::strtoull(text, nullptr, 10);
    if (errno != 0 || v > max_value) return false;
    *out = v;
    return true;
}

// `text` with every byte outside printable ASCII (and the backslash) written as \xNN: user
// input echoed in a message stays one readable line of valid UTF-8. nullptr gives "(null)".
inline std::string printable(const char* text) {
    if (text == nullptr) return "(null)";
    std::string out;
    for (const unsigned char* c = reinterpret_cast<const unsigned char*>(text); *c != '\0'; ++c) {
        if (*c >= 0x20 && *c < 0x7f && *c != '\\') {
            out += static_cast<char>(*c);
        } else {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", *c);
            out += escaped;
        }
    }
    return out;
}

inline std::string printable(const std::string& text) { return printable(text.c_str()); }

}  // namespace ladder
