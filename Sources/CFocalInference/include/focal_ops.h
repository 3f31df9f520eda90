// focal_ops.h: Focal's image operations in plain C11, in place of what it used from OpenCV 4.6:
// resizing 8-bit RGB buffers (cv::resize with INTER_AREA or INTER_LINEAR, cv::copyMakeBorder),
// the spectral-residual saliency map and cv::dnn::NMSBoxes. Functions that can fail return a
// negative code and write a message into `err` (NUL-terminated, truncated to `errlen`; `err` may
// be NULL). Every image buffer comes with its length in bytes, checked against its geometry before
// it is touched: `stride * (height - 1) + width * 3 <= length`, computed without overflow. Nothing
// here keeps global state: any function may run on several threads at once on distinct outputs.
#ifndef FOCAL_OPS_H
#define FOCAL_OPS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Error codes (negative returns), with the values of focal_ov.h's codes of the same meaning.
enum {
    FOCAL_OPS_EINVAL = -1, /* an argument or buffer is out of range */
    FOCAL_OPS_ENOMEM = -3, /* an allocation failed */
};

/// Resizes an 8-bit interleaved RGB image of `src_w` x `src_h` (`src_stride` bytes per row) to
/// `dst_w` x `dst_h` (`dst_stride` bytes per row; bytes past `dst_w * 3` in a row are left alone).
/// Each axis is scaled on its own: by area averaging where it shrinks (as cv::resize INTER_AREA,
/// partial pixels weighted by their coverage) and bilinearly where it grows or keeps its size
/// (as INTER_LINEAR: half-pixel centres, edge pixels replicated). Samples are rounded to nearest
/// and match OpenCV's to within one level. Sides are 1...1048576; the buffers must not overlap.
/// Returns 0, or a negative code with `err` filled.
int focal_resize_rgb(const unsigned char *src, size_t src_length, int src_w, int src_h, int src_stride,
                     unsigned char *dst, size_t dst_length, int dst_w, int dst_h, int dst_stride, char *err,
                     size_t errlen);

/// Resizes like focal_resize_rgb, but into the rectangle at (`x`, `y`) of `w` x `h` pixels of
/// `dst` (it must lie inside), and sets every other pixel of `dst` to (`fill`, `fill`, `fill`): the
/// image inside a border, e.g. grey around a photo, or black at the bottom and right to pad it to
/// a multiple of 32. The same as cv::resize to `w` x `h` followed by cv::copyMakeBorder with
/// BORDER_CONSTANT; a rectangle of the source's size copies the pixels unchanged.
/// Returns 0, or a negative code with `err` filled.
int focal_resize_rgb_into(const unsigned char *src, size_t src_length, int src_w, int src_h, int src_stride,
                          unsigned char *dst, size_t dst_length, int dst_w, int dst_h, int dst_stride, int x,
                          int y, int w, int h, unsigned char fill, char *err, size_t errlen);

/// Computes a spectral-residual saliency map (Hou & Zhang 2007) of an 8-bit RGB buffer, resized
/// to `map_width` x `map_height` floats in [0, 1] written to `out_map` (row-major). The map is
/// computed on a grey copy 64 px wide (its height in proportion, 1...4096, so the image may be at
/// most 64 times taller than wide), so it is coarse; a flat image gives all zeros. `map_length`
/// is the number of floats `out_map` holds (at least map_width * map_height); map sides are
/// 1...4096. Matches focal_cv_saliency (OpenCV) to about 1e-4. Returns 0, or a negative code
/// with `err` filled.
int focal_saliency(const unsigned char *rgb, size_t length, int width, int height, int stride, int map_width,
                   int map_height, float *out_map, size_t map_length, char *err, size_t errlen);

/// Non-maximum suppression, as cv::dnn::NMSBoxes on Rect2d: boxes (`count` x, y, width, height
/// quadruples in `boxes`, one score each in `scores`) scoring above `score_threshold` are taken
/// best first (ties in input order), and one is kept when its intersection over union with
/// every box kept before it is at most `iou_threshold`. Both thresholds must be >= 0. Writes the
/// indices of the kept boxes, in that order, to `keep` (at most `capacity`: the first ones).
/// Returns the number written, or a negative code with `err` filled.
int focal_nms(const float *boxes, const float *scores, int count, float score_threshold, float iou_threshold,
              int *keep, int capacity, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
