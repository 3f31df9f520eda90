// focal_fuzz.h: libFuzzer's driver, which the fuzz target's main calls (libFuzzer's own main is
// not used: SwiftPM gives every executable a main of its own).
#ifndef FOCAL_FUZZ_H
#define FOCAL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command line `argc`/`argv`, calling `callback` once per input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
