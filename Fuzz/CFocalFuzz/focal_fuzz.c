// The declarations in focal_fuzz.h are libFuzzer's; SwiftPM needs one source file per C target.
#include "focal_fuzz.h"
