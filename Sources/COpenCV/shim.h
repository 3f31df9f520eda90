// Only the C++ shim in CFocalOpenCV includes OpenCV; this module exists to carry pkg-config's
// flags. The header stays free of C++ so that the module map can be read from C and Swift.
#include <opencv2/core/version.hpp>
