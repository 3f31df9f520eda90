// focal_ov.h: the C face of Focal's OpenVINO shim. Two detectors (YuNet faces, YOLOv4-tiny COCO
// objects) compiled for the CPU and run on 8-bit RGB buffers. No OpenVINO type crosses this header.
// Every function that can fail returns NULL or a negative code and writes a message into `err`
// (NUL-terminated, truncated to `errlen`; `err` may be NULL). Boxes are in the pixels of the buffer
// passed in, origin top left. Every buffer comes with its length in bytes, checked against its
// geometry before it is read: `stride * (height - 1) + width * 3 <= length`, without overflow.
#ifndef FOCAL_OV_H
#define FOCAL_OV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An OpenVINO runtime (one `ov_core`) with its compiled-model cache folder. Safe to share.
typedef struct focal_ov_runtime focal_ov_runtime;
/// A model compiled for the CPU. Safe to share; each caller runs it through a session of its own.
typedef struct focal_ov_net focal_ov_net;
/// One inference request of a net with its scratch buffers. One caller at a time.
typedef struct focal_ov_session focal_ov_session;

/// One detection. `label` is 0 for a face; for YOLO it is the COCO class id (0 person, 15 cat, 16 dog).
typedef struct focal_ov_box {
    float x, y, width, height;
    float score;
    int label;
} focal_ov_box;

/// One YOLO output head: its anchors in network pixels and Darknet's `scale_x_y`.
typedef struct focal_ov_yolo_head {
    int anchor_count; /* 1...9 */
    float anchor_w[9], anchor_h[9];
    float scale_xy;
} focal_ov_yolo_head;

/// Error codes (negative returns).
enum {
    FOCAL_OV_EINVAL = -1,   /* an argument or buffer is out of range */
    FOCAL_OV_ERUNTIME = -2, /* OpenVINO failed (its message is in `err`) */
    FOCAL_OV_ENOMEM = -3,   /* an allocation failed */
    FOCAL_OV_EMODEL = -4,   /* the model's outputs are not what the decoder expects */
};

/// The OpenVINO version, e.g. "2026.4.1-22982-..." (a static string; "unavailable" when the
/// library cannot be loaded). OpenVINO is not linked: the first call of this or
/// focal_ov_runtime_create opens libopenvino_c with dlopen.
const char *focal_ov_version(void);

/// Creates a runtime and loads its CPU plugin. `cache_dir` (may be NULL: no cache) is a folder the
/// caller has created for compiled blobs; OpenVINO recompiles and rewrites a blob it cannot
/// import. NULL with the reason in `err` when OpenVINO cannot be loaded or started.
focal_ov_runtime *focal_ov_runtime_create(const char *cache_dir, char *err, size_t errlen);

/// Frees a runtime; NULL is ignored. Nets compiled by it keep what they need.
void focal_ov_runtime_free(focal_ov_runtime *runtime);

/// Writes the CPU plugin's OPTIMIZATION_CAPABILITIES (e.g. "FP32 INT8 BIN EXPORT_IMPORT") into
/// `out` (NUL-terminated, truncated to `capacity`). 0, or a negative code with `err` filled.
int focal_ov_cpu_capabilities(focal_ov_runtime *runtime, char *out, size_t capacity, char *err, size_t errlen);

/// Compiles YuNet (2023mar) from an ONNX file with a fixed 8-bit input [1, H, W, 3] of RGB rows
/// (H and W multiples of 32; focalscripts.onnx_input writes such files, the BGR conversion inside),
/// or imports it from the runtime's cache folder. `streams` inference streams of
/// `threads_per_stream` threads each (both >= 1; threads unpinned). `bf16` nonzero asks OpenVINO
/// for bf16 inference (its INFERENCE_PRECISION_HINT; a CPU without BF16 runs fp32 regardless),
/// zero for fp32; an int8 model's quantized layers run in int8 either way.
focal_ov_net *focal_ov_yunet_compile(focal_ov_runtime *runtime, const char *onnx_path, int streams,
                                     int threads_per_stream, int bf16, char *err, size_t errlen);

/// Compiles a YOLO ONNX model made by focalscripts.darknet_onnx and given a fixed square 8-bit
/// input by focalscripts.onnx_input (one raw output `yolo_<i>` [1, anchors*(5+classes), gh, gw]
/// per head). `heads` (1...4) describe the outputs in order; `classes` is the number of classes
/// (1...1000). The model may also be the int8 IR of the same network (focalscripts.quantize).
/// `bf16` as for focal_ov_yunet_compile.
focal_ov_net *focal_ov_yolo_compile(focal_ov_runtime *runtime, const char *onnx_path, const focal_ov_yolo_head *heads,
                                    int head_count, int classes, int streams, int threads_per_stream, int bf16,
                                    char *err, size_t errlen);

/// Frees a net; NULL is ignored. Free its sessions first.
void focal_ov_net_free(focal_ov_net *net);

/// Creates an inference request of `net`, with its own scratch buffers.
focal_ov_session *focal_ov_session_create(focal_ov_net *net, char *err, size_t errlen);

/// Frees a session; NULL is ignored.
void focal_ov_session_free(focal_ov_session *session);

/// Finds faces in an 8-bit interleaved RGB buffer (`stride` bytes per row). The buffer is used at
/// its own size, padded with black at the bottom and right to the net's input size (it must fit),
/// so callers choose the detection resolution by the size they pass. Writes at most `capacity` boxes with score >=
/// `score_threshold` after NMS at `nms_iou`, best first. Returns the number written, or a negative
/// code with `err` filled.
int focal_ov_yunet_detect(focal_ov_session *session, const unsigned char *rgb, size_t length, int width, int height,
                          int stride, float score_threshold, float nms_iou, focal_ov_box *out, int capacity,
                          char *err, size_t errlen);

/// The most groups focal_ov_yolo_detect combines classes into (COCO's 80 classes, cats and dogs
/// together, make 79).
#define FOCAL_OV_MAX_GROUPS 96

/// Finds COCO objects in an 8-bit interleaved RGB buffer with a YOLO net at its square input of
/// `input_size` (the net's; the image is stretched to it, as Darknet does). One
/// pass per entry of `pads` (1...4): the image inside a grey (114) border of that fraction of its
/// size on every side (0 for none); boxes of all passes are merged by NMS.
/// Classes are combined in groups: `classes[k]` (a class id) belongs to group `groups[k]`; a
/// group's score is the sum of its classes' scores (objectness x class probability, products
/// under 0.01 dropped as Darknet does), its label the class that scored most, and only groups at
/// `group_thresholds[g]` or above are kept. NMS runs per group. Boxes are written best first.
/// Returns the number written (at most `capacity`), or a negative code with `err` filled.
int focal_ov_yolo_detect(focal_ov_session *session, const unsigned char *rgb, size_t length, int width, int height,
                         int stride, int input_size, const double *pads, int pad_count, const int *classes,
                         const int *groups, int class_count, const float *group_thresholds, int group_count,
                         float nms_iou, focal_ov_box *out, int capacity, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
