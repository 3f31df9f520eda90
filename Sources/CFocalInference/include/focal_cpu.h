// focal_cpu.h: what the CPU offers for inference, read with CPUID (and XGETBV for what the
// operating system has enabled), without loading OpenVINO, so that a detector's identifier (a
// cache key) can name its precision before any model loads.
#ifndef FOCAL_CPU_H
#define FOCAL_CPU_H

#ifdef __cplusplus
extern "C" {
#endif

/// Feature bits of focal_cpu_features.
enum {
    FOCAL_CPU_AVX2 = 1 << 0,   /* AVX2 and FMA, enabled by the OS: OpenVINO's int8 kernels run */
    FOCAL_CPU_AVX512 = 1 << 1, /* AVX-512 F/BW/VL, ZMM state enabled by the OS */
    FOCAL_CPU_VNNI = 1 << 2,   /* AVX-512 VNNI or AVX-VNNI: int8 dot products in one instruction */
    FOCAL_CPU_BF16 = 1 << 3,   /* AVX-512 BF16 or AMX-BF16: OpenVINO honours a bf16 precision hint */
    FOCAL_CPU_AMX = 1 << 4,    /* AMX tiles (int8 and bf16), enabled by the OS */
};

/// The FOCAL_CPU_* bits this CPU has; 0 on a CPU that is not x86-64.
int focal_cpu_features(void);

#ifdef __cplusplus
}
#endif

#endif
