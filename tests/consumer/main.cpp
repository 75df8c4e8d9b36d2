// Calls the ladder through its C API with a size it must refuse: linking works, and the
// error comes back as a message (no GPU needed).
#include <cstdio>
#include <cstring>

#include "ladder.h"

int main() {
    if (ladder_step_count() != 7) {
        std::printf("FAIL: ladder_step_count() = %d\n", ladder_step_count());
        return 1;
    }
    if (ladder_gemm(7, nullptr, nullptr, nullptr, 0, 0, 0, nullptr) == 0 || ladder_last_error()[0] == '\0') {
        std::printf("FAIL: M = 0 was not refused with a message\n");
        return 1;
    }
    std::printf("ok: %s refused M = 0: %s\n", ladder_step_name(7), ladder_last_error());
    return 0;
}
