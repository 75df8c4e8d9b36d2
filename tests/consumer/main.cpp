// Calls the ladder through its C API with a size it must refuse: linking works, and the
// error comes back as a message (no GPU needed). It uses the first step the library holds
// (a build may hold a few: LADDER_ONLY_STEPS).
#include <cstdio>
#include <cstring>

#include "ladder.h"

int main() {
    if (ladder_step_count() != 7) {
        std::printf("FAIL: ladder_step_count() = %d\n", ladder_step_count());
        return 1;
    }
    int step = 1;
    while (step <= ladder_step_count() && !ladder_step_available(step)) ++step;
    if (step > ladder_step_count()) {
        std::printf("FAIL: the library holds no step\n");
        return 1;
    }
    if (ladder_gemm(step, nullptr, nullptr, nullptr, 0, 0, 0, nullptr) == 0 || ladder_last_error()[0] == '\0') {
        std::printf("FAIL: M = 0 was not refused with a message\n");
        return 1;
    }
    std::printf("ok: %s refused M = 0: %s\n", ladder_step_name(step), ladder_last_error());
    return 0;
}
