// focal_cpu.c: CPU features for choosing an inference precision (see focal_cpu.h).
#include "focal_cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <stdint.h>

/// The register of enabled state components (XCR0); 0 when the OS has not enabled XSAVE.
static uint64_t enabled_state(unsigned ecx1) {
    if (!(ecx1 & (1u << 27))) return 0; /* OSXSAVE */
    uint32_t eax, edx;
    __asm__ volatile("xgetbv"
                     : "=a"(eax), "=d"(edx)
                     : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

int focal_cpu_features(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned ecx1 = c;
    const uint64_t xcr0 = enabled_state(ecx1);
    const int ymm = (xcr0 & 0x6) == 0x6, zmm = ymm && (xcr0 & 0xe0) == 0xe0;
    const int amx_state = (xcr0 & (3ull << 17)) == (3ull << 17);
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const unsigned ebx7 = b, ecx7 = c, edx7 = d, max_subleaf = a;
    unsigned eax71 = 0;
    if (max_subleaf >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) eax71 = a;
    int features = 0;
    const int fma = (ecx1 >> 12) & 1;
    if (ymm && fma && (ebx7 & (1u << 5))) features |= FOCAL_CPU_AVX2;
    /* F (16), BW (30), VL (31) */
    if (zmm && (ebx7 & (1u << 16)) && (ebx7 & (1u << 30)) && (ebx7 & (1u << 31))) features |= FOCAL_CPU_AVX512;
    if (((features & FOCAL_CPU_AVX512) && (ecx7 & (1u << 11))) || (ymm && (eax71 & (1u << 4))))
        features |= FOCAL_CPU_VNNI;
    const int amx = amx_state && (edx7 & (1u << 24));
    if (amx) features |= FOCAL_CPU_AMX;
    if (((features & FOCAL_CPU_AVX512) && (eax71 & (1u << 5))) || (amx && (edx7 & (1u << 22))))
        features |= FOCAL_CPU_BF16;
    return features;
}
#else
int focal_cpu_features(void) { return 0; }
#endif
