// CPU tests of the registry (common/library/registry.h) as libladder.so holds it: every step's
// file registered itself when the library was loaded, with the number, folder and arch of
// its ladder_add_step line, and its variants in the fixed order (the default variant's file
// first where one registers with LADDER_REGISTER_DEFAULT_VARIANT, then gemm.cu's, then the
// other variant files' in the order of their ladder_add_variant lines), and step 07's tiles
// apart. A registration the registry cannot hold stops the program with a message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli.h"  // compared_variants: what `bench` runs besides each default
#include "registry.h"
#include "tile_family.h"  // the every-shape kernel's family, as the planner reads it

namespace {

struct Expected {
    int number;
    const char* folder;
    const char* name;
    ladder::NeedsArch arch;
    std::vector<std::string> variants;
};

const Expected kSteps[] = {
    {1, "01_naive", "naive", ladder::NeedsArch::Sm80, {""}},
    {2, "02_cp_async_mma_sync", "cp_async_mma_sync", ladder::NeedsArch::Sm80, {"", "pipeline"}},
    {3, "03_tma_single_stage", "tma_single_stage", ladder::NeedsArch::Sm90a, {"", "barrier", "bulk1d"}},
    {4, "04_tma_multistage", "tma_multistage", ladder::NeedsArch::Sm90a, {""}},
    {5, "05_wgmma", "wgmma", ladder::NeedsArch::Sm90a, {""}},
    {6, "06_warp_specialized", "warp_specialized", ladder::NeedsArch::Sm90a, {"cooperative", "pingpong"}},
    {7, "07_clusters_multicast", "clusters_multicast", ladder::NeedsArch::Sm90a,
     {"cluster2", "cluster1", "cluster4", "lesson", "cg"}},
};

std::vector<std::string> variant_list(const ladder::Step& step) {
    std::vector<std::string> names;
    for (const ladder::Variant& v : step.variants) {
        if (v.name == nullptr) break;
        names.push_back(v.name);
    }
    return names;
}

cudaError_t no_gemm(const ladder::bf16*, const ladder::bf16*, ladder::bf16*, int, int, int,
                    cudaStream_t) {
    return cudaErrorNotSupported;
}

ladder::TileConfig no_tile() { return {}; }

}  // namespace

TEST(Registry, EveryStepRegisteredItselfWithItsLineOfCMakeLists) {
    for (const Expected& want : kSteps) {
        SCOPED_TRACE("step " + std::to_string(want.number));
        const ladder::Step* step = ladder::find_step(want.number);
        ASSERT_NE(step, nullptr);
        ASSERT_TRUE(ladder::step_built(*step));
        EXPECT_EQ(step->number, want.number);
        EXPECT_STREQ(step->folder, want.folder);
        EXPECT_STREQ(step->name, want.name);
        EXPECT_EQ(step->arch, want.arch);
        ASSERT_NE(step->tile_config, nullptr);
        EXPECT_GT(step->tile_config().threads, 0);
        EXPECT_EQ(step->describe != nullptr, want.number == 7);  // step 07 picks its tile per problem
    }
    EXPECT_EQ(ladder::find_step(0), nullptr);
    EXPECT_EQ(ladder::find_step(ladder::kStepCount + 1), nullptr);
}

TEST(Registry, VariantsComeInTheOrderOfTheFilesThatRegisterThem) {
    for (const Expected& want : kSteps) {
        const ladder::Step* step = ladder::find_step(want.number);
        ASSERT_NE(step, nullptr);
        EXPECT_EQ(variant_list(*step), want.variants) << "step " << want.number;
        for (const std::string& name : want.variants) {
            const ladder::Variant* v = ladder::find_variant(*step, name.c_str());
            ASSERT_NE(v, nullptr) << "step " << want.number << " variant '" << name << "'";
            EXPECT_NE(v->gemm, nullptr);
        }
        EXPECT_EQ(ladder::find_variant(*step, nullptr), &step->variants[0]);
    }
    EXPECT_EQ(ladder::variant_names(*ladder::find_step(6)), "cooperative (default), pingpong");
    // A default without a name does not hide the named variants (step-3 --help lists them).
    EXPECT_EQ(ladder::variant_names(*ladder::find_step(3)), "the default (no name), barrier, bulk1d");
    EXPECT_EQ(ladder::variant_names(*ladder::find_step(2)), "the default (no name), pipeline");
    EXPECT_EQ(ladder::variant_names(*ladder::find_step(1)), "only the default");
}

// Step 07's default is the every-shape kernel (every_shape/every_shape.cu), listed before
// gemm.cu's lesson kernel; its describe is the step's; its tiles are apart from the variants,
// each found by "RxC" or "tileRxC", and --tile all runs them in this order: the rows of the
// family's table (tile_family.h), which the planner reads too.
TEST(Registry, Step07DefaultsToTheEveryShapeKernelAndListsItsTiles) {
    const ladder::Step& s7 = *ladder::find_step(7);
    EXPECT_EQ(ladder::variant_names(s7), "cluster2 (default), cluster1, cluster4, lesson, cg");
    EXPECT_EQ(ladder::find_variant(s7, nullptr), ladder::find_variant(s7, "cluster2"));
    EXPECT_NE(s7.describe, nullptr);
    EXPECT_EQ(ladder::tile_names(s7),
              "64x64, 64x96, 64x128, 64x160, 64x192, 64x256, 128x64, 128x128, 128x144, 128x168, "
              "128x192, 128x224, 128x256, 192x192");
    std::string family;
    for (const ladder::tile_choice::Shape& t : ladder::tile_choice::kFamily)
        family += (family.empty() ? "" : ", ") + std::to_string(t.rows) + "x" + std::to_string(t.columns);
    EXPECT_EQ(ladder::tile_names(s7), family);
    ASSERT_NE(ladder::find_tile(s7, "128x144"), nullptr);
    EXPECT_EQ(ladder::find_tile(s7, "128x144"), ladder::find_tile(s7, "tile128x144"));
    EXPECT_STREQ(ladder::find_tile(s7, "128x144")->name, "tile128x144");
    EXPECT_EQ(ladder::find_tile(s7, "128x96"), nullptr);  // not in the family
    EXPECT_EQ(ladder::find_tile(s7, nullptr), nullptr);
    EXPECT_EQ(ladder::find_variant(s7, "tile128x144"), nullptr);  // a tile is not a variant
    for (int n = 1; n <= 6; ++n) EXPECT_EQ(ladder::tile_names(*ladder::find_step(n)), "") << "step " << n;
}

// Each variant carries its file's timeline hook: gemm.cu's for the variants gemm.cu lists, a
// variant file's own for its variant. Only a -DLADDER_TIMELINE build has hooks at all.
TEST(Registry, EachVariantCarriesTheTimelineHookOfItsFile) {
    const ladder::Step& s7 = *ladder::find_step(7);
    const ladder::Variant& cluster2 = *ladder::find_variant(s7, "cluster2");
#ifdef LADDER_TIMELINE
    for (int n = 3; n <= 7; ++n)
        EXPECT_NE(ladder::find_step(n)->variants[0].set_timeline, nullptr) << "step " << n;
    EXPECT_EQ(ladder::find_tile(s7, "64x64")->set_timeline, cluster2.set_timeline);
    EXPECT_NE(ladder::find_variant(s7, "lesson")->set_timeline, cluster2.set_timeline);
    EXPECT_NE(ladder::find_variant(s7, "cg")->set_timeline, cluster2.set_timeline);
    EXPECT_NE(ladder::find_variant(s7, "cg")->set_timeline, nullptr);
#else
    for (int n = 3; n <= 7; ++n)
        EXPECT_EQ(ladder::find_step(n)->variants[0].set_timeline, nullptr) << "step " << n;
    EXPECT_EQ(ladder::find_variant(s7, "cg")->set_timeline, nullptr);
    EXPECT_EQ(cluster2.set_timeline, nullptr);
#endif
    for (int n = 1; n <= 2; ++n)  // no TMA pipeline to draw: no hook
        EXPECT_EQ(ladder::find_step(n)->variants[0].set_timeline, nullptr) << "step " << n;
}

// What the registry cannot hold stops the program at startup, saying why (in a child
// process: the death test leaves this one's registry as it was).
// `bench` runs each step's default and the variants of cli::compared_variants, skipping names
// the step does not register (a variant being added or renamed). A table that matches none
// of them, or names the default, is stale.
TEST(Registry, TheComparedVariantsOfBenchAreVariantsOfTheirStep) {
    for (const Expected& want : kSteps) {
        SCOPED_TRACE("step " + std::to_string(want.number));
        const std::vector<std::string> compared = ladder::cli::compared_variants(want.number);
        if (compared.empty()) continue;
        const ladder::Step* step = ladder::find_step(want.number);
        ASSERT_NE(step, nullptr);
        int registered = 0;
        for (const std::string& name : compared) {
            EXPECT_NE(name, step->variants[0].name) << "the default runs anyway";
            registered += ladder::find_variant(*step, name.c_str()) != nullptr;
        }
        EXPECT_GT(registered, 0) << "none of the compared variants is registered";
    }
}

TEST(RegistryDeathTest, ARegistrationItCannotHoldStopsTheProgram) {
    // Step 7 registers 5 of the 8 (kMaxVariants): the fourth of four more has no room.
    EXPECT_DEATH(ladder::VariantRegistration(7, 9, nullptr,
                                             {{"m1", no_gemm}, {"m2", no_gemm}, {"m3", no_gemm}, {"m4", no_gemm}}),
                 "step 7: no room for variant 'm4': more than 8");
    EXPECT_DEATH(ladder::VariantRegistration(7, nullptr, nullptr, {{"other", no_gemm}}),
                 "step 7: two variant files claim the default variant");
    EXPECT_DEATH(ladder::TileRegistration(7, nullptr, {{"tile64x64", no_gemm}}),
                 "step 7: a second tile named 'tile64x64'");
    EXPECT_DEATH(ladder::TileRegistration(6, nullptr, {{"64x64", no_gemm}}),
                 "step 6: a tile needs a name");
    EXPECT_DEATH(ladder::VariantRegistration(6, 9, nullptr, {{"pingpong", no_gemm}}),
                 "step 6: a second variant named 'pingpong'");
    EXPECT_DEATH(ladder::VariantRegistration(8, 1, nullptr, {{"x", no_gemm}}),
                 "step 8: no such step");
    EXPECT_DEATH(ladder::StepRegistration(5, "05_again", ladder::NeedsArch::Sm90a, no_tile, nullptr,
                                          nullptr, {{"", no_gemm}}),
                 "step 5: registered twice: by 05_wgmma and by 05_again");
}
