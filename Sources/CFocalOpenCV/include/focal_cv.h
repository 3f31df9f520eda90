// focal_cv.h: the C face of Focal's OpenCV DNN shim. No C++ type crosses this header; every
// function catches C++ exceptions and reports them as text in `err` (NUL-terminated, truncated
// to `errlen`). Boxes are in the pixels of the buffer that was passed in, origin top left.
// Every buffer comes with its length in bytes, checked against its geometry before it is read:
// `stride * (height - 1) + width * 3 <= length`, computed without overflow.
#ifndef FOCAL_CV_H
#define FOCAL_CV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An opaque loaded network. Not safe for concurrent use: callers serialise `detect` calls.
typedef struct focal_cv_net focal_cv_net;

/// One detection. `label` is 0 for a face; for YOLO it is the COCO class id (0 person, 15 cat, 16 dog).
typedef struct focal_cv_box {
    float x, y, width, height;
    float score;
    int label;
} focal_cv_box;

/// Sets the number of threads OpenCV may use inside one call (0 or less: OpenCV's default).
void focal_cv_set_threads(int threads);

/// Loads YuNet (2023mar ONNX) with cv::dnn::readNetFromONNX. Returns NULL and fills `err` on failure.
focal_cv_net *focal_cv_yunet_load(const char *onnx_path, char *err, size_t errlen);

/// Loads YOLOv4-tiny from Darknet files, with every [yolo] layer's `thresh` lowered to 0.01 so
/// that weak class scores survive to be summed. Returns NULL and fills `err` on failure.
focal_cv_net *focal_cv_yolo_load(const char *cfg_path, const char *weights_path, char *err, size_t errlen);

/// Frees a network; NULL is ignored.
void focal_cv_net_free(focal_cv_net *net);

/// Finds faces in an 8-bit interleaved RGB buffer (`stride` bytes per row). Writes at most
/// `capacity` boxes with score >= `score_threshold` after NMS at `nms_iou`, best first.
/// The buffer is used at its own size (padded to a multiple of 32), so callers choose the
/// detection resolution by the size they pass; one net accepts a different size on every call.
/// Returns the number written, or -1 with `err` filled.
int focal_cv_yunet_detect(focal_cv_net *net, const unsigned char *rgb, size_t length, int width, int height,
                          int stride, float score_threshold, float nms_iou,
                          focal_cv_box *out, int capacity, char *err, size_t errlen);

/// Finds COCO objects in an 8-bit interleaved RGB buffer with YOLOv4-tiny at a square network
/// input of `input_size` (a multiple of 32, e.g. 288; the image is stretched to it, as Darknet
/// does). One pass per entry of `pads`: the image inside a grey border of that fraction of its
/// size on every side (0 for none); boxes of all passes are merged by NMS.
/// Classes are combined in groups: `classes[k]` (a COCO id) belongs to group `groups[k]`; a
/// group's score is the sum of its classes' scores (objectness x class probability), its label the
/// class that scored most, and only groups at `group_thresholds[g]` or above are kept. NMS runs
/// per group. Boxes are written best first. Returns the number of boxes written (at most
/// `capacity`), or -1 with `err` filled.
int focal_cv_yolo_detect(focal_cv_net *net, const unsigned char *rgb, size_t length, int width, int height,
                         int stride, int input_size, const double *pads, int pad_count, const int *classes,
                         const int *groups, int class_count, const float *group_thresholds, int group_count,
                         float nms_iou, focal_cv_box *out, int capacity, char *err, size_t errlen);

/// Computes a spectral-residual saliency map of an 8-bit RGB buffer, resized to `map_width` x
/// `map_height` floats in [0, 1] written to `out_map` (row-major). The map is computed at 64 px
/// wide, so it is coarse; a flat image gives all zeros. `map_length` is the number of floats
/// `out_map` holds (at least map_width * map_height). Returns 0, or -1 with `err`.
int focal_cv_saliency(const unsigned char *rgb, size_t length, int width, int height, int stride,
                      int map_width, int map_height, float *out_map, size_t map_length, char *err,
                      size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
