// focal_ov.c: the C side of focal_ov.h. Compiles YuNet and YOLO ONNX models with OpenVINO's C
// API (files with a fixed 8-bit RGB input, their conversion to what the network wants inside the
// graph), runs them on caller buffers and decodes their raw outputs into boxes. Nothing here keeps global state.
#include "focal_ov.h"

#include "focal_ops.h"

#include "ov_library.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum net_kind { KIND_YUNET = 1,
                KIND_YOLO = 2 };

struct focal_ov_runtime {
    ov_core_t *core;
    char *cache_dir; /* NULL: no cache */
};

struct focal_ov_net {
    enum net_kind kind;
    ov_compiled_model_t *compiled;
    int width, height; /* the fixed input size */
    int head_count, classes;
    focal_ov_yolo_head heads[4];
};

/// A growable array of candidate detections.
typedef struct candidates {
    focal_ov_box *items;
    size_t count, capacity;
} candidates;

struct focal_ov_session {
    focal_ov_net *net;
    ov_infer_request_t *request;
    unsigned char *input; /* the network input, 8-bit RGB, rows contiguous */
    size_t input_capacity;
    candidates found;
};

static const int kYunetStrides[3] = {8, 16, 32};
static const char *const kYunetOutputs[9] = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16",
                                             "obj_32", "bbox_8", "bbox_16", "bbox_32"};
enum { kGrey = 114 };

static void set_error(char *err, size_t errlen, const char *format, ...) {
    if (err == NULL || errlen == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(err, errlen, format, args);
    va_end(args);
}

/// Fills `err` with what OpenVINO said about a failed call.
static int ov_failure(char *err, size_t errlen, const char *what, ov_status_e status) {
    const char *detail = ov_get_last_err_msg();
    set_error(err, errlen, "%s: %s%s%s", what, ov_get_error_info(status), detail && *detail ? ": " : "",
              detail ? detail : "");
    return FOCAL_OV_ERUNTIME;
}

#define OV_CHECK(call, what)                                   \
    do {                                                       \
        ov_status_e status_ = (call);                          \
        if (status_ != OK) {                                   \
            result = ov_failure(err, errlen, (what), status_); \
            goto done;                                         \
        }                                                      \
    } while (0)

static char version_text[96] = "unavailable";
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void read_version(void) {
    ov_version_t version;
    if (focal_ov_library_open(NULL, 0) != 0) return;
    if (ov_get_openvino_version(&version) != OK) {
        snprintf(version_text, sizeof version_text, "unknown");
        return;
    }
    snprintf(version_text, sizeof version_text, "%s", version.buildNumber ? version.buildNumber : "unknown");
    ov_version_free(&version);
}

const char *focal_ov_version(void) {
    pthread_once(&version_once, read_version);
    return version_text;
}

focal_ov_runtime *focal_ov_runtime_create(const char *cache_dir, char *err, size_t errlen) {
    if (focal_ov_library_open(err, errlen) != 0) return NULL;
    focal_ov_runtime *runtime = calloc(1, sizeof *runtime);
    if (runtime == NULL) {
        set_error(err, errlen, "out of memory");
        return NULL;
    }
    ov_status_e status = ov_core_create(&runtime->core);
    if (status != OK) {
        ov_failure(err, errlen, "cannot start OpenVINO", status);
        free(runtime);
        return NULL;
    }
    // Loads the CPU plugin now (its 60 MB library takes tens of milliseconds to link), so that a
    // runtime created ahead of the image has it ready for the first compile. A plugin that fails
    // to load is reported by that compile.
    ov_core_version_list_t versions = {0};
    if (ov_core_get_versions_by_device_name(runtime->core, "CPU", &versions) == OK) ov_core_versions_free(&versions);
    if (cache_dir != NULL && *cache_dir != '\0') {
        const size_t size = strlen(cache_dir) + 1;
        runtime->cache_dir = malloc(size);
        if (runtime->cache_dir) memcpy(runtime->cache_dir, cache_dir, size);
        if (runtime->cache_dir == NULL) {
            set_error(err, errlen, "out of memory");
            focal_ov_runtime_free(runtime);
            return NULL;
        }
    }
    return runtime;
}

int focal_ov_cpu_capabilities(focal_ov_runtime *runtime, char *out, size_t capacity, char *err, size_t errlen) {
    if (runtime == NULL || out == NULL || capacity == 0) {
        set_error(err, errlen, "runtime or output is NULL");
        return FOCAL_OV_EINVAL;
    }
    char *value = NULL;
    const ov_status_e status = ov_core_get_property(runtime->core, "CPU", "OPTIMIZATION_CAPABILITIES", &value);
    if (status != OK || value == NULL) {
        ov_failure(err, errlen, "cannot read the CPU's capabilities", status);
        return FOCAL_OV_ERUNTIME;
    }
    snprintf(out, capacity, "%s", value);
    ov_free(value);
    return 0;
}

void focal_ov_runtime_free(focal_ov_runtime *runtime) {
    if (runtime == NULL) return;
    if (runtime->core) ov_core_free(runtime->core);
    free(runtime->cache_dir);
    free(runtime);
}

/// Compiles the model file at `path` (or imports its compiled blob from the runtime's cache
/// folder) and reads its input size: the input must be 8-bit [1, H, W, 3], fixed (the files
/// focalscripts.onnx_input writes).
static int compile(focal_ov_runtime *runtime, const char *path, int streams, int threads, int bf16,
                   focal_ov_net *net, char *err, size_t errlen) {
    int result = 0;
    ov_output_const_port_t *port = NULL;
    ov_shape_t shape = {0};
    ov_element_type_e type;
    char streams_text[16], threads_text[16];
    snprintf(streams_text, sizeof streams_text, "%d", streams);
    snprintf(threads_text, sizeof threads_text, "%d", streams * threads);
    // ENABLE_MMAP off: OpenVINO writes a cache blob in place (truncate, then write), so another
    // process that maps the blob meanwhile dies of SIGBUS when it reads past the file's end. Read
    // into memory, a blob cut short fails to import, and OpenVINO compiles the model instead.
    ov_property_t properties[7] = {
        {ov_property_key_num_streams, streams_text},
        {ov_property_key_inference_num_threads, threads_text},
        {ov_property_key_hint_enable_cpu_pinning, "NO"},
        {ov_property_key_hint_inference_precision, bf16 ? "bf16" : "f32"},
        {ov_property_key_hint_performance_mode, "THROUGHPUT"},
        {"ENABLE_MMAP", "NO"},
        {ov_property_key_cache_dir, runtime->cache_dir},
    };
    const size_t count = runtime->cache_dir ? 7 : 6;
    OV_CHECK(ov_core_compile_model_from_file_props(runtime->core, path, "CPU", count, properties, &net->compiled),
             "cannot compile the model");
    OV_CHECK(ov_compiled_model_input(net->compiled, &port), "the model has no single input");
    OV_CHECK(ov_port_get_element_type(port, &type), "cannot read the input's type");
    OV_CHECK(ov_const_port_get_shape(port, &shape), "cannot read the input's shape");
    if (type != U8 || shape.rank != 4 || shape.dims[0] != 1 || shape.dims[3] != 3 || shape.dims[1] < 32 ||
        shape.dims[1] > 8192 || shape.dims[2] < 32 || shape.dims[2] > 8192 || shape.dims[1] % 32 ||
        shape.dims[2] % 32) {
        set_error(err, errlen, "%s: the input is not 8-bit [1, H, W, 3] with H and W multiples of 32 (up to 8192)",
                  path);
        result = FOCAL_OV_EMODEL;
        goto done;
    }
    net->height = (int)shape.dims[1];
    net->width = (int)shape.dims[2];
done:
    if (shape.dims) ov_shape_free(&shape);
    if (port) ov_output_const_port_free(port);
    return result;
}

static int check_compile_args(const focal_ov_runtime *runtime, const char *path, int streams, int threads, char *err,
                              size_t errlen) {
    if (runtime == NULL || path == NULL) {
        set_error(err, errlen, "runtime or model path is NULL");
        return FOCAL_OV_EINVAL;
    }
    if (streams < 1 || streams > 256 || threads < 1 || threads > 256) {
        set_error(err, errlen, "streams and threads per stream must be between 1 and 256");
        return FOCAL_OV_EINVAL;
    }
    return 0;
}

focal_ov_net *focal_ov_yunet_compile(focal_ov_runtime *runtime, const char *onnx_path, int streams,
                                     int threads_per_stream, int bf16, char *err, size_t errlen) {
    if (check_compile_args(runtime, onnx_path, streams, threads_per_stream, err, errlen) != 0) return NULL;
    focal_ov_net *net = calloc(1, sizeof *net);
    if (net == NULL) {
        set_error(err, errlen, "out of memory");
        return NULL;
    }
    net->kind = KIND_YUNET;
    if (compile(runtime, onnx_path, streams, threads_per_stream, bf16, net, err, errlen) != 0) {
        focal_ov_net_free(net);
        return NULL;
    }
    return net;
}

focal_ov_net *focal_ov_yolo_compile(focal_ov_runtime *runtime, const char *onnx_path, const focal_ov_yolo_head *heads,
                                    int head_count, int classes, int streams, int threads_per_stream, int bf16,
                                    char *err, size_t errlen) {
    if (check_compile_args(runtime, onnx_path, streams, threads_per_stream, err, errlen) != 0) return NULL;
    if (heads == NULL || head_count < 1 || head_count > 4 || classes < 1 || classes > 1000) {
        set_error(err, errlen, "between 1 and 4 heads and between 1 and 1000 classes");
        return NULL;
    }
    for (int h = 0; h < head_count; ++h) {
        const focal_ov_yolo_head *head = &heads[h];
        if (head->anchor_count < 1 || head->anchor_count > 9 || !isfinite(head->scale_xy) || head->scale_xy < 1 ||
            head->scale_xy > 4) {
            set_error(err, errlen, "head %d: between 1 and 9 anchors and scale_x_y between 1 and 4", h);
            return NULL;
        }
        for (int a = 0; a < head->anchor_count; ++a)
            if (!(head->anchor_w[a] > 0 && head->anchor_w[a] < 4096 && head->anchor_h[a] > 0 &&
                  head->anchor_h[a] < 4096)) {
                set_error(err, errlen, "head %d: anchor %d out of range", h, a);
                return NULL;
            }
    }
    focal_ov_net *net = calloc(1, sizeof *net);
    if (net == NULL) {
        set_error(err, errlen, "out of memory");
        return NULL;
    }
    net->kind = KIND_YOLO;
    net->head_count = head_count;
    net->classes = classes;
    memcpy(net->heads, heads, sizeof *heads * (size_t)head_count);
    if (compile(runtime, onnx_path, streams, threads_per_stream, bf16, net, err, errlen) != 0) {
        focal_ov_net_free(net);
        return NULL;
    }
    if (net->width != net->height) {
        set_error(err, errlen, "%s: the input is %dx%d, not square", onnx_path, net->width, net->height);
        focal_ov_net_free(net);
        return NULL;
    }
    return net;
}

void focal_ov_net_free(focal_ov_net *net) {
    if (net == NULL) return;
    if (net->compiled) ov_compiled_model_free(net->compiled);
    free(net);
}

focal_ov_session *focal_ov_session_create(focal_ov_net *net, char *err, size_t errlen) {
    if (net == NULL) {
        set_error(err, errlen, "net is NULL");
        return NULL;
    }
    focal_ov_session *session = calloc(1, sizeof *session);
    if (session == NULL) {
        set_error(err, errlen, "out of memory");
        return NULL;
    }
    session->net = net;
    ov_status_e status = ov_compiled_model_create_infer_request(net->compiled, &session->request);
    if (status != OK) {
        ov_failure(err, errlen, "cannot create an inference request", status);
        free(session);
        return NULL;
    }
    return session;
}

void focal_ov_session_free(focal_ov_session *session) {
    if (session == NULL) return;
    if (session->request) ov_infer_request_free(session->request);
    free(session->input);
    free(session->found.items);
    free(session);
}

/// Makes room for a `width` x `height` network input in the session.
static int reserve_input(focal_ov_session *session, int width, int height, char *err, size_t errlen) {
    const size_t needed = (size_t)width * (size_t)height * 3;
    if (needed <= session->input_capacity) return 0;
    unsigned char *grown = realloc(session->input, needed);
    if (grown == NULL) {
        set_error(err, errlen, "out of memory for a %dx%d network input", width, height);
        return FOCAL_OV_ENOMEM;
    }
    session->input = grown;
    session->input_capacity = needed;
    return 0;
}

/// Runs the session's request on its `width` x `height` input buffer.
static int infer(focal_ov_session *session, int width, int height, char *err, size_t errlen) {
    int result = 0;
    ov_tensor_t *tensor = NULL;
    ov_shape_t shape = {0};
    const int64_t dims[4] = {1, height, width, 3};
    OV_CHECK(ov_shape_create(4, dims, &shape), "cannot make the input shape");
    OV_CHECK(ov_tensor_create_from_host_ptr(U8, shape, session->input, &tensor), "cannot wrap the input");
    OV_CHECK(ov_infer_request_set_input_tensor_by_index(session->request, 0, tensor), "cannot set the input");
    OV_CHECK(ov_infer_request_infer(session->request), "inference failed");
done:
    if (tensor) ov_tensor_free(tensor);
    if (shape.dims) ov_shape_free(&shape);
    return result;
}

/// The float data of the output named `name`, with its element count.
static int output(focal_ov_session *session, const char *name, ov_tensor_t **tensor, const float **data,
                  size_t *count, char *err, size_t errlen) {
    int result = 0;
    void *raw = NULL;
    ov_element_type_e type;
    OV_CHECK(ov_infer_request_get_tensor(session->request, name, tensor), "the model lacks an output");
    OV_CHECK(ov_tensor_get_element_type(*tensor, &type), "cannot read an output's type");
    if (type != F32) {
        set_error(err, errlen, "output %s is not 32-bit float", name);
        return FOCAL_OV_EMODEL;
    }
    OV_CHECK(ov_tensor_get_size(*tensor, count), "cannot read an output's size");
    OV_CHECK(ov_tensor_data(*tensor, &raw), "cannot read an output");
    *data = raw;
done:
    return result;
}

static int push(candidates *list, focal_ov_box box) {
    if (list->count == list->capacity) {
        const size_t grown = list->capacity ? list->capacity * 2 : 256;
        if (grown > (1u << 22)) return FOCAL_OV_ENOMEM; /* 4M candidates: something is wrong */
        focal_ov_box *items = realloc(list->items, grown * sizeof *items);
        if (items == NULL) return FOCAL_OV_ENOMEM;
        list->items = items;
        list->capacity = grown;
    }
    list->items[list->count++] = box;
    return 0;
}

static float clamp01(float v) { return v < 0 ? 0 : v > 1 ? 1
                                                         : v; }
static float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

/// Suppresses `list` (one group) in place by NMS at `iou`, clips survivors to the image, drops
/// those clipped to nothing and appends them to `out` from `*written` on. Returns 0 or a code.
static int suppress_into(candidates *list, float threshold, float iou, int width, int height, focal_ov_box *out,
                         int capacity, int *written, char *err, size_t errlen) {
    if (list->count == 0) return 0;
    if (list->count > INT32_MAX / 4) return FOCAL_OV_ENOMEM;
    const int n = (int)list->count;
    float *boxes = malloc(sizeof(float) * 4 * list->count), *scores = malloc(sizeof(float) * list->count);
    int *keep = malloc(sizeof(int) * list->count);
    int result = 0;
    if (boxes == NULL || scores == NULL || keep == NULL) {
        result = FOCAL_OV_ENOMEM;
        set_error(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; ++i) {
        const focal_ov_box *b = &list->items[i];
        boxes[4 * i] = b->x, boxes[4 * i + 1] = b->y, boxes[4 * i + 2] = b->width, boxes[4 * i + 3] = b->height;
        scores[i] = b->score;
    }
    const int kept = focal_nms(boxes, scores, n, threshold, iou, keep, n, err, errlen);
    if (kept < 0) {
        result = FOCAL_OV_EINVAL;
        goto done;
    }
    for (int k = 0; k < kept && *written < capacity; ++k) {
        focal_ov_box b = list->items[keep[k]];
        const float x0 = fmaxf(b.x, 0), y0 = fmaxf(b.y, 0);
        const float x1 = fminf(b.x + b.width, (float)width), y1 = fminf(b.y + b.height, (float)height);
        if (!(x1 > x0 && y1 > y0)) continue;
        b.x = x0, b.y = y0, b.width = x1 - x0, b.height = y1 - y0;
        out[(*written)++] = b;
    }
done:
    free(boxes);
    free(scores);
    free(keep);
    return result;
}

static int by_score(const void *a, const void *b) {
    const float sa = ((const focal_ov_box *)a)->score, sb = ((const focal_ov_box *)b)->score;
    return (sa < sb) - (sa > sb);
}

static int check_image(const unsigned char *rgb, size_t length, int width, int height, int stride, char *err,
                       size_t errlen) {
    if (rgb == NULL || width <= 0 || height <= 0 || width > (1 << 20) || height > (1 << 20) ||
        (long long)stride < 3LL * width) {
        set_error(err, errlen, "image buffer is NULL or its geometry is out of range");
        return FOCAL_OV_EINVAL;
    }
    const unsigned long long needed =
        (unsigned long long)stride * (unsigned long long)(height - 1) + 3ULL * (unsigned long long)width;
    if (needed > (unsigned long long)length) {
        set_error(err, errlen, "image buffer is shorter than its geometry");
        return FOCAL_OV_EINVAL;
    }
    return 0;
}

static int check_session(const focal_ov_session *session, enum net_kind kind, const focal_ov_box *out, int capacity,
                         char *err, size_t errlen) {
    if (session == NULL || session->net->kind != kind) {
        set_error(err, errlen, kind == KIND_YUNET ? "session is not of a YuNet net" : "session is not of a YOLO net");
        return FOCAL_OV_EINVAL;
    }
    if (capacity < 0 || (capacity > 0 && out == NULL)) {
        set_error(err, errlen, "output array is NULL or its capacity negative");
        return FOCAL_OV_EINVAL;
    }
    return 0;
}

int focal_ov_yunet_detect(focal_ov_session *session, const unsigned char *rgb, size_t length, int width, int height,
                          int stride, float score_threshold, float nms_iou, focal_ov_box *out, int capacity,
                          char *err, size_t errlen) {
    int result = check_session(session, KIND_YUNET, out, capacity, err, errlen);
    if (result == 0) result = check_image(rgb, length, width, height, stride, err, errlen);
    if (result != 0) return result;
    if (!(score_threshold >= 0 && score_threshold <= 1 && nms_iou >= 0 && nms_iou <= 1)) {
        set_error(err, errlen, "score threshold and NMS IoU must be between 0 and 1");
        return FOCAL_OV_EINVAL;
    }
    // The image is placed at the top left of the net's fixed input, padded with black at the
    // bottom and right, so that detections stay in the caller's pixel frame.
    const int padded_w = session->net->width, padded_h = session->net->height;
    if (width > padded_w || height > padded_h) {
        set_error(err, errlen, "a %dx%d image does not fit this net's %dx%d input", width, height, padded_w, padded_h);
        return FOCAL_OV_EINVAL;
    }
    if ((result = reserve_input(session, padded_w, padded_h, err, errlen)) != 0) return result;
    const size_t input_length = (size_t)padded_w * (size_t)padded_h * 3;
    if (focal_resize_rgb_into(rgb, length, width, height, stride, session->input, input_length, padded_w, padded_h,
                              padded_w * 3, 0, 0, width, height, 0, err, errlen) < 0)
        return FOCAL_OV_EINVAL;
    if ((result = infer(session, padded_w, padded_h, err, errlen)) != 0) return result;

    ov_tensor_t *tensors[9] = {0};
    candidates *found = &session->found;
    found->count = 0;
    for (int level = 0; level < 3 && result == 0; ++level) {
        const int stride_px = kYunetStrides[level], cols = padded_w / stride_px;
        const size_t anchors = (size_t)cols * (size_t)(padded_h / stride_px);
        const float *cls = NULL, *obj = NULL, *bbox = NULL;
        size_t n_cls = 0, n_obj = 0, n_bbox = 0;
        if ((result = output(session, kYunetOutputs[level], &tensors[level], &cls, &n_cls, err, errlen)) != 0 ||
            (result = output(session, kYunetOutputs[3 + level], &tensors[3 + level], &obj, &n_obj, err, errlen)) !=
                0 ||
            (result = output(session, kYunetOutputs[6 + level], &tensors[6 + level], &bbox, &n_bbox, err, errlen)) !=
                0)
            break;
        if (n_cls != anchors || n_obj != anchors || n_bbox != anchors * 4) {
            set_error(err, errlen, "unexpected YuNet output shape");
            result = FOCAL_OV_EMODEL;
            break;
        }
        for (size_t i = 0; i < anchors; ++i) {
            const float score = sqrtf(clamp01(cls[i]) * clamp01(obj[i]));
            if (score < score_threshold) continue;
            const float *d = bbox + 4 * i;
            const float cx = ((float)(i % (size_t)cols) + d[0]) * (float)stride_px;
            const float cy = ((float)(i / (size_t)cols) + d[1]) * (float)stride_px;
            const float w = expf(d[2]) * (float)stride_px, h = expf(d[3]) * (float)stride_px;
            if (!isfinite(cx) || !isfinite(cy) || !isfinite(w) || !isfinite(h)) continue;
            if (push(found, (focal_ov_box){cx - w / 2, cy - h / 2, w, h, score, 0}) != 0) {
                set_error(err, errlen, "too many face candidates");
                result = FOCAL_OV_ENOMEM;
                break;
            }
        }
    }
    for (int i = 0; i < 9; ++i)
        if (tensors[i]) ov_tensor_free(tensors[i]);
    if (result != 0) return result;
    int written = 0;
    result = suppress_into(found, score_threshold, nms_iou, width, height, out, capacity, &written, err, errlen);
    if (result != 0) return result;
    qsort(out, (size_t)written, sizeof *out, by_score);
    return written;
}

/// One YOLO pass at `input_size` over the image inside a border of `pad`: candidates per group.
static int yolo_pass(focal_ov_session *session, const unsigned char *rgb, size_t length, int width, int height,
                     int stride, int input_size, double pad, const int *classes, const int *groups, int class_count,
                     int group_count, candidates *per_group, char *err, size_t errlen) {
    const focal_ov_net *net = session->net;
    // The framed image: the photo inside a grey border of `pad` times its size on every side,
    // stretched to the square input (Darknet trains this model without letterboxing).
    const long bx = lround(width * pad), by = lround(height * pad);
    const double framed_w = (double)width + 2.0 * (double)bx, framed_h = (double)height + 2.0 * (double)by;
    const double sx = input_size / framed_w, sy = input_size / framed_h;
    const int rx = (int)lround((double)bx * sx), ry = (int)lround((double)by * sy);
    const int rw = input_size - 2 * rx, rh = input_size - 2 * ry;
    if (rw < 1 || rh < 1) {
        set_error(err, errlen, "the border leaves no room for the image");
        return FOCAL_OV_EINVAL;
    }
    int result = reserve_input(session, input_size, input_size, err, errlen);
    if (result != 0) return result;
    const size_t input_length = (size_t)input_size * (size_t)input_size * 3;
    if (focal_resize_rgb_into(rgb, length, width, height, stride, session->input, input_length, input_size,
                              input_size, input_size * 3, rx, ry, rw, rh, kGrey, err, errlen) < 0)
        return FOCAL_OV_EINVAL;
    if ((result = infer(session, input_size, input_size, err, errlen)) != 0) return result;

    // One slot per group (yolo_detect checks group_count against FOCAL_OV_MAX_GROUPS).
    float sums[FOCAL_OV_MAX_GROUPS], best[FOCAL_OV_MAX_GROUPS];
    int labels[FOCAL_OV_MAX_GROUPS];
    for (int h = 0; h < net->head_count && result == 0; ++h) {
        const focal_ov_yolo_head *head = &net->heads[h];
        char name[16];
        snprintf(name, sizeof name, "yolo_%d", h);
        ov_tensor_t *tensor = NULL;
        const float *data = NULL;
        size_t count = 0;
        if ((result = output(session, name, &tensor, &data, &count, err, errlen)) != 0) break;
        ov_shape_t shape = {0};
        const size_t depth = (size_t)head->anchor_count * (size_t)(5 + net->classes);
        if (ov_tensor_get_shape(tensor, &shape) != OK || shape.rank != 4 || shape.dims[1] != (int64_t)depth ||
            shape.dims[2] < 1 || shape.dims[3] < 1 || count != depth * (size_t)(shape.dims[2] * shape.dims[3])) {
            set_error(err, errlen, "unexpected shape of YOLO output %s", name);
            result = FOCAL_OV_EMODEL;
        }
        const int gh = result == 0 ? (int)shape.dims[2] : 0, gw = result == 0 ? (int)shape.dims[3] : 0;
        if (shape.dims) ov_shape_free(&shape);
        const size_t plane = (size_t)gh * (size_t)gw;
        const float shift = (head->scale_xy - 1) / 2;
        for (int a = 0; a < head->anchor_count && result == 0; ++a) {
            const float *channel = data + (size_t)a * (size_t)(5 + net->classes) * plane;
            for (size_t cell = 0; cell < plane && result == 0; ++cell) {
                const float objectness = sigmoid(channel[4 * plane + cell]);
                if (!(objectness > 0.01f)) continue; /* no class product can reach Darknet's floor */
                for (int g = 0; g < group_count; ++g) sums[g] = 0, best[g] = 0, labels[g] = 0;
                for (int k = 0; k < class_count; ++k) {
                    const float score = objectness * sigmoid(channel[(size_t)(5 + classes[k]) * plane + cell]);
                    if (!(score > 0.01f)) continue; /* Darknet's (and OpenCV's) floor */
                    sums[groups[k]] += score;
                    if (score > best[groups[k]]) best[groups[k]] = score, labels[groups[k]] = classes[k];
                }
                const float col = (float)(cell % (size_t)gw), row = (float)(cell / (size_t)gw);
                const float cx = (col + sigmoid(channel[cell]) * head->scale_xy - shift) / (float)gw;
                const float cy = (row + sigmoid(channel[plane + cell]) * head->scale_xy - shift) / (float)gh;
                const float w = expf(channel[2 * plane + cell]) * head->anchor_w[a] / (float)input_size;
                const float hh = expf(channel[3 * plane + cell]) * head->anchor_h[a] / (float)input_size;
                // Normalised coordinates of the framed image, back to the caller's pixels.
                const float pw = w * (float)framed_w, ph = hh * (float)framed_h;
                const float px = cx * (float)framed_w - (float)bx, py = cy * (float)framed_h - (float)by;
                if (!isfinite(pw) || !isfinite(ph)) continue;
                for (int g = 0; g < group_count; ++g) {
                    if (!(sums[g] > 0)) continue;
                    const focal_ov_box box = {px - pw / 2, py - ph / 2, pw, ph, fminf(1, sums[g]), labels[g]};
                    if (push(&per_group[g], box) != 0) {
                        set_error(err, errlen, "too many object candidates");
                        result = FOCAL_OV_ENOMEM;
                        break;
                    }
                }
            }
        }
        ov_tensor_free(tensor);
    }
    return result;
}

int focal_ov_yolo_detect(focal_ov_session *session, const unsigned char *rgb, size_t length, int width, int height,
                         int stride, int input_size, const double *pads, int pad_count, const int *classes,
                         const int *groups, int class_count, const float *group_thresholds, int group_count,
                         float nms_iou, focal_ov_box *out, int capacity, char *err, size_t errlen) {
    int result = check_session(session, KIND_YOLO, out, capacity, err, errlen);
    if (result == 0) result = check_image(rgb, length, width, height, stride, err, errlen);
    if (result != 0) return result;
    const focal_ov_net *net = session->net;
    int valid = input_size == net->width && pads != NULL && pad_count >= 1 &&
                pad_count <= 4 && class_count >= 0 && class_count <= net->classes && group_count >= 1 &&
                group_count <= FOCAL_OV_MAX_GROUPS && group_thresholds != NULL && (class_count == 0 || (classes && groups)) &&
                nms_iou >= 0 && nms_iou <= 1;
    for (int p = 0; valid && p < pad_count; ++p) valid = pads[p] >= 0 && pads[p] <= 1;
    for (int k = 0; valid && k < class_count; ++k)
        valid = classes[k] >= 0 && classes[k] < net->classes && groups[k] >= 0 && groups[k] < group_count;
    for (int g = 0; valid && g < group_count; ++g) valid = group_thresholds[g] >= 0 && group_thresholds[g] <= 1;
    if (!valid) {
        set_error(err, errlen, "YOLO arguments out of range (input size %d for a %d net, passes, classes, groups or thresholds)",
                  input_size, net->width);
        return FOCAL_OV_EINVAL;
    }
    if (class_count == 0) return 0;
    candidates per_group[FOCAL_OV_MAX_GROUPS];
    memset(per_group, 0, sizeof per_group);
    for (int p = 0; p < pad_count && result == 0; ++p)
        result = yolo_pass(session, rgb, length, width, height, stride, input_size, pads[p], classes, groups,
                           class_count, group_count, per_group, err, errlen);
    int written = 0;
    for (int g = 0; g < group_count && result == 0; ++g) {
        candidates *list = &per_group[g];
        size_t kept = 0;
        for (size_t i = 0; i < list->count; ++i)
            if (list->items[i].score >= group_thresholds[g]) list->items[kept++] = list->items[i];
        list->count = kept;
        result = suppress_into(list, group_thresholds[g], nms_iou, width, height, out, capacity, &written, err,
                               errlen);
    }
    for (int g = 0; g < group_count; ++g) free(per_group[g].items);
    if (result != 0) return result;
    qsort(out, (size_t)written, sizeof *out, by_score);
    return written;
}
