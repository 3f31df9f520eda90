// OpenVINO's C API, for the C shim CFocalInference only (its calls are partly variadic).
#include <openvino/c/openvino.h>
