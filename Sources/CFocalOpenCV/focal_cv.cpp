// focal_cv.cpp: the C++17 side of focal_cv.h. Wraps OpenCV 4.6's DNN module for two detectors
// (YuNet faces, YOLOv4-tiny COCO objects) and computes a spectral-residual saliency map. Every
// exported function turns C++ exceptions into an error string; nothing here keeps global state.
#include "focal_cv.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

enum class NetKind { yunet, yolo };

}  // namespace

struct focal_cv_net {
    cv::dnn::Net net;
    NetKind kind;
};

namespace {

/// Copies `message` into `err` (when given), truncated to `errlen` and always NUL-terminated.
/// Trailing newlines (cv::Exception::what() ends with one) are dropped.
void set_error(char *err, size_t errlen, const char *message) {
    if (err == nullptr || errlen == 0) return;
    size_t length = std::strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == ' ')) --length;
    const size_t n = std::min(length, errlen - 1);
    std::memcpy(err, message, n);
    err[n] = '\0';
}

/// Runs `body`, converting any exception into `err` and `failure`.
template <typename Result, typename Body>
Result guarded(char *err, size_t errlen, Result failure, Body body) {
    try {
        return body();
    } catch (const std::exception &e) {  // cv::Exception derives from std::exception
        set_error(err, errlen, e.what());
    } catch (...) {
        set_error(err, errlen, "unknown C++ exception");
    }
    return failure;
}

void require(bool condition, const char *message) {
    if (!condition) throw std::invalid_argument(message);
}

/// Wraps the caller's RGB buffer without copying; checks the geometry against its length first.
cv::Mat wrap_rgb(const unsigned char *rgb, size_t length, int width, int height, int stride) {
    require(rgb != nullptr, "image buffer is NULL");
    require(width > 0 && height > 0, "image width and height must be positive");
    require(width <= 1 << 20 && height <= 1 << 20, "image width or height is beyond 1048576");
    require(static_cast<long long>(stride) >= 3LL * width, "row stride is smaller than width * 3");
    const unsigned long long needed =
        static_cast<unsigned long long>(stride) * static_cast<unsigned long long>(height - 1) +
        3ULL * static_cast<unsigned long long>(width);
    require(needed <= static_cast<unsigned long long>(length), "image buffer is shorter than its geometry");
    return cv::Mat(height, width, CV_8UC3, const_cast<unsigned char *>(rgb),
                   static_cast<size_t>(stride));
}

void check_net(const focal_cv_net *net, NetKind kind) {
    require(net != nullptr, "network is NULL");
    require(net->kind == kind, kind == NetKind::yunet ? "network is not a YuNet model"
                                                      : "network is not a YOLO model");
}

void check_output(const focal_cv_box *out, int capacity) {
    require(capacity >= 0, "capacity is negative");
    require(capacity == 0 || out != nullptr, "output array is NULL");
}

/// Area interpolation when shrinking (no aliasing), bilinear when enlarging.
int interpolation_for(double scale) { return scale < 1.0 ? cv::INTER_AREA : cv::INTER_LINEAR; }

struct Detection {
    cv::Rect2d box;
    float score;
    int label;
};

/// Clips each detection to the image, drops boxes clipped to nothing, sorts best first and
/// writes at most `capacity`. Returns the number written.
int emit(const std::vector<Detection> &found, int width, int height, focal_cv_box *out, int capacity) {
    const cv::Rect2d image(0, 0, width, height);
    std::vector<Detection> kept;
    kept.reserve(found.size());
    for (Detection d : found) {
        d.box &= image;
        if (d.box.width > 0 && d.box.height > 0) kept.push_back(d);
    }
    std::sort(kept.begin(), kept.end(),
              [](const Detection &a, const Detection &b) { return a.score > b.score; });
    const int count = std::min(static_cast<int>(kept.size()), capacity);
    for (int i = 0; i < count; ++i) {
        const Detection &d = kept[i];
        out[i] = focal_cv_box{static_cast<float>(d.box.x), static_cast<float>(d.box.y),
                              static_cast<float>(d.box.width), static_cast<float>(d.box.height),
                              d.score, d.label};
    }
    return count;
}

/// The candidates that survive cv::dnn::NMSBoxes, in NMS order.
std::vector<Detection> suppress(const std::vector<Detection> &candidates, float score_threshold,
                                float nms_iou) {
    std::vector<cv::Rect2d> boxes;
    std::vector<float> scores;
    boxes.reserve(candidates.size());
    scores.reserve(candidates.size());
    for (const Detection &d : candidates) {
        boxes.push_back(d.box);
        scores.push_back(d.score);
    }
    std::vector<int> keep;
    cv::dnn::NMSBoxes(boxes, scores, score_threshold, nms_iou, keep);
    std::vector<Detection> result;
    result.reserve(keep.size());
    for (int i : keep) result.push_back(candidates[static_cast<size_t>(i)]);
    return result;
}

float clamp01(float v) { return std::min(1.0f, std::max(0.0f, v)); }

// YuNet 2023mar: three heads at strides 8, 16 and 32, one anchor per cell. cls/obj are
// [1, N, 1] probabilities, bbox is [1, N, 4] (centre offset in cells, log size in cells).
// kps (five landmarks) exists too but is not needed for cropping, so it is not computed.
constexpr int kYunetStrides[] = {8, 16, 32};

int yunet_detect(focal_cv_net &net, const cv::Mat &rgb, float score_threshold, float nms_iou,
                 focal_cv_box *out, int capacity) {
    // The network wants BGR 0-255 with no normalisation, sized to a multiple of 32; pad the
    // bottom and right with black so detections stay in the original pixel frame.
    const int padded_w = (rgb.cols + 31) / 32 * 32;
    const int padded_h = (rgb.rows + 31) / 32 * 32;
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    cv::copyMakeBorder(bgr, bgr, 0, padded_h - rgb.rows, 0, padded_w - rgb.cols,
                       cv::BORDER_CONSTANT, cv::Scalar::all(0));
    net.net.setInput(cv::dnn::blobFromImage(bgr, 1.0, cv::Size(), cv::Scalar(), false, false));

    static const std::vector<cv::String> names = {"cls_8",  "cls_16",  "cls_32",
                                                  "obj_8",  "obj_16",  "obj_32",
                                                  "bbox_8", "bbox_16", "bbox_32"};
    std::vector<cv::Mat> outputs;
    net.net.forward(outputs, names);

    std::vector<Detection> candidates;
    for (int level = 0; level < 3; ++level) {
        const int stride = kYunetStrides[level];
        const int cols = padded_w / stride;
        const int anchors = cols * (padded_h / stride);
        const cv::Mat &cls = outputs[level];
        const cv::Mat &obj = outputs[3 + level];
        const cv::Mat &bbox = outputs[6 + level];
        require(static_cast<int>(cls.total()) == anchors &&
                    static_cast<int>(obj.total()) == anchors &&
                    static_cast<int>(bbox.total()) == anchors * 4,
                "unexpected YuNet output shape");
        const float *c = cls.ptr<float>();
        const float *o = obj.ptr<float>();
        const float *b = bbox.ptr<float>();
        for (int i = 0; i < anchors; ++i) {
            const float score = std::sqrt(clamp01(c[i]) * clamp01(o[i]));
            if (score < score_threshold) continue;
            const float *d = b + 4 * i;
            const double cx = (i % cols + d[0]) * stride;
            const double cy = (i / cols + d[1]) * stride;
            const double w = std::exp(d[2]) * stride;
            const double h = std::exp(d[3]) * stride;
            candidates.push_back({cv::Rect2d(cx - w / 2, cy - h / 2, w, h), score, 0});
        }
    }
    return emit(suppress(candidates, score_threshold, nms_iou), rgb.cols, rgb.rows, out, capacity);
}

// YOLOv4-tiny through OpenCV's Darknet importer. Each unconnected output is an [N, 5 + C] matrix
// of rows [cx, cy, w, h, objectness, class scores...], coordinates normalised to the network
// input. OpenCV's Region layer already multiplies each class probability by the objectness and
// zeroes products below the [yolo] layer's `thresh` (0.2 by default), so a requested threshold
// below that finds nothing extra.
int yolo_detect(focal_cv_net &net, const cv::Mat &rgb, int input_size, const int *classes,
                const float *thresholds, int class_count, float nms_iou, focal_cv_box *out,
                int capacity) {
    // Plain (aspect-distorting) resize to the square input, as Darknet's own detector does for
    // this model (letter_box=0 in training). It found more objects than letterboxing on the dev
    // photos at the same thresholds. Darknet wants RGB and the buffer already is, so no swap.
    const double scale_x = static_cast<double>(input_size) / rgb.cols;
    const double scale_y = static_cast<double>(input_size) / rgb.rows;
    cv::Mat resized;
    cv::resize(rgb, resized, cv::Size(input_size, input_size), 0, 0,
               interpolation_for(std::min(scale_x, scale_y)));
    net.net.setInput(
        cv::dnn::blobFromImage(resized, 1.0 / 255.0, cv::Size(), cv::Scalar(), false, false));
    std::vector<cv::Mat> outputs;
    net.net.forward(outputs, net.net.getUnconnectedOutLayersNames());
    require(!outputs.empty(), "YOLO network has no outputs");
    for (const cv::Mat &m : outputs)
        require(m.dims == 2 && m.cols > 5 && m.type() == CV_32F, "unexpected YOLO output shape");
    for (int k = 0; k < class_count; ++k) {
        require(classes[k] >= 0 && classes[k] < outputs.front().cols - 5, "class id out of range");
        require(std::isfinite(thresholds[k]) && thresholds[k] >= 0 && thresholds[k] <= 1,
                "class threshold must be between 0 and 1");
    }

    // One candidate list per requested class, so NMS never lets a dog suppress a person.
    std::vector<std::vector<Detection>> per_class(static_cast<size_t>(class_count));
    for (const cv::Mat &m : outputs) {
        for (int r = 0; r < m.rows; ++r) {
            const float *row = m.ptr<float>(r);
            for (int k = 0; k < class_count; ++k) {
                const float score = row[5 + classes[k]];
                if (score < thresholds[k] || score <= 0) continue;
                // Normalised coordinates map straight back to the caller's pixels.
                const double w = row[2] * rgb.cols;
                const double h = row[3] * rgb.rows;
                const double cx = row[0] * rgb.cols;
                const double cy = row[1] * rgb.rows;
                per_class[static_cast<size_t>(k)].push_back(
                    {cv::Rect2d(cx - w / 2, cy - h / 2, w, h), score, classes[k]});
            }
        }
    }
    std::vector<Detection> kept;
    for (int k = 0; k < class_count; ++k) {
        const std::vector<Detection> survivors =
            suppress(per_class[static_cast<size_t>(k)], thresholds[k], nms_iou);
        kept.insert(kept.end(), survivors.begin(), survivors.end());
    }
    return emit(kept, rgb.cols, rgb.rows, out, capacity);
}

// Spectral residual saliency (Hou & Zhang, CVPR 2007) on a 64-pixel-wide grey thumbnail.
constexpr int kSaliencyWidth = 64;
constexpr double kSaliencySigma = 3.0;  // Gaussian smoothing of the map, in thumbnail pixels

void saliency(const cv::Mat &rgb, int map_width, int map_height, float *out_map) {
    const int thumb_h =
        std::max(1, static_cast<int>(std::lround(static_cast<double>(rgb.rows) * kSaliencyWidth /
                                                 rgb.cols)));
    cv::Mat grey, thumb;
    cv::cvtColor(rgb, grey, cv::COLOR_RGB2GRAY);
    cv::resize(grey, thumb, cv::Size(kSaliencyWidth, thumb_h), 0, 0,
               interpolation_for(static_cast<double>(kSaliencyWidth) / rgb.cols));
    thumb.convertTo(thumb, CV_32F, 1.0 / 255.0);

    // A flat image has no salient region. (The residual of an empty spectrum would otherwise be
    // a spike at the DC term, i.e. a blob in the top-left corner.)
    cv::Scalar mean, deviation;
    cv::meanStdDev(thumb, mean, deviation);
    if (deviation[0] < 1e-4) {
        std::fill_n(out_map, static_cast<size_t>(map_width) * static_cast<size_t>(map_height),
                    0.0f);
        return;
    }

    cv::Mat spectrum;
    cv::dft(thumb, spectrum, cv::DFT_COMPLEX_OUTPUT);
    cv::Mat planes[2], amplitude, phase;
    cv::split(spectrum, planes);
    cv::cartToPolar(planes[0], planes[1], amplitude, phase);

    // Spectral residual: the log amplitude minus its local (3x3) average.
    cv::Mat log_amplitude, averaged;
    cv::log(amplitude + 1e-9f, log_amplitude);
    cv::blur(log_amplitude, averaged, cv::Size(3, 3));
    cv::Mat residual_amplitude;
    cv::exp(log_amplitude - averaged, residual_amplitude);

    // Back to the image domain with the original phase; saliency is the squared magnitude.
    cv::polarToCart(residual_amplitude, phase, planes[0], planes[1]);
    cv::merge(planes, 2, spectrum);
    cv::Mat back;
    cv::idft(spectrum, back, cv::DFT_COMPLEX_OUTPUT | cv::DFT_SCALE);
    cv::split(back, planes);
    cv::Mat map;
    cv::magnitude(planes[0], planes[1], map);
    map = map.mul(map);
    cv::GaussianBlur(map, map, cv::Size(), kSaliencySigma);
    cv::normalize(map, map, 0.0, 1.0, cv::NORM_MINMAX);

    // Resize straight into the caller's buffer (row-major floats, no padding).
    cv::Mat dst(map_height, map_width, CV_32F, out_map);
    // Bilinear and area interpolation never overshoot, so the values stay in [0, 1].
    cv::resize(map, dst, dst.size(), 0, 0,
               interpolation_for(static_cast<double>(map_width) / kSaliencyWidth));
}

}  // namespace

extern "C" {

void focal_cv_set_threads(int threads) {
    guarded<int>(nullptr, 0, 0, [&] {
        cv::setNumThreads(threads > 0 ? threads : -1);  // -1 restores OpenCV's default
        return 0;
    });
}

focal_cv_net *focal_cv_yunet_load(const char *onnx_path, char *err, size_t errlen) {
    return guarded<focal_cv_net *>(err, errlen, nullptr, [&] {
        require(onnx_path != nullptr, "model path is NULL");
        cv::dnn::Net net = cv::dnn::readNetFromONNX(onnx_path);
        require(!net.empty(), "YuNet model loaded empty");
        return new focal_cv_net{net, NetKind::yunet};
    });
}

focal_cv_net *focal_cv_yolo_load(const char *cfg_path, const char *weights_path, char *err,
                                 size_t errlen) {
    return guarded<focal_cv_net *>(err, errlen, nullptr, [&] {
        require(cfg_path != nullptr && weights_path != nullptr, "model path is NULL");
        cv::dnn::Net net = cv::dnn::readNetFromDarknet(cfg_path, weights_path);
        require(!net.empty(), "YOLO model loaded empty");
        return new focal_cv_net{net, NetKind::yolo};
    });
}

void focal_cv_net_free(focal_cv_net *net) { delete net; }

int focal_cv_yunet_detect(focal_cv_net *net, const unsigned char *rgb, size_t length, int width, int height,
                          int stride, float score_threshold, float nms_iou, focal_cv_box *out,
                          int capacity, char *err, size_t errlen) {
    return guarded<int>(err, errlen, -1, [&] {
        check_net(net, NetKind::yunet);
        check_output(out, capacity);
        require(std::isfinite(score_threshold) && score_threshold >= 0 && score_threshold <= 1 &&
                    std::isfinite(nms_iou) && nms_iou >= 0 && nms_iou <= 1,
                "score threshold and NMS IoU must be between 0 and 1");
        return yunet_detect(*net, wrap_rgb(rgb, length, width, height, stride), score_threshold, nms_iou,
                            out, capacity);
    });
}

int focal_cv_yolo_detect(focal_cv_net *net, const unsigned char *rgb, size_t length, int width, int height,
                         int stride, int input_size, const int *classes, const float *thresholds,
                         int class_count, float nms_iou, focal_cv_box *out, int capacity,
                         char *err, size_t errlen) {
    return guarded<int>(err, errlen, -1, [&] {
        check_net(net, NetKind::yolo);
        check_output(out, capacity);
        require(input_size >= 32 && input_size <= 2048 && input_size % 32 == 0,
                "input size must be a multiple of 32 between 32 and 2048");
        require(class_count >= 0 && class_count <= 1000, "class count must be between 0 and 1000");
        require(std::isfinite(nms_iou) && nms_iou >= 0 && nms_iou <= 1, "NMS IoU must be between 0 and 1");
        require(class_count == 0 || (classes != nullptr && thresholds != nullptr),
                "class or threshold array is NULL");
        if (class_count == 0) return 0;
        return yolo_detect(*net, wrap_rgb(rgb, length, width, height, stride), input_size, classes,
                           thresholds, class_count, nms_iou, out, capacity);
    });
}

int focal_cv_saliency(const unsigned char *rgb, size_t length, int width, int height, int stride,
                      int map_width, int map_height, float *out_map, size_t map_length, char *err,
                      size_t errlen) {
    return guarded<int>(err, errlen, -1, [&] {
        require(map_width > 0 && map_height > 0 && map_width <= 4096 && map_height <= 4096,
                "map width and height must be between 1 and 4096");
        require(out_map != nullptr, "output map is NULL");
        require(static_cast<unsigned long long>(map_width) * static_cast<unsigned long long>(map_height) <=
                    static_cast<unsigned long long>(map_length),
                "output map is shorter than map_width * map_height");
        saliency(wrap_rgb(rgb, length, width, height, stride), map_width, map_height, out_map);
        return 0;
    });
}

}  // extern "C"
