// test_wgmma_descriptor.cpp: the wgmma shared-memory matrix descriptor
// (common/kernel/wgmma_descriptor.h) checked bit by bit against values worked out by hand
// from the PTX ISA "Matrix Descriptor Format" table. Runs on the CPU; no GPU needed.
#include <gtest/gtest.h>

#include <cstdint>

#include "wgmma_descriptor.h"

using ladder::wgmma::make_kmajor_sw128_descriptor;
using ladder::wgmma::make_smem_descriptor;
using ladder::wgmma::Swizzle;

namespace {

// Field extractors written independently of the encoder, straight from the PTX table.
uint64_t start_field(uint64_t d) { return d & 0x3FFF; }             // bits 0-13
uint64_t lbo_field(uint64_t d) { return (d >> 16) & 0x3FFF; }       // bits 16-29
uint64_t sbo_field(uint64_t d) { return (d >> 32) & 0x3FFF; }       // bits 32-45
uint64_t base_offset_field(uint64_t d) { return (d >> 49) & 0x7; }  // bits 49-51
uint64_t swizzle_field(uint64_t d) { return d >> 62; }              // bits 62-63
// Bits 14-15, 30-31, 46-48 and 52-61 are reserved and must stay zero.
constexpr uint64_t kReservedBits = (0x3ull << 14) | (0x3ull << 30) | (0x7ull << 46) |
                                   (0x3FFull << 52);

}  // namespace

// The worked example: a stage at shared address 0x400, 128-byte swizzle, LBO 16 bytes,
// SBO 1024 bytes (8 rows x 128 bytes).
//   start  0x400 >> 4 = 0x40            -> 0x0000'0000'0000'0040
//   LBO    16    >> 4 = 1,  << 16       -> 0x0000'0000'0001'0000
//   SBO    1024  >> 4 = 64 = 0x40, << 32 -> 0x0000'0040'0000'0000
//   base offset 0                       -> 0
//   swizzle 128B = 1, << 62             -> 0x4000'0000'0000'0000
//   sum                                 =  0x4000'0040'0001'0040
TEST(WgmmaDescriptor, WorkedExample128BSwizzle) {
    const uint64_t d = make_smem_descriptor(0x400, 16, 1024, Swizzle::B128);
    EXPECT_EQ(d, 0x4000004000010040ull);
    EXPECT_EQ(start_field(d), 0x40u);
    EXPECT_EQ(lbo_field(d), 1u);
    EXPECT_EQ(sbo_field(d), 64u);
    EXPECT_EQ(base_offset_field(d), 0u);
    EXPECT_EQ(swizzle_field(d), 1u);
    EXPECT_EQ(d & kReservedBits, 0u);
}

// The step-05 shorthand is exactly the worked example's parameters.
TEST(WgmmaDescriptor, KMajorSw128ShorthandMatches) {
    EXPECT_EQ(make_kmajor_sw128_descriptor(0x400), 0x4000004000010040ull);
    EXPECT_EQ(make_kmajor_sw128_descriptor(0x400),
              make_smem_descriptor(0x400, 16, 1024, Swizzle::B128));
}

// Moving K by 16 bf16 elements = 32 bytes inside a 128-byte swizzle row adds 32 >> 4 = 2
// to the start-address field and touches nothing else. The four k16 steps of one BK = 64
// k-block are +0, +2, +4, +6.
TEST(WgmmaDescriptor, KStepOf16ElementsAddsTwo) {
    const uint64_t base = make_kmajor_sw128_descriptor(0x400);
    for (uint32_t k = 0; k < 4; ++k) {
        const uint64_t d = make_kmajor_sw128_descriptor(0x400 + k * 16 * 2);
        EXPECT_EQ(d, base + 2 * k) << "k step " << k;
        EXPECT_EQ(start_field(d), 0x40u + 2 * k);
    }
}

// The start address keeps 14 bits of (address >> 4): an address 256 KB higher encodes the
// same, and nothing spills into the reserved bits 14-15 or the LBO field.
TEST(WgmmaDescriptor, AddressFieldMasksTo14Bits) {
    const uint64_t wrapped = make_smem_descriptor(0x40400, 16, 1024, Swizzle::B128);
    EXPECT_EQ(wrapped, make_smem_descriptor(0x400, 16, 1024, Swizzle::B128));
    const uint64_t all_ones = make_smem_descriptor(0xFFFFFFFFu, 0, 0, Swizzle::None);
    EXPECT_EQ(all_ones, 0x3FFFull);
    // The largest shared-memory address on an H100 (228 KB - 16) still fits unmasked.
    const uint32_t top = 228 * 1024 - 16;
    EXPECT_EQ(start_field(make_kmajor_sw128_descriptor(top)), top >> 4);
}

// The low 4 bits of every byte quantity are dropped (all are multiples of 16 in use).
TEST(WgmmaDescriptor, LowFourBitsAreDropped) {
    EXPECT_EQ(make_smem_descriptor(0x40F, 31, 1039, Swizzle::B128),
              make_smem_descriptor(0x400, 16, 1024, Swizzle::B128));
}

// LBO and SBO each land in their own 14-bit field and are masked to it.
TEST(WgmmaDescriptor, OffsetFieldsAreIndependent) {
    const uint64_t lbo_only = make_smem_descriptor(0, 0x3FFF0, 0, Swizzle::None);
    EXPECT_EQ(lbo_only, 0x3FFFull << 16);
    const uint64_t sbo_only = make_smem_descriptor(0, 0, 0x3FFF0, Swizzle::None);
    EXPECT_EQ(sbo_only, 0x3FFFull << 32);
    // One past the field's range wraps to 0 instead of spilling into reserved bits.
    EXPECT_EQ(make_smem_descriptor(0, 0x40000, 0x40000, Swizzle::None), 0u);
}

// Swizzle modes: none 0, 128B 1, 64B 2, 32B 3, in bits 62-63.
TEST(WgmmaDescriptor, SwizzleModeBits) {
    EXPECT_EQ(make_smem_descriptor(0, 0, 0, Swizzle::None), 0ull);
    EXPECT_EQ(make_smem_descriptor(0, 0, 0, Swizzle::B128), 0x4000000000000000ull);
    EXPECT_EQ(make_smem_descriptor(0, 0, 0, Swizzle::B64), 0x8000000000000000ull);
    EXPECT_EQ(make_smem_descriptor(0, 0, 0, Swizzle::B32), 0xC000000000000000ull);
}

// Base offset: 3 bits at 49-51 (7 << 49 = 0x000E'0000'0000'0000); an out-of-range value
// is masked instead of reaching the reserved bits.
TEST(WgmmaDescriptor, BaseOffsetBits) {
    EXPECT_EQ(make_smem_descriptor(0, 0, 0, Swizzle::None, 7), 0x000E000000000000ull);
    EXPECT_EQ(make_smem_descriptor(0, 0, 0, Swizzle::None, 8), 0ull);
}

// Step 05's second warpgroup reads rows 64..127 of the A stage: 64 rows x 128 bytes =
// 8192 bytes further, i.e. 512 more in the start field; still 1024-aligned (8 atoms).
TEST(WgmmaDescriptor, SecondWarpgroupRowsOffset) {
    const uint32_t stage = 0x1000;
    const uint64_t wg0 = make_kmajor_sw128_descriptor(stage);
    const uint64_t wg1 = make_kmajor_sw128_descriptor(stage + 64 * 128);
    EXPECT_EQ(wg1 - wg0, 512u);
    EXPECT_EQ((stage + 64 * 128) % 1024, 0u);
}

// Usable in constant expressions (the kernel may fold descriptors at compile time).
static_assert(make_smem_descriptor(0x400, 16, 1024, Swizzle::B128) == 0x4000004000010040ull,
              "worked example");
