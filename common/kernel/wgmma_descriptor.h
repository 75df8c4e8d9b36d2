// wgmma_descriptor.h: the 64-bit shared-memory matrix descriptor that wgmma.mma_async reads
// its operands through. Taught in step 05 (05_wgmma/gemm.cu); used by steps 05 to 07.
//
// A wgmma does not take addresses of individual elements. It takes, for each operand in
// shared memory, ONE 64-bit number that says where the tile starts and how it is laid out;
// the tensor core then walks the tile itself. This header builds that number. It is plain
// C++ (no device code) so tests/test_wgmma_descriptor.cpp can check the bits on the CPU.
//
// Source of truth: PTX ISA, section "Matrix Descriptor Format" under "Asynchronous
// Warpgroup Level Matrix Shared Memory Layout" (wgmma). The fields, low bit first:
//
//   bits  0-13  start address       (shared-memory byte address) >> 4
//   bits 14-15  reserved, 0
//   bits 16-29  leading byte offset (LBO, bytes) >> 4
//   bits 30-31  reserved, 0
//   bits 32-45  stride byte offset  (SBO, bytes) >> 4
//   bits 46-48  reserved, 0
//   bits 49-51  base offset         (3 bits; 0 when the swizzle atom starts 1024-B aligned)
//   bits 52-61  reserved, 0
//   bits 62-63  swizzle mode        0 none, 1 128-byte, 2 64-byte, 3 32-byte
//
//    63-62   61-52   51-49   48-46   45-32      31-30   29-16      15-14   13-0
//   +-------+-------+-------+-------+----------+-------+----------+-------+-----------+
//   |swizzle|   0   | base  |   0   | SBO >> 4 |   0   | LBO >> 4 |   0   | addr >> 4 |
//   +-------+-------+-------+-------+----------+-------+----------+-------+-----------+
//
// Why ">> 4": every address and offset wgmma deals in is a multiple of 16 bytes (one row of
// an 8x8 bf16 "core matrix" is 16 bytes), so the low 4 bits are always zero and not stored.
// 14 bits of (address >> 4) reach 256 KB, more than the 228 KB of shared memory per SM.
//
// What LBO and SBO mean for the layout this ladder uses (K-major operand, 128-byte swizzle,
// BK = 64 bf16 = 128 bytes per row, so one tile row is exactly one swizzle row):
//   * The tile is a column of "swizzle atoms", each 8 rows x 128 bytes = 1024 bytes,
//     stacked along M (or N). SBO is the distance from one atom to the next: 1024 bytes.
//   * LBO would be the distance between atoms along K. One wgmma reads K = 16 elements
//     = 32 bytes, which never leaves the 128-byte atom, so LBO is not used; the convention
//     (CUTLASS and others) is to store 1 there, i.e. 16 bytes.
//   * Moving along K inside the atom (k = 0, 16, 32, 48 -> +0, 32, 64, 96 bytes) is done by
//     adding the byte offset to the start address; the hardware applies the 128-byte
//     swizzle to the address it computes, so the same XOR the TMA applied on the way in
//     is undone on the way out. That only holds if the atom itself starts on a 1024-byte
//     boundary, which is why base offset is 0 here and the stages are 1024-byte aligned.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define LADDER_HOST_DEVICE __host__ __device__
#else
#define LADDER_HOST_DEVICE
#endif

namespace ladder::wgmma {

// Values of bits 62-63 (PTX ISA "Matrix Descriptor Format": swizzle mode).
enum class Swizzle : uint32_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };

// Packs one descriptor. Byte quantities are given in bytes (not pre-shifted); each is
// divided by 16 and masked to its 14-bit field. base_offset is the raw 3-bit field.
LADDER_HOST_DEVICE constexpr uint64_t make_smem_descriptor(uint32_t smem_byte_address,
                                                           uint32_t leading_byte_offset,
                                                           uint32_t stride_byte_offset,
                                                           Swizzle swizzle,
                                                           uint32_t base_offset = 0) {
    constexpr uint64_t kField14 = 0x3FFF;  // start address, LBO and SBO are 14-bit fields
    return ((static_cast<uint64_t>(smem_byte_address) >> 4) & kField14)             // 0-13
           | (((static_cast<uint64_t>(leading_byte_offset) >> 4) & kField14) << 16)  // 16-29
           | (((static_cast<uint64_t>(stride_byte_offset) >> 4) & kField14) << 32)   // 32-45
           | ((static_cast<uint64_t>(base_offset) & 0x7) << 49)                      // 49-51
           | ((static_cast<uint64_t>(swizzle) & 0x3) << 62);                         // 62-63
}

// The one layout this ladder feeds wgmma: a K-major tile whose rows are 128 bytes
// (BK = 64 bf16), written by TMA with CU_TENSOR_MAP_SWIZZLE_128B, starting 1024-B aligned.
constexpr uint32_t kSwizzleAtomBytes = 8 * 128;  // 8 rows of 128 bytes: the SBO
constexpr uint32_t kUnusedLeadingBytes = 16;     // LBO is ignored here; encodes as 1

LADDER_HOST_DEVICE constexpr uint64_t make_kmajor_sw128_descriptor(uint32_t smem_byte_address) {
    return make_smem_descriptor(smem_byte_address, kUnusedLeadingBytes, kSwizzleAtomBytes,
                                Swizzle::B128);
}

}  // namespace ladder::wgmma
