// cli.cpp: see cli.h.
#include "cli.h"

#include "arg_parse.h"  // parse_whole, printable
#include "step_api.h"  // ladder::kMaxDimension

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ladder::cli {

std::vector<Shape> check_shapes() {
    // The last five exercise step 07's launch rules (tile_choice.h, its make_schedule):
    // 8704x512x8192 runs as C^T in 244 tiles of 128x144, 1.8 waves, nothing shared;
    // 27136x256x8192 is 212 tiles of 128x256, 1.6 waves: no cluster launch, and the 80 left
    // over are shared by all 132 CTAs in runs that straddle tile boundaries; 1280x2560x8192
    // is one wave of 120 tiles of 128x224. Above six waves the default launches clusters of
    // 2: 8192^3 leaves 34 cluster tiles for 66 clusters, shared in runs of half a tile, and
    // 6145x6344x1032 (49 x 29 tiles of 128x224) has a last row of tiles one row high, a last
    // column whose second B slice lies wholly outside B (not loaded), and a K tail. The last
    // two are few tiles with a long K, split-K through the reduce kernel (tile_choice.h:
    // split_tile): 240x312x9000 in 20 tiles of 64x64, 6 slices each, with edges in M, N
    // and K; 1000x120x8200 as C^T in 16 tiles of 64x128, 8 slices each.
    return {{1, 1, 8},          {127, 129, 72},    {256, 256, 256},
            {1000, 1992, 2056}, {8192, 64, 1024},  {64, 8192, 1024},
            {4096, 4096, 4096}, {8704, 512, 8192}, {27136, 256, 8192},
            {1280, 2560, 8192}, {8192, 8192, 8192}, {6145, 6344, 1032},
            {240, 312, 9000},   {1000, 120, 8200}};
}

std::vector<Shape> default_bench_shapes() {
    // Four families (common/scripts/plot.py draws one chart each): squares; odd sizes; skinny
    // problems (a few tokens through a large layer, and its transpose); LLM projections
    // with M = 8192 tokens.
    return {{512, 512, 512},       {1024, 1024, 1024},   {1536, 1536, 1536},
            {2048, 2048, 2048},    {4096, 4096, 4096},   {6144, 6144, 6144},
            {8192, 8192, 8192},    {1000, 1992, 2056},   {3000, 5000, 2048},
            {4096, 4096, 1024},    {16, 4096, 4096},     {4096, 16, 4096},
            {64, 4096, 4096},      {4096, 64, 4096},     {128, 8192, 8192},
            {8192, 128, 8192},     {160, 8192, 4096},    {256, 8192, 4096},    {8192, 4096, 4096},
            {8192, 14336, 4096},   {8192, 4096, 14336},  {8192, 28672, 8192}};
}

std::vector<Shape> short_bench_shapes() {
    // What `bench` times with --variants compared, in about a minute on an H200: a few shapes
    // of each family of the default set, so that plot.py still draws every chart.
    // Squares 1024..8192 (4096^3 is the ladder chart), one odd size, a few tokens through a
    // layer and its transpose, and the smallest LLM projection.
    return {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
            {1000, 1992, 2056}, {64, 4096, 4096},   {4096, 64, 4096},   {8192, 4096, 4096}};
}

std::vector<Shape> quick_bench_shapes() {
    return {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {1000, 1992, 2056}};
}

std::vector<Shape> small_shapes() {
    // 256x500x4096 is 4 tiles of 128x256 with 64 k-blocks each: step 07 cuts each tile's
    // k-blocks into 4 slices over 16 CTAs (stream-K), with direct stores (N % 8 != 0).
    // 2049x2303x72 has 17 x 9 tiles of 128x256: step 07's lesson (a variant, as every variant
    // runs here) launches it in clusters, so the sanitizer sees remote arrivals and multicast
    // too; the default runs its 1.2 waves without (tile_choice::launches_clusters, whose
    // clustered edges the check shapes cover). Step 07 gives 150x8192x72 its 64x160 tile (as
    // C^T), 150x4096x72 three rows of 64x96 tiles as given (the last row's A box 22 rows,
    // each tile's last 32 columns stored directly), 4096x150x72 the same tiles as C^T (the
    // last row's box of B, C^T's A, 22 rows, C^T stored element by element) and
    // 1536x1536x72 its 128x144 tile, whose last 16 columns are stored directly.
    // 2049x2088x72 forced to 128x192 (--tile) is 187 tiles: the last column of tiles holds 168
    // of N's columns, so its B box is an edge box of 168 rows. 257x264x1032 is the default's
    // clustered path in small (odd K of 17 k-blocks: tile_choice::launches_clusters): 6 x 5
    // tiles of 64x64 in clusters of 2 (of 4 for cluster4), the last row of tiles one row high
    // and its cluster's padded row not loaded, the last column's first B slice an edge box of
    // 8 rows and its second wholly past N.
    // 4096x192x72 runs as C^T in three whole rows of 64x96 tiles, and
    // 176x8192x72 three rows of 64x192 tiles as given, the last row's A box 48 rows. (Every
    // variant and tile runs every shape here: --tile 128x224 runs that tile on all of them.)
    // 128x128x16384 is few tiles with a long K: split-K, each tile's 256 k-blocks in 32
    // slices of 8, and the reduce kernel (stream_k.h: split_count).
    return {{1, 1, 8},         {127, 129, 72},   {129, 257, 200},  {256, 256, 256}, {64, 64, 520},
            {256, 500, 4096},  {2049, 2303, 72}, {150, 4096, 72}, {1536, 1536, 72},
            {2049, 2088, 72},  {4096, 192, 72},  {176, 8192, 72}, {257, 264, 1032},
            {128, 128, 16384}, {150, 8192, 72},  {4096, 150, 72}};
}

std::vector<Shape> contract_shapes() {
    // Step 07's contract sweep, 94 shapes: a short side of 16 to 256 against 4096x4096,
    // 8192x4096, 14336x4096 and 8192x8192 (the short side as M, then as N), then squares and
    // odd sizes of 640 to 4000 that make one to a few waves.
    std::vector<Shape> shapes;
    for (long long side : {16, 32, 48, 64, 96, 128, 160, 192, 224, 256})
        for (const Shape& other : {Shape{0, 4096, 4096}, Shape{0, 8192, 4096}, Shape{0, 14336, 4096},
                                   Shape{0, 8192, 8192}}) {
            shapes.push_back({side, other.N, other.K});
            shapes.push_back({other.N, side, other.K});
        }
    for (const Shape& s : std::vector<Shape>{
            {640, 640, 640}, {768, 768, 768}, {896, 896, 896}, {1280, 1280, 1280},
            {1792, 1792, 1792}, {1000, 1000, 1000}, {2000, 3000, 1496}, {1500, 2500, 3000},
            {3072, 1024, 2048}, {1024, 3072, 2048}, {2304, 2304, 2304}, {2560, 2560, 2560},
            {1920, 1080, 4096}, {4000, 4000, 4000}})
        shapes.push_back(s);
    return shapes;
}

std::vector<Shape> class_shapes() {
    // Shapes of each class where step 07 once trailed cuBLAS: few tiles with a long K (the
    // first eight, then three that take split-K's smallest tiles); a short K on a mid-size or
    // large M x N, and a very short K (64 to 128) over many waves; a short M with a long K;
    // problems of one to six waves, where a cluster launch cost more than it saved
    // (4096x4096x14336 also stream-K's out-of-step runs); small squares; mid-size odd shapes.
    return {
            {256, 256, 16384}, {512, 512, 16384}, {384, 768, 16384}, {256, 1024, 32768},
            {1024, 1024, 16384}, {128, 512, 32768}, {128, 128, 65536}, {768, 768, 16384},
            {384, 384, 24576}, {640, 256, 16384}, {200, 300, 20000},
            {4096, 4096, 256}, {4096, 4096, 512}, {8192, 8192, 256}, {6144, 4096, 384},
            {2048, 8192, 512}, {3000, 5000, 448}, {2304, 4608, 512}, {4608, 2304, 384},
            {4096, 4096, 64}, {8192, 4096, 64}, {8192, 4096, 128}, {8192, 8192, 128},
            {64, 4096, 16384}, {128, 8192, 16384}, {256, 4096, 16384}, {32, 14336, 16384},
            {192, 8192, 16384}, {96, 4096, 32768}, {2048, 2048, 2048}, {64, 28672, 4096},
            {128, 28672, 4096}, {2304, 4096, 2048}, {1536, 4096, 4096}, {4096, 4096, 14336},
            {768, 768, 768}, {1000, 1000, 1000}, {1024, 1024, 1024}, {1280, 1280, 1280},
            {3000, 5000, 2048}, {5000, 3000, 1000}, {1800, 2900, 3000}};
}

std::vector<std::string> compared_variants(int step) {
    // The schedules each step's README measures against its default, which `bench` times
    // beside it. A name the step does not register (a variant being added or renamed) is
    // not run: step-N says so in a note line.
    switch (step) {
        case 2: return {"pipeline"};
        case 3: return {"barrier", "bulk1d"};
        case 6: return {"pingpong"};
        case 7: return {"cluster1", "lesson"};
        default: return {};
    }
}

bool selects_variant(const Options& o, int step, const std::string& name, bool is_default) {
    if (!o.variant.empty()) return o.variant == name;
    if (o.variants == "default") return is_default;
    if (o.variants == "compared") {
        const std::vector<std::string> compared = compared_variants(step);
        return is_default || std::find(compared.begin(), compared.end(), name) != compared.end();
    }
    return true;
}

bool cpu_reference_fits(const Shape& s) {
    // M*N*K <= 2^31, without forming a product that could overflow: N*K < 2^62 fits.
    constexpr long long kLimit = 1LL << 31;
    const long long nk = s.N * s.K;
    return nk <= kLimit && s.M <= kLimit / nk;
}

namespace {

bool parse_positive(const char* text, long long* out) {
    unsigned long long v = 0;
    if (!parse_whole(text, ladder::kMaxDimension, &v) || v == 0) return false;
    *out = static_cast<long long>(v);
    return true;
}

bool parse_shape(const std::string& item, Shape* shape) {
    long long dims[3];
    size_t count = 0, start = 0;
    while (count < 3) {
        size_t x = item.find('x', start);
        std::string part = item.substr(start, x == std::string::npos ? std::string::npos : x - start);
        if (!parse_positive(part.c_str(), &dims[count++])) return false;
        if (x == std::string::npos) break;
        start = x + 1;
        if (count == 3) return false;  // a fourth dimension
    }
    if (count == 1) *shape = {dims[0], dims[0], dims[0]};
    else if (count == 3) *shape = {dims[0], dims[1], dims[2]};
    else return false;
    return valid_k(shape->K);
}

}  // namespace

bool parse_sizes(const std::string& text, std::vector<Shape>* out, std::string* error) {
    if (text == "default") { *out = default_bench_shapes(); return true; }
    if (text == "short") { *out = short_bench_shapes(); return true; }
    if (text == "quick") { *out = quick_bench_shapes(); return true; }
    if (text == "small") { *out = small_shapes(); return true; }
    if (text == "check") { *out = check_shapes(); return true; }
    if (text == "contract") { *out = contract_shapes(); return true; }
    if (text == "classes") { *out = class_shapes(); return true; }
    std::vector<Shape> shapes;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        Shape s{};
        if (!parse_shape(item, &s)) {
            *error = "bad size '" + ladder::printable(item.c_str()) +
                     "' in --sizes (use N for a cube or MxNxK, sizes 1.." + std::to_string(ladder::kMaxDimension) +
                     ", K a multiple of 8)";
            return false;
        }
        shapes.push_back(s);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (shapes.empty()) {
        *error = "--sizes is empty";
        return false;
    }
    *out = shapes;
    return true;
}

bool parse(int argc, const char* const* argv, Options* out, std::string* error) {
    Options o;
    long long m = 0, n = 0, k = 0;
    bool sizes_given = false, short_set = false;
    std::vector<Shape> sizes;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                *error = std::string(name) + " needs a value";
                return nullptr;
            }
            return argv[++i];
        };
        auto dim = [&](const char* name, long long* dst) {
            const char* v = value(name);
            if (v == nullptr) return false;
            if (!parse_positive(v, dst)) {
                *error = std::string(name) + " must be a whole number from 1 to " +
                         std::to_string(ladder::kMaxDimension) + ", not '" + ladder::printable(v) + "'";
                return false;
            }
            return true;
        };
        if (arg == "--check") o.check = true;
        else if (arg == "--bench") o.bench = true;
        else if (arg == "--help" || arg == "-h") o.help = true;
        else if (arg == "--m") { if (!dim("--m", &m)) return false; }
        else if (arg == "--n") { if (!dim("--n", &n)) return false; }
        else if (arg == "--k") {
            if (!dim("--k", &k)) return false;
            if (!valid_k(k)) {
                *error = "--k must be a multiple of 8 (rows of whole 16-byte chunks), not " + std::to_string(k);
                return false;
            }
        }
        else if (arg == "--sizes") {
            const char* v = value("--sizes");
            if (v == nullptr || !parse_sizes(v, &sizes, error)) return false;
            sizes_given = true;
            short_set = std::strcmp(v, "short") == 0;
        } else if (arg == "--csv") {
            const char* v = value("--csv");
            if (v == nullptr) return false;
            o.csv = v;
        } else if (arg == "--timeline") {
            const char* v = value("--timeline");
            if (v == nullptr) return false;
            o.timeline = v;
        } else if (arg == "--variant") {
            const char* v = value("--variant");
            if (v == nullptr) return false;
            o.variant = v;
        } else if (arg == "--tile") {
            const char* v = value("--tile");
            if (v == nullptr) return false;
            o.tile = v;
        } else if (arg == "--variants") {
            const char* v = value("--variants");
            if (v == nullptr) return false;
            if (std::strcmp(v, "all") != 0 && std::strcmp(v, "compared") != 0 && std::strcmp(v, "default") != 0) {
                *error = std::string("--variants must be all, compared or default, not '") + ladder::printable(v) + "'";
                return false;
            }
            o.variants = v;
        } else if (arg == "--seed") {
            const char* v = value("--seed");
            if (v == nullptr) return false;
            unsigned long long seed = 0;
            if (!parse_whole(v, ~0ULL, &seed)) {
                *error = std::string("--seed must be a whole number from 0 to 2^64-1 (digits only), not '") +
                         ladder::printable(v) + "'";
                return false;
            }
            o.seed = seed;
            o.seed_given = true;
        } else if (arg == "--runs") {
            const char* v = value("--runs");
            if (v == nullptr) return false;
            unsigned long long runs = 0;
            if (!parse_whole(v, kMaxRuns, &runs) || runs < 20) {
                *error = "--runs must be from 20 (the median of fewer runs is noise) to " +
                         std::to_string(kMaxRuns) + ", not '" + ladder::printable(v) + "'";
                return false;
            }
            o.min_runs = static_cast<int>(runs);
        } else if (arg == "--regime") {
            const char* v = value("--regime");
            if (v == nullptr) return false;
            if (std::strcmp(v, "cool") != 0 && std::strcmp(v, "sustained") != 0) {
                *error = std::string("--regime must be cool or sustained, not '") + ladder::printable(v) + "'";
                return false;
            }
            o.regime = v;
        } else if (arg == "--graph") {
            o.graph = true;
        } else if (arg == "--inputs") {
            const char* v = value("--inputs");
            if (v == nullptr) return false;
            if (std::strcmp(v, "uniform") != 0 && std::strcmp(v, "zero") != 0) {
                *error = std::string("--inputs must be uniform or zero, not '") + ladder::printable(v) + "'";
                return false;
            }
            o.inputs = v;
        } else if (arg == "--regime-seconds") {
            long long seconds = 0;
            if (!dim("--regime-seconds", &seconds)) return false;
            if (seconds > 3600) {
                *error = "--regime-seconds must be from 1 to 3600";
                return false;
            }
            o.regime_seconds = static_cast<double>(seconds);
        } else if (arg == "--reference") {
            const char* v = value("--reference");
            if (v == nullptr) return false;
            o.cpu_reference = std::strcmp(v, "cpu") == 0;
            o.gpu_reference = std::strcmp(v, "gpu") == 0;
            if (!o.cpu_reference && !o.gpu_reference && std::strcmp(v, "cublas") != 0) {
                *error = std::string("--reference must be cublas, cpu or gpu, not '") + ladder::printable(v) + "'";
                return false;
            }
        } else {
            *error = "unknown argument '" + ladder::printable(arg.c_str()) + "'";
            return false;
        }
    }
    // --timeline alone records the timeline and nothing else.
    if (!o.check && !o.bench && o.timeline.empty()) o.check = o.bench = true;
    const bool one_shape = m || n || k;
    if (!o.variant.empty() && !o.variants.empty()) {
        *error = "give either --variant NAME or --variants all|compared|default, not both";
        return false;
    }
    if (one_shape && sizes_given) {
        *error = "give either --m/--n/--k or --sizes, not both";
        return false;
    }
    // A shape is all three: one left out would silently be some size the user never chose.
    if (one_shape && !(m && n && k)) {
        const char* names[] = {"--m", "--n", "--k"};
        const long long values[] = {m, n, k};
        std::string given, missing;
        for (int i = 0; i < 3; ++i) {
            std::string& list = values[i] ? given : missing;
            list += (list.empty() ? "" : " and ") + std::string(names[i]);
        }
        *error = given + " without " + missing + ": give --m, --n and --k together (one shape), or --sizes";
        return false;
    }
    if (!o.timeline.empty() && sizes_given) {
        *error = "--timeline runs one shape: give it with --m/--n/--k, not --sizes";
        return false;
    }
    if (!o.tile.empty() && (!o.variant.empty() || !o.variants.empty())) {
        *error = "give either --variant/--variants or --tile (a tile of the default variant), not both";
        return false;
    }
    if (o.regime_seconds > 0 && o.regime.empty()) {
        *error = "--regime-seconds goes with --regime cool|sustained";
        return false;
    }
    if (!o.regime.empty() && o.regime_seconds == 0) o.regime_seconds = o.regime == "cool" ? 10 : 60;
    if (o.graph && !o.regime.empty()) {
        *error = "--graph times the default alternating runs; give it without --regime";
        return false;
    }
    if (one_shape) sizes = {{m, n, k}};
    if (one_shape) o.timeline_shape = sizes.front();
    o.check_shapes = (one_shape || sizes_given) ? sizes : check_shapes();
    o.bench_shapes = (one_shape || sizes_given) ? sizes : default_bench_shapes();
    // A named set skips what it cannot afford: step 01 takes 2 s a launch at 8192^3. The short
    // set's limit keeps step 01 at 4096^3 (20 runs: 5.5 s on an H100 or H200) and leaves out its
    // 8192x4096x4096 (11 s).
    if (!one_shape && !sizes_given) o.bench_budget_ms = 20000;
    else if (short_set) o.bench_budget_ms = 8000;
    if (o.cpu_reference)
        for (const Shape& s : o.check_shapes)
            if (!cpu_reference_fits(s)) {
                *error = "--reference cpu is for small shapes (M*N*K <= 2^31); use cuBLAS for larger";
                return false;
            }
    *out = o;
    return true;
}

std::string usage(const char* program) {
    return std::string("usage: ") + program +
           " [--check] [--bench] [--m M --n N --k K |\n"
           "       --sizes default|short|quick|small|check|contract|classes|LIST]\n"
           "       [--variant NAME | --variants all|compared|default | --tile RxC|all] [--csv FILE]\n"
           "       [--seed S] [--runs 20..100000] [--reference cublas|cpu|gpu] [--inputs uniform|zero]\n"
           "       [--regime cool|sustained [--regime-seconds S] | --graph] [--timeline FILE]\n"
           "Sizes are 1.." + std::to_string(ladder::kMaxDimension) + ", K a multiple of 8; --seed is\n"
           "0..2^64-1; --reference cpu takes shapes with M*N*K <= 2^31; --reference gpu checks against\n"
           "the harness's float64 GEMM on the GPU instead of cuBLAS (for a sanitizer's run).\n"
           "With neither --check nor --bench it does both: checks every shape against cuBLAS\n"
           "(and a float64 CPU reference on sampled elements; where cuBLAS is off at one, against\n"
           "a float64 GEMM on the GPU), then times the step and cuBLAS side by side. Exit codes: 0 ok, 1 a check or CUDA call failed, 2 bad arguments,\n"
           "77 no GPU that can run this step.\n"
           "Every variant runs unless --variant names one; --variants compared runs the default\n"
           "and the variants the step's README compares it with (the `bench` target: those on\n"
           "--sizes short). On the default sizes a variant is not timed on a shape whose --runs\n"
           "launches would take over 20 s (8 s on --sizes short); a LIST times every shape.\n"
           "--inputs zero times the runs on zero inputs (after checking the same kernels on random\n"
           "ones): the clock then stays at its boost, where uniform inputs in [-1, 1] (the default)\n"
           "let the board's power limit set it. Rows are named NAME@zero.\n"
           "--tile RxC runs the default variant on one tile of its family instead of the tile it\n"
           "would choose (step 07; --help lists them), --tile all on each; rows are named\n"
           "NAME:tileRxC.\n"
           "--regime cool times, after S s (default 10) of idle GPU, the first 5 alternating\n"
           "launches; --regime sustained launches back to back, alternating, for S s (default\n"
           "60) and reports the median of the second half. Rows are named NAME@cool / NAME@sustained.\n"
           "--graph captures each launch, the step's and cuBLAS's, once per input set into a CUDA\n"
           "graph and times the replays, alternating as always. Rows are named NAME@graph.\n"
           "--timeline FILE runs the --m/--n/--k shape (default 4096x4096x4096) once after a\n"
           "warm-up and writes the pipeline events of a few CTAs to FILE (CSV; plot it with\n"
           "common/scripts/plot_timeline.py). It needs a build configured with\n"
           "-DLADDER_TIMELINE=ON.\n";
}

}  // namespace ladder::cli
