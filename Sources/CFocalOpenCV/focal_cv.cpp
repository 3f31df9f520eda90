// focal_cv.cpp: the C++17 side of focal_cv.h. Wraps OpenCV 4.6's DNN module for two detectors
// (YuNet faces, YOLOv4-tiny COCO objects) and computes a spectral-residual saliency map. Every
// exported function turns C++ exceptions into an error string; nothing here keeps global state.
#include "focal_cv.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>
#include <cmath>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// clang-format off
enum class NetKind { yunet, yolo };
// clang-format on

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

    // clang-format off
    static const std::vector<cv::String> names = {"cls_8",  "cls_16",  "cls_32",
                                                  "obj_8",  "obj_16",  "obj_32",
                                                  "bbox_8", "bbox_16", "bbox_32"};
    // clang-format on
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
// input. OpenCV's Region layer multiplies each class probability by the objectness and zeroes
// products below the [yolo] layer's `thresh`; the loader sets that to 0.01 (Darknet's default is
// 0.2), so that weak classes can be summed: a pet is objectness x (p(cat) + p(dog)).
//
// Classes are combined in groups: a group's score is the sum of its classes' scores and its label
// the class that scored most. NMS runs per group, so a dog never suppresses a person and a cat box
// and a dog box on one animal become one.
int yolo_pass(focal_cv_net &net, const cv::Mat &rgb, int input_size, double pad, const int *classes,
              const int *groups, int class_count, int group_count, std::vector<std::vector<Detection>> &per_group) {
    // The image, optionally inside a grey border of `pad` times its size on every side: a subject
    // that fills the frame is easier to see with room around it (the largest anchor is about
    // 344 x 319 network pixels).
    cv::Mat framed = rgb;
    const int bx = static_cast<int>(std::lround(rgb.cols * pad)), by = static_cast<int>(std::lround(rgb.rows * pad));
    if (bx > 0 || by > 0)
        cv::copyMakeBorder(rgb, framed, by, by, bx, bx, cv::BORDER_CONSTANT, cv::Scalar::all(114));
    // Plain (aspect-distorting) resize to the square input, as Darknet's own detector does for
    // this model (letter_box=0 in training); letterboxing lost subjects on the dev photos.
    // Darknet wants RGB and the buffer already is, so no swap.
    const double scale = std::min(static_cast<double>(input_size) / framed.cols,
                                  static_cast<double>(input_size) / framed.rows);
    cv::Mat resized;
    cv::resize(framed, resized, cv::Size(input_size, input_size), 0, 0, interpolation_for(scale));
    net.net.setInput(cv::dnn::blobFromImage(resized, 1.0 / 255.0, cv::Size(), cv::Scalar(), false, false));
    std::vector<cv::Mat> outputs;
    net.net.forward(outputs, net.net.getUnconnectedOutLayersNames());
    require(!outputs.empty(), "YOLO network has no outputs");
    for (const cv::Mat &m : outputs)
        require(m.dims == 2 && m.cols > 5 && m.type() == CV_32F, "unexpected YOLO output shape");
    for (int k = 0; k < class_count; ++k) {
        require(classes[k] >= 0 && classes[k] < outputs.front().cols - 5, "class id out of range");
        require(groups[k] >= 0 && groups[k] < group_count, "class group out of range");
    }
    std::vector<float> sums(static_cast<size_t>(group_count)), best(static_cast<size_t>(group_count));
    std::vector<int> labels(static_cast<size_t>(group_count));
    for (const cv::Mat &m : outputs) {
        for (int r = 0; r < m.rows; ++r) {
            const float *row = m.ptr<float>(r);
            std::fill(sums.begin(), sums.end(), 0.0f);
            std::fill(best.begin(), best.end(), 0.0f);
            for (int k = 0; k < class_count; ++k) {
                const float score = row[5 + classes[k]];
                const size_t g = static_cast<size_t>(groups[k]);
                if (!(score > 0)) continue;
                sums[g] += score;
                if (score > best[g]) {
                    best[g] = score;
                    labels[g] = classes[k];
                }
            }
            // Normalised coordinates of the framed image, back to the caller's pixels.
            const double w = row[2] * framed.cols, h = row[3] * framed.rows;
            const double cx = row[0] * framed.cols - bx, cy = row[1] * framed.rows - by;
            for (int g = 0; g < group_count; ++g) {
                if (!(sums[static_cast<size_t>(g)] > 0)) continue;
                per_group[static_cast<size_t>(g)].push_back(
                    {cv::Rect2d(cx - w / 2, cy - h / 2, w, h), std::min(1.0f, sums[static_cast<size_t>(g)]),
                     labels[static_cast<size_t>(g)]});
            }
        }
    }
    return 0;
}

int yolo_detect(focal_cv_net &net, const cv::Mat &rgb, int input_size, const double *pads, int pad_count,
                const int *classes, const int *groups, int class_count, const float *group_thresholds,
                int group_count, float nms_iou, focal_cv_box *out, int capacity) {
    std::vector<std::vector<Detection>> per_group(static_cast<size_t>(group_count));
    for (int p = 0; p < pad_count; ++p)
        yolo_pass(net, rgb, input_size, pads[p], classes, groups, class_count, group_count, per_group);
    std::vector<Detection> kept;
    for (int g = 0; g < group_count; ++g) {
        std::vector<Detection> &candidates = per_group[static_cast<size_t>(g)];
        const float threshold = group_thresholds[g];
        candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                        [&](const Detection &d) { return d.score < threshold; }),
                         candidates.end());
        const std::vector<Detection> survivors = suppress(candidates, threshold, nms_iou);
        kept.insert(kept.end(), survivors.begin(), survivors.end());
    }
    return emit(kept, rgb.cols, rgb.rows, out, capacity);
}

/// The Darknet description with `thresh=0.01` in every [yolo] section (see yolo_pass).
std::string lowered_threshold_cfg(const char *path) {
    std::ifstream file(path);
    require(file.good(), "cannot read the YOLO .cfg file");
    std::ostringstream text;
    std::string line;
    while (std::getline(file, line)) {
        std::string trimmed = line;
        trimmed.erase(std::remove_if(trimmed.begin(), trimmed.end(), [](unsigned char c) { return std::isspace(c); }),
                      trimmed.end());
        // A thresh= line of the file itself is dropped in favour of ours.
        if (trimmed.rfind("thresh=", 0) == 0) continue;
        text << line << '\n';
        if (trimmed == "[yolo]") text << "thresh=0.01\n";
    }
    return text.str();
}

std::vector<char> file_bytes(const char *path) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    require(file.good(), "cannot read the YOLO weights file");
    const std::streamoff size = file.tellg();
    require(size > 0 && size < (std::streamoff(1) << 30), "the YOLO weights file is empty or too large");
    std::vector<char> bytes(static_cast<size_t>(size));
    file.seekg(0);
    require(static_cast<bool>(file.read(bytes.data(), size)), "cannot read the YOLO weights file");
    return bytes;
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
        const std::string cfg = lowered_threshold_cfg(cfg_path);
        const std::vector<char> weights = file_bytes(weights_path);
        cv::dnn::Net net = cv::dnn::readNetFromDarknet(cfg.data(), cfg.size(), weights.data(), weights.size());
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
                         int stride, int input_size, const double *pads, int pad_count, const int *classes,
                         const int *groups, int class_count, const float *group_thresholds, int group_count,
                         float nms_iou, focal_cv_box *out, int capacity, char *err, size_t errlen) {
    return guarded<int>(err, errlen, -1, [&] {
        check_net(net, NetKind::yolo);
        check_output(out, capacity);
        require(input_size >= 32 && input_size <= 2048 && input_size % 32 == 0,
                "input size must be a multiple of 32 between 32 and 2048");
        require(pad_count >= 1 && pad_count <= 4 && pads != nullptr, "between 1 and 4 passes");
        for (int p = 0; p < pad_count; ++p)
            require(std::isfinite(pads[p]) && pads[p] >= 0 && pads[p] <= 1, "pad fraction must be between 0 and 1");
        require(class_count >= 0 && class_count <= 1000, "class count must be between 0 and 1000");
        require(group_count >= 1 && group_count <= class_count + 1, "group count out of range");
        require(class_count == 0 || (classes != nullptr && groups != nullptr), "class or group array is NULL");
        require(group_thresholds != nullptr, "threshold array is NULL");
        for (int g = 0; g < group_count; ++g)
            require(std::isfinite(group_thresholds[g]) && group_thresholds[g] >= 0 && group_thresholds[g] <= 1,
                    "group threshold must be between 0 and 1");
        require(std::isfinite(nms_iou) && nms_iou >= 0 && nms_iou <= 1, "NMS IoU must be between 0 and 1");
        if (class_count == 0) return 0;
        return yolo_detect(*net, wrap_rgb(rgb, length, width, height, stride), input_size, pads, pad_count,
                           classes, groups, class_count, group_thresholds, group_count, nms_iou, out, capacity);
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
