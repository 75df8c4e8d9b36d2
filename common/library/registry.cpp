// registry.cpp: the list the steps register themselves in (registry.h). It names no step:
// adding a step is one line in CMakeLists.txt (ladder_add_step) and the registration
// statement at the end of the step's gemm.cu.
#include "registry.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ladder {
namespace {

struct Entry {
    Step step;
    // Where each of step.variants sorts (file_order, position in its file's statement):
    // files register in no particular order, the list is always the same.
    int file_order[kMaxVariants];
    int position[kMaxVariants];
    int count;
    int tile_count;
    bool has_default_file;  // a LADDER_REGISTER_DEFAULT_VARIANT file registered
};

struct Registry {
    Entry steps[kStepCount] = {};
    Registry() {
        for (int i = 0; i < kStepCount; ++i) {
            steps[i].step.number = i + 1;  // built or not: find_step answers for 1..kStepCount
            steps[i].step.name = "";
            steps[i].step.folder = "";
        }
    }
};

// A function-local static: it exists before the first registration, whichever file's
// static initialization runs first.
Registry& registry() {
    static Registry r;
    return r;
}

[[noreturn]] void refuse(int number, const std::string& what) {
    std::fprintf(stderr, "ladder registry: step %d: %s\n", number, what.c_str());
    std::abort();
}

Entry& entry_for(int number) {
    if (number < 1 || number > kStepCount)
        refuse(number, "no such step (the steps are 1.." + std::to_string(kStepCount) + ")");
    return registry().steps[number - 1];
}

void add_variants(Entry& e, int file_order, TimelineHook set_timeline,
                  std::initializer_list<Variant> variants) {
    int position = 0;
    for (const Variant& v : variants) {
        if (v.name == nullptr || v.gemm == nullptr)
            refuse(e.step.number, "a variant without a name or a function");
        for (int i = 0; i < e.count; ++i)
            if (std::strcmp(e.step.variants[i].name, v.name) == 0)
                refuse(e.step.number, std::string("a second variant named '") + v.name + "'");
        if (e.count == kMaxVariants)
            refuse(e.step.number, std::string("no room for variant '") + v.name + "': more than " +
                                      std::to_string(kMaxVariants) + " (kMaxVariants, registry.h)");
        // Insertion into the sorted list: after every variant that sorts before this one.
        int at = e.count;
        while (at > 0 && (e.file_order[at - 1] > file_order ||
                          (e.file_order[at - 1] == file_order && e.position[at - 1] > position))) {
            e.step.variants[at] = e.step.variants[at - 1];
            e.file_order[at] = e.file_order[at - 1];
            e.position[at] = e.position[at - 1];
            --at;
        }
        e.step.variants[at] = {v.name, v.gemm, set_timeline};
        e.file_order[at] = file_order;
        e.position[at] = position++;
        ++e.count;
    }
}

}  // namespace

StepRegistration::StepRegistration(int number, const char* folder, NeedsArch arch,
                                   TileConfig (*tile_config)(), DescribeFn describe,
                                   TimelineHook set_timeline,
                                   std::initializer_list<Variant> variants) {
    Entry& e = entry_for(number);
    if (e.step.tile_config != nullptr)
        refuse(number, std::string("registered twice: by ") + e.step.folder + " and by " + folder);
    if (tile_config == nullptr || variants.size() == 0)
        refuse(number, std::string(folder) + " registers no tile_config or no variant");
    e.step.folder = folder;
    // The short name: the folder without its number ("05_wgmma": "wgmma").
    const char* underscore = std::strchr(folder, '_');
    e.step.name = underscore ? underscore + 1 : folder;
    e.step.arch = arch;
    e.step.tile_config = tile_config;
    if (describe != nullptr) e.step.describe = describe;
    add_variants(e, 0, set_timeline, variants);
}

VariantRegistration::VariantRegistration(int number, int file_order, TimelineHook set_timeline,
                                         std::initializer_list<Variant> variants) {
    add_variants(entry_for(number), file_order, set_timeline, variants);
}

VariantRegistration::VariantRegistration(int number, DescribeFn describe, TimelineHook set_timeline,
                                         std::initializer_list<Variant> variants) {
    Entry& e = entry_for(number);
    if (e.has_default_file) refuse(number, "two variant files claim the default variant");
    e.has_default_file = true;
    e.step.describe = describe;
    add_variants(e, -1, set_timeline, variants);
}

TileRegistration::TileRegistration(int number, TimelineHook set_timeline,
                                   std::initializer_list<Variant> tiles) {
    Entry& e = entry_for(number);
    for (const Variant& t : tiles) {
        if (t.name == nullptr || t.gemm == nullptr || std::strncmp(t.name, "tile", 4) != 0)
            refuse(number, "a tile needs a name \"tile<R>x<C>\" and a function");
        if (find_tile(e.step, t.name) != nullptr)
            refuse(number, std::string("a second tile named '") + t.name + "'");
        if (e.tile_count == kMaxTiles)
            refuse(number, std::string("no room for tile '") + t.name + "': more than " +
                               std::to_string(kMaxTiles) + " (kMaxTiles, registry.h)");
        e.step.tiles[e.tile_count++] = {t.name, t.gemm, set_timeline};
    }
}

WorkspaceRegistration::WorkspaceRegistration(int number, WorkspaceFn workspace_bytes) {
    Entry& e = entry_for(number);
    if (workspace_bytes == nullptr || e.step.workspace_bytes != nullptr)
        refuse(number, "a second workspace function, or none");
    e.step.workspace_bytes = workspace_bytes;
}

const Step* find_step(int number) {
    if (number < 1 || number > kStepCount) return nullptr;
    return &registry().steps[number - 1].step;
}

bool step_built(const Step& step) {
    return step.tile_config != nullptr && step.variants[0].gemm != nullptr;
}

const Variant* find_variant(const Step& step, const char* name) {
    for (const Variant& v : step.variants) {
        if (v.name == nullptr) break;
        bool is_default = (name == nullptr || name[0] == '\0') && &v == &step.variants[0];
        if (is_default || (name != nullptr && std::strcmp(v.name, name) == 0))
            return v.gemm ? &v : nullptr;
    }
    return nullptr;
}

const Variant* find_tile(const Step& step, const char* name) {
    if (name == nullptr) return nullptr;
    const std::string wanted = std::strncmp(name, "tile", 4) == 0 ? name : std::string("tile") + name;
    for (const Variant& t : step.tiles) {
        if (t.name == nullptr) break;
        if (wanted == t.name) return &t;
    }
    return nullptr;
}

std::string tile_names(const Step& step) {
    std::string names;
    for (const Variant& t : step.tiles) {
        if (t.name == nullptr) break;
        names += (names.empty() ? "" : ", ") + std::string(t.name + 4);
    }
    return names;
}

std::string variant_names(const Step& step) {
    const Variant* v = step.variants;
    static_assert(kMaxVariants >= 2, "a step may have variants beside its default");
    if (v[0].name == nullptr || (v[0].name[0] == '\0' && v[1].name == nullptr)) return "only the default";
    // A step whose default schedule has no name (02, 03) still lists its named variants.
    std::string names = v[0].name[0] == '\0' ? "the default (no name)" : std::string(v[0].name) + " (default)";
    for (int i = 1; i < kMaxVariants && v[i].name != nullptr; ++i) names += std::string(", ") + v[i].name;
    return names;
}

}  // namespace ladder
