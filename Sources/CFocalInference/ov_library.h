// ov_library.h: OpenVINO's C API, opened with dlopen on first use instead of linked, for
// focal_ov.c only. Linking it made every process (a `focal --version`, a crop with --no-detect)
// relocate OpenVINO's 20 MB runtime before main; opened here, it loads on the thread that first
// needs a model, while the image decodes, and a machine without it can still crop without detection.
//
// Each OpenVINO function (and property-name variable) the shim uses becomes a field of
// `focal_ov_library` typed from OpenVINO's own declaration, and its name a macro for that field,
// so focal_ov.c reads as OpenVINO's documentation writes it.
#ifndef FOCAL_OV_LIBRARY_H
#define FOCAL_OV_LIBRARY_H

#include <openvino/c/openvino.h>

#include <stddef.h>

/// The shared object opened: the soname of the C API in the pinned wheel (scripts/setup.sh's
/// OPENVINO_LIBS); found through the binary's rpath like a linked library.
#define FOCAL_OV_LIBRARY_NAME "libopenvino_c.so.2641"

#define FOCAL_OV_FUNCTIONS(X)                     \
    X(ov_compiled_model_create_infer_request)     \
    X(ov_compiled_model_free)                     \
    X(ov_compiled_model_input)                    \
    X(ov_const_port_get_shape)                    \
    X(ov_core_compile_model_from_file_props)      \
    X(ov_core_create)                             \
    X(ov_core_free)                               \
    X(ov_core_get_property)                       \
    X(ov_core_get_versions_by_device_name)        \
    X(ov_core_versions_free)                      \
    X(ov_free)                                    \
    X(ov_get_error_info)                          \
    X(ov_get_last_err_msg)                        \
    X(ov_get_openvino_version)                    \
    X(ov_infer_request_free)                      \
    X(ov_infer_request_get_tensor)                \
    X(ov_infer_request_infer)                     \
    X(ov_infer_request_set_input_tensor_by_index) \
    X(ov_output_const_port_free)                  \
    X(ov_port_get_element_type)                   \
    X(ov_shape_create)                            \
    X(ov_shape_free)                              \
    X(ov_tensor_create_from_host_ptr)             \
    X(ov_tensor_data)                             \
    X(ov_tensor_free)                             \
    X(ov_tensor_get_element_type)                 \
    X(ov_tensor_get_shape)                        \
    X(ov_tensor_get_size)                         \
    X(ov_version_free)

/// The property names the shim sets: exported variables (`const char *`), read through their address.
#define FOCAL_OV_VARIABLES(X)                   \
    X(ov_property_key_cache_dir)                \
    X(ov_property_key_hint_enable_cpu_pinning)  \
    X(ov_property_key_hint_inference_precision) \
    X(ov_property_key_hint_performance_mode)    \
    X(ov_property_key_inference_num_threads)    \
    X(ov_property_key_num_streams)

#define FOCAL_OV_FIELD(name) __typeof__(name) *name;
/// The functions, and the variables' addresses, filled by focal_ov_library_open.
struct focal_ov_library {
    FOCAL_OV_FUNCTIONS(FOCAL_OV_FIELD)
    FOCAL_OV_VARIABLES(FOCAL_OV_FIELD)
};
#undef FOCAL_OV_FIELD

extern struct focal_ov_library focal_ov_library;

/// Opens the library and resolves every function, once per process (later calls return the
/// first call's result). 0 on success; otherwise -1 with the loader's message in `err`.
int focal_ov_library_open(char *err, size_t errlen);

#ifndef FOCAL_OV_LIBRARY_IMPLEMENTATION
#define ov_compiled_model_create_infer_request (focal_ov_library.ov_compiled_model_create_infer_request)
#define ov_compiled_model_free (focal_ov_library.ov_compiled_model_free)
#define ov_compiled_model_input (focal_ov_library.ov_compiled_model_input)
#define ov_const_port_get_shape (focal_ov_library.ov_const_port_get_shape)
#define ov_core_compile_model_from_file_props (focal_ov_library.ov_core_compile_model_from_file_props)
#define ov_core_create (focal_ov_library.ov_core_create)
#define ov_core_free (focal_ov_library.ov_core_free)
#define ov_core_get_property (focal_ov_library.ov_core_get_property)
#define ov_core_get_versions_by_device_name (focal_ov_library.ov_core_get_versions_by_device_name)
#define ov_core_versions_free (focal_ov_library.ov_core_versions_free)
#define ov_free (focal_ov_library.ov_free)
#define ov_get_error_info (focal_ov_library.ov_get_error_info)
#define ov_get_last_err_msg (focal_ov_library.ov_get_last_err_msg)
#define ov_get_openvino_version (focal_ov_library.ov_get_openvino_version)
#define ov_infer_request_free (focal_ov_library.ov_infer_request_free)
#define ov_infer_request_get_tensor (focal_ov_library.ov_infer_request_get_tensor)
#define ov_infer_request_infer (focal_ov_library.ov_infer_request_infer)
#define ov_infer_request_set_input_tensor_by_index (focal_ov_library.ov_infer_request_set_input_tensor_by_index)
#define ov_output_const_port_free (focal_ov_library.ov_output_const_port_free)
#define ov_port_get_element_type (focal_ov_library.ov_port_get_element_type)
#define ov_shape_create (focal_ov_library.ov_shape_create)
#define ov_shape_free (focal_ov_library.ov_shape_free)
#define ov_tensor_create_from_host_ptr (focal_ov_library.ov_tensor_create_from_host_ptr)
#define ov_tensor_data (focal_ov_library.ov_tensor_data)
#define ov_tensor_free (focal_ov_library.ov_tensor_free)
#define ov_tensor_get_element_type (focal_ov_library.ov_tensor_get_element_type)
#define ov_tensor_get_shape (focal_ov_library.ov_tensor_get_shape)
#define ov_tensor_get_size (focal_ov_library.ov_tensor_get_size)
#define ov_version_free (focal_ov_library.ov_version_free)
#define ov_property_key_cache_dir (*focal_ov_library.ov_property_key_cache_dir)
#define ov_property_key_hint_enable_cpu_pinning (*focal_ov_library.ov_property_key_hint_enable_cpu_pinning)
#define ov_property_key_hint_inference_precision (*focal_ov_library.ov_property_key_hint_inference_precision)
#define ov_property_key_hint_performance_mode (*focal_ov_library.ov_property_key_hint_performance_mode)
#define ov_property_key_inference_num_threads (*focal_ov_library.ov_property_key_inference_num_threads)
#define ov_property_key_num_streams (*focal_ov_library.ov_property_key_num_streams)
#endif

#endif
