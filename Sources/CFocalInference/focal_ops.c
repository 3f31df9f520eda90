// focal_ops.c: the C side of focal_ops.h. Separable resampling with per-axis weight tables (the
// same tables as OpenCV 4.6's INTER_AREA and INTER_LINEAR), a spectral-residual saliency map with
// its own DFT (mixed radix, or Bluestein's algorithm for lengths with a large prime factor), and
// cv::dnn::NMSBoxes's suppression rule. Nothing here keeps global state.
#include "focal_ops.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    kMaxSide = 1 << 20,  /* the longest image side */
    kMaxMapSide = 4096,  /* the longest saliency map or thumbnail side */
    kSaliencyWidth = 64, /* the saliency thumbnail's width */
    kMaxRadix = 31,      /* the largest prime factor for a mixed-radix DFT (else Bluestein's) */
};

static int fail(char *err, size_t errlen, int code, const char *format, ...) {
    if (err != NULL && errlen > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(err, errlen, format, args);
        va_end(args);
    }
    return code;
}

/// Checks an 8-bit RGB buffer's geometry against its length. Returns 0 or FOCAL_OPS_EINVAL.
static int check_rgb(const void *rgb, size_t length, int width, int height, int stride, const char *what, char *err,
                     size_t errlen) {
    if (rgb == NULL) return fail(err, errlen, FOCAL_OPS_EINVAL, "%s buffer is NULL", what);
    if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "%s width and height must be between 1 and %d", what, kMaxSide);
    if ((long long)stride < 3LL * width)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "%s row stride is smaller than width * 3", what);
    const unsigned long long needed =
        (unsigned long long)stride * (unsigned long long)(height - 1) + 3ULL * (unsigned long long)width;
    if (needed > (unsigned long long)length)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "%s buffer is shorter than its geometry", what);
    return 0;
}

// ---- Resampling -------------------------------------------------------------------------------

/// The weights of one axis: destination sample d is the sum of `taps` source samples from
/// start[d] on, weighted by weight[d * taps + k] (zeros pad the window, which stays inside).
typedef struct axis {
    int *start;
    float *weight;
    int taps;
    double scale; /* source samples per destination sample */
} axis;

static void axis_free(axis *a) {
    free(a->start);
    free(a->weight);
}

/// Builds the weights from `src` to `dst` samples as cv::resize does. Returns 0, or -1 when out
/// of memory.
static int axis_init(axis *a, int src, int dst) {
    const double scale = a->scale = 1.0 / ((double)dst / src);  // as OpenCV computes it
    const int taps = dst < src ? (int)scale + 2 : 2;
    a->taps = taps < src ? taps : src;
    a->start = malloc(sizeof(int) * (size_t)dst);
    a->weight = calloc((size_t)a->taps * (size_t)dst, sizeof(float));
    if (a->start == NULL || a->weight == NULL) return -1;
    for (int d = 0; d < dst; ++d) {
        float *w = a->weight + (size_t)d * (size_t)a->taps;
        int n = 0, start;
        if (dst < src) {
            // INTER_AREA (computeResizeAreaTab): the source cells under [d, d + 1) * scale, the
            // partial ones weighted by their share; slivers under 1e-3 of a cell are dropped.
            const double f1 = d * scale, f2 = f1 + scale, cell = fmin(scale, src - f1);
            int s2 = (int)floor(f2), s1 = (int)ceil(f1);
            if (s2 > src - 1) s2 = src - 1;
            if (s1 > s2) s1 = s2;
            start = s1;
            if (s1 - f1 > 1e-3) start = s1 - 1, w[n++] = (float)((s1 - f1) / cell);
            for (int s = s1; s < s2; ++s) w[n++] = (float)(1.0 / cell);
            if (f2 - s2 > 1e-3) w[n++] = (float)(fmin(fmin(f2 - s2, 1.0), cell) / cell);
        } else {
            // INTER_LINEAR: half-pixel centres, clamped to the first and last sample.
            float f = (float)((d + 0.5) * scale - 0.5);
            start = (int)floorf(f);
            f -= (float)start;
            if (start < 0) f = 0, start = 0;
            if (start >= src - 1) f = 0, start = src - 1;
            w[n++] = 1.0f - f;
            if (f > 0) w[n++] = f;
        }
        const int shift = start + a->taps - src;  // move a window that overhangs the end back
        if (shift > 0) {
            memmove(w + shift, w, sizeof(float) * (size_t)n);
            memset(w, 0, sizeof(float) * (size_t)shift);
            start -= shift;
        }
        a->start[d] = start;
    }
    return 0;
}

/// Rounds the weights to whole multiples of 1 / `unit`, stored times `unit`.
static void quantize(axis *a, int dst, double unit) {
    for (size_t i = 0; i < (size_t)a->taps * (size_t)dst; ++i) a->weight[i] = (float)rint(a->weight[i] * unit);
}

/// Samples to resample: 8-bit (`u8`) or float (`f32`), `channels` interleaved, `stride` samples
/// per row. With `grey`, `u8` holds RGB read as one grey channel (OpenCV 4's RGB2GRAY for 8 bits,
/// bit for bit: 0.299, 0.587 and 0.114 in 15-bit fixed point).
typedef struct plane {
    const unsigned char *u8;
    const float *f32;
    size_t stride;
    int width, channels, grey;
} plane;

/// Adds `rows` source rows from `y` on, times `w`, to `row` (replaces it when `first`; `row`
/// starts as zeros, so it never holds a NaN). Several 8-bit rows (of one weight) are summed as
/// integers first, in `total`: twice as fast as a multiply-add for each.
static void add_rows(float *restrict row, const plane *p, int y, int rows, float w, int first,
                     unsigned short *restrict total) {
    const size_t n = (size_t)p->width * (size_t)p->channels;
    const float keep = first ? 0.0f : 1.0f;
    const unsigned char *restrict s = p->u8 + (size_t)y * p->stride;
    if (p->f32 != NULL) {
        const float *restrict f = p->f32 + (size_t)y * p->stride;
        for (size_t i = 0; i < n; ++i) row[i] = keep * row[i] + w * f[i];
    } else if (p->grey) {
        for (size_t i = 0; i < n; ++i) {
            const int g = (s[3 * i] * 9798 + s[3 * i + 1] * 19235 + s[3 * i + 2] * 3735 + (1 << 14)) >> 15;
            row[i] = keep * row[i] + w * (float)g;
        }
    } else if (rows == 1) {
        for (size_t i = 0; i < n; ++i) row[i] = keep * row[i] + w * (float)s[i];
    } else {
        memset(total, 0, sizeof(short) * n);
        for (int k = 0; k < rows; ++k, s += p->stride)
            for (size_t i = 0; i < n; ++i) total[i] = (unsigned short)(total[i] + s[i]);
        for (size_t i = 0; i < n; ++i) row[i] = keep * row[i] + w * (float)total[i];
    }
}

/// Resamples one row of `cn` (1 or 3) channels through the x table into `out`.
static void horizontal(const float *restrict row, const axis *ax, int dst_w, int cn, float *restrict out) {
    const int taps = ax->taps;
    for (int dx = 0; dx < dst_w; ++dx) {
        const float *w = ax->weight + (size_t)dx * (size_t)taps, *s = row + (size_t)ax->start[dx] * (size_t)cn;
        if (cn == 3) {
            float r = 0, g = 0, b = 0;
            for (int k = 0; k < taps; ++k)
                r += w[k] * s[3 * k], g += w[k] * s[3 * k + 1], b += w[k] * s[3 * k + 2];
            out[3 * dx] = r, out[3 * dx + 1] = g, out[3 * dx + 2] = b;
        } else {
            float sum = 0;
            for (int k = 0; k < taps; ++k) sum += w[k] * s[k];
            out[dx] = sum;
        }
    }
}

static int whole(double v) { return fabs(v - (double)lround(v)) < DBL_EPSILON; }

/// Rounds `n` values to 8 bits: to nearest, ties up or to even; clamped to 0...255.
static void to_u8(const float *restrict v, size_t n, int ties_up, unsigned char *restrict out) {
    for (size_t i = 0; i < n; ++i) {
        const float x = v[i] > 0 ? (v[i] < 255 ? v[i] : 255) : 0;
        const int below = (int)x;
        const float fraction = x - (float)below;
        out[i] = (unsigned char)(below + (fraction > 0.5f) + (fraction == 0.5f) * (ties_up | (below & 1)));
    }
}

/// Resamples `src` (its width x `src_h`) to `dst_u8` or `dst_f32`, `dst_w` x `dst_h` with
/// `dst_stride` samples per row: each output row is a weighted sum of source rows, then of its
/// samples. 8-bit ties round as OpenCV's do: up for bilinear and for halving both sides (its
/// fast 2x2 path), to even for other area averaging (cvRound). Returns 0, or FOCAL_OPS_ENOMEM.
static int resample_plane(const plane *src, int src_h, int dst_w, int dst_h, unsigned char *dst_u8, float *dst_f32,
                          size_t dst_stride, char *err, size_t errlen) {
    const int cn = src->channels;
    const int ties_up = (dst_w >= src->width && dst_h >= src_h) || (src->width == 2 * dst_w && src_h == 2 * dst_h);
    const size_t n = (size_t)dst_w * (size_t)cn, row_floats = (size_t)src->width * (size_t)cn + n;
    axis ax = {0}, ay = {0};
    float *row = NULL;  // a source row, an output row, a row of integer sums
    if (axis_init(&ax, src->width, dst_w) != 0 || axis_init(&ay, src_h, dst_h) != 0 ||
        (row = calloc(sizeof(float) * row_floats + sizeof(short) * (size_t)src->width * (size_t)cn, 1)) == NULL) {
        axis_free(&ax);
        axis_free(&ay);
        return fail(err, errlen, FOCAL_OPS_ENOMEM, "out of memory");
    }
    float *sum = row + (size_t)src->width * (size_t)cn;
    for (int dy = 0; dy < dst_h; ++dy) {
        const float *wy = ay.weight + (size_t)dy * (size_t)ay.taps;
        for (int k = 0, first = 1; k < ay.taps; ++k) {
            if (wy[k] == 0) continue;
            int rows = 1;  // 8-bit rows of one weight (the whole ones of area averaging), <= 65535 / 255
            while (src->u8 != NULL && k + rows < ay.taps && wy[k + rows] == wy[k] && rows < 257) ++rows;
            add_rows(row, src, ay.start[dy] + k, rows, wy[k], first, (unsigned short *)(row + row_floats));
            k += rows - 1, first = 0;
        }
        horizontal(row, &ax, dst_w, cn, sum);
        if (dst_f32 != NULL)
            memcpy(dst_f32 + (size_t)dy * dst_stride, sum, sizeof(float) * n);
        else
            to_u8(sum, n, ties_up, dst_u8 + (size_t)dy * dst_stride);
    }
    axis_free(&ax);
    axis_free(&ay);
    free(row);
    return 0;
}

/// The saliency thumbnail: `rgb` in grey, resized to `w` x `h` bit for bit as OpenCV 4.6 does
/// (the map is sensitive to it): across each source row first, then down; area averaging when
/// `w` < `width` (integer sums times 1/area for whole-number ratios), else bilinear with 11-bit
/// weights and its SIMD rounding (VResizeLinearVec_32s8u, which covers rows of 16n samples),
/// leaving the vertical weights unclamped at the edges as it does. Returns 0 or -1 (no memory).
static int grey_thumbnail(const unsigned char *rgb, int width, int height, int stride, unsigned char *thumb, int w,
                          int h) {
    const int area = w < width, ties_up = !area || (width == 2 * w && height == 2 * h);
    axis ax = {0}, ay = {0};
    float *row = NULL;  // a source row, a resampled row, their sum
    if (axis_init(&ax, width, w) != 0 || axis_init(&ay, height, h) != 0 ||
        (row = calloc((size_t)width + 2 * (size_t)w, sizeof(float))) == NULL) {
        axis_free(&ax);
        axis_free(&ay);
        return -1;
    }
    float *line = row + width, *sum = line + w, final_scale = 1;
    if (!area) {
        quantize(&ax, w, 2048), final_scale = 0.25f;
    } else if (whole(ax.scale) && whole(ay.scale)) {
        quantize(&ax, w, ax.scale), quantize(&ay, h, ay.scale);
        final_scale = 1.0f / (float)(lround(ax.scale) * lround(ay.scale));
    }
    const plane grey = {rgb, NULL, (size_t)stride, width, 1, 1};
    for (int dy = 0; dy < h; ++dy) {
        const float fy = (float)((dy + 0.5) * ay.scale - 0.5), f = fy - floorf(fy);
        for (int k = 0, first = 1; k < (area ? ay.taps : 2); ++k) {
            // Area: the table. Bilinear: row floor(fy) and the next, clamped, unclamped weights.
            const int sy = area ? ay.start[dy] + k : (int)floorf(fy) + k, last = height - 1;
            const float b = area ? ay.weight[(size_t)dy * (size_t)ay.taps + (size_t)k]
                                 : rintf((k ? f : 1.0f - f) * 2048);
            if (b == 0) continue;
            add_rows(row, &grey, sy < 0 ? 0 : (sy > last ? last : sy), 1, 1.0f, 1, NULL);
            horizontal(row, &ax, w, 1, line);
            for (int i = 0; i < w; ++i) {
                const float t = area ? b * line[i] : (float)(((int)line[i] >> 4) * (int)b >> 16);
                sum[i] = first ? t : sum[i] + t;
            }
            first = 0;
        }
        for (int i = 0; i < w; ++i) sum[i] *= final_scale;
        to_u8(sum, (size_t)w, ties_up, thumb + (size_t)dy * (size_t)w);
    }
    axis_free(&ax);
    axis_free(&ay);
    free(row);
    return 0;
}

int focal_resize_rgb_into(const unsigned char *src, size_t src_length, int src_w, int src_h, int src_stride,
                          unsigned char *dst, size_t dst_length, int dst_w, int dst_h, int dst_stride, int x,
                          int y, int w, int h, unsigned char fill, char *err, size_t errlen) {
    int result = check_rgb(src, src_length, src_w, src_h, src_stride, "source", err, errlen);
    if (result == 0) result = check_rgb(dst, dst_length, dst_w, dst_h, dst_stride, "destination", err, errlen);
    if (result != 0) return result;
    if (x < 0 || y < 0 || w < 1 || h < 1 || x > dst_w - w || y > dst_h - h)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "the rectangle is not inside the destination");
    for (int r = 0; r < dst_h; ++r) {
        unsigned char *d = dst + (size_t)r * (size_t)dst_stride;
        if (r < y || r >= y + h) {
            memset(d, fill, (size_t)dst_w * 3);
        } else {
            memset(d, fill, (size_t)x * 3);
            memset(d + (size_t)(x + w) * 3, fill, (size_t)(dst_w - x - w) * 3);
        }
    }
    unsigned char *out = dst + (size_t)y * (size_t)dst_stride + (size_t)x * 3;
    if (w == src_w && h == src_h) {
        for (int r = 0; r < h; ++r)
            memcpy(out + (size_t)r * (size_t)dst_stride, src + (size_t)r * (size_t)src_stride, (size_t)w * 3);
        return 0;
    }
    const plane p = {src, NULL, (size_t)src_stride, src_w, 3, 0};
    return resample_plane(&p, src_h, w, h, out, NULL, (size_t)dst_stride, err, errlen);
}

int focal_resize_rgb(const unsigned char *src, size_t src_length, int src_w, int src_h, int src_stride,
                     unsigned char *dst, size_t dst_length, int dst_w, int dst_h, int dst_stride, char *err,
                     size_t errlen) {
    return focal_resize_rgb_into(src, src_length, src_w, src_h, src_stride, dst, dst_length, dst_w, dst_h,
                                 dst_stride, 0, 0, dst_w, dst_h, 0, err, errlen);
}

// ---- DFT --------------------------------------------------------------------------------------

typedef struct cpx {
    double re, im;
} cpx;

static cpx cmul(cpx a, cpx b) { return (cpx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
static cpx conj_(cpx a) { return (cpx){a.re, -a.im}; }

static int smallest_factor(int n) {
    for (int p = 2; p * p <= n; p += p == 2 ? 1 : 2)
        if (n % p == 0) return p;
    return n;
}

static int largest_factor(int n) {
    int p = 1;
    for (; n > 1; n /= p) p = smallest_factor(n);
    return p;
}

/// Mixed-radix DFT (decimation in time) of the n points in[0], in[step], ... into out[0...n):
/// the p interleaved parts (p the smallest prime factor) are transformed, then combined by
/// p-point butterflies. tw[k * tw_step] is exp(-2 pi i k / n); `scratch` holds p points.
static void fft(const cpx *in, size_t step, cpx *out, int n, const cpx *tw, int tw_step, cpx *scratch) {
    const int p = smallest_factor(n), m = n / p;
    for (int r = 0; r < p; ++r) {
        if (m == 1)
            out[r] = in[(size_t)r * step];
        else
            fft(in + (size_t)r * step, step * (size_t)p, out + r * m, m, tw, tw_step * p, scratch);
    }
    if (p == 2) {
        for (int k = 0; k < m; ++k) {
            const cpx a = out[k], b = cmul(out[m + k], tw[k * tw_step]);
            out[k] = (cpx){a.re + b.re, a.im + b.im};
            out[m + k] = (cpx){a.re - b.re, a.im - b.im};
        }
        return;
    }
    for (int k = 0; k < m; ++k) {
        for (int r = 0; r < p; ++r) scratch[r] = cmul(out[r * m + k], tw[r * k * tw_step]);
        for (int q = 0; q < p; ++q) {
            cpx sum = {0, 0};
            for (int r = 0; r < p; ++r) {
                const cpx t = cmul(scratch[r], tw[(r * q) % p * m * tw_step]);
                sum.re += t.re, sum.im += t.im;
            }
            out[q * m + k] = sum;
        }
    }
}

/// An n-point forward DFT: mixed radix when no prime factor of n exceeds kMaxRadix, otherwise
/// Bluestein's: a convolution with a chirp through an m-point FFT (m a power of 2, >= 2n - 1).
typedef struct dft_plan {
    int n, m;     /* m = 0: mixed radix */
    cpx *tw;      /* exp(-2 pi i k / len), k < len, len = m or n */
    cpx *chirp;   /* exp(-i pi k^2 / n), k < n */
    cpx *kernel;  /* the FFT of the conjugate chirp wrapped around m points */
    cpx *a, *b;   /* m points each */
    cpx *scratch; /* kMaxRadix points */
} dft_plan;

static int bluestein_length(int n) {
    if (largest_factor(n) <= kMaxRadix) return 0;
    int m = 1;
    while (m < 2 * n - 1) m *= 2;
    return m;
}

/// The points a plan of length n takes.
static size_t plan_points(int n) {
    const size_t m = (size_t)bluestein_length(n);
    return m ? 4 * m + (size_t)n + kMaxRadix : (size_t)n + kMaxRadix;
}

static void plan_init(dft_plan *plan, int n, cpx *memory) {
    const double pi = 3.14159265358979323846;
    plan->n = n, plan->m = bluestein_length(n);
    const int len = plan->m ? plan->m : n;
    plan->tw = memory, plan->scratch = memory + len;
    for (int k = 0; k < len; ++k) plan->tw[k] = (cpx){cos(-2 * pi * k / len), sin(-2 * pi * k / len)};
    if (!plan->m) return;
    const int m = plan->m;
    plan->chirp = plan->scratch + kMaxRadix, plan->kernel = plan->chirp + n;
    plan->a = plan->kernel + m, plan->b = plan->a + m;
    for (int k = 0; k < m; ++k) plan->b[k] = (cpx){0, 0};
    for (int k = 0; k < n; ++k) {
        const double angle = -pi * (double)((long long)k * k % (2LL * n)) / n;  // k^2 mod 2n keeps it exact
        plan->chirp[k] = (cpx){cos(angle), sin(angle)};
        plan->b[k] = plan->b[(m - k) % m] = conj_(plan->chirp[k]);
    }
    fft(plan->b, 1, plan->kernel, m, plan->tw, 1, plan->scratch);
}

/// The forward DFT of the n points in[0], in[step], ... into out[0...n).
static void dft(const dft_plan *plan, const cpx *in, size_t step, cpx *out) {
    const int n = plan->n, m = plan->m;
    if (!m) {
        fft(in, step, out, n, plan->tw, 1, plan->scratch);
        return;
    }
    for (int k = 0; k < m; ++k) plan->a[k] = k < n ? cmul(in[(size_t)k * step], plan->chirp[k]) : (cpx){0, 0};
    fft(plan->a, 1, plan->b, m, plan->tw, 1, plan->scratch);
    for (int k = 0; k < m; ++k) plan->b[k] = conj_(cmul(plan->b[k], plan->kernel[k]));
    fft(plan->b, 1, plan->a, m, plan->tw, 1, plan->scratch);  // the inverse, by conjugation
    for (int k = 0; k < n; ++k) {
        const cpx c = conj_(plan->a[k]);
        out[k] = cmul((cpx){c.re / m, c.im / m}, plan->chirp[k]);
    }
}

/// The 2-D DFT of w x h points in place (unscaled); the inverse by conjugation. `line` holds
/// max(w, h) points.
static void dft2(cpx *data, int w, int h, const dft_plan *rows, const dft_plan *cols, int inverse, cpx *line) {
    const size_t n = (size_t)w * (size_t)h;
    if (inverse)
        for (size_t i = 0; i < n; ++i) data[i] = conj_(data[i]);
    for (int y = 0; y < h; ++y) {
        dft(rows, data + (size_t)y * (size_t)w, 1, line);
        memcpy(data + (size_t)y * (size_t)w, line, sizeof(cpx) * (size_t)w);
    }
    for (int x = 0; x < w; ++x) {
        dft(cols, data + x, (size_t)w, line);
        for (int y = 0; y < h; ++y) data[(size_t)y * (size_t)w + (size_t)x] = line[y];
    }
    if (inverse)
        for (size_t i = 0; i < n; ++i) data[i] = conj_(data[i]);
}

// ---- Saliency ---------------------------------------------------------------------------------

/// OpenCV's default border, BORDER_REFLECT_101: ... 2 1 | 0 1 2 ... n-1 | n-2 ...
static int reflect101(int p, int n) {
    if (n == 1) return 0;
    while (p < 0 || p >= n) p = p < 0 ? -p : 2 * n - 2 - p;
    return p;
}

/// Filters the n values v[0], v[step], ... in place with `kernel` (2r + 1 taps) and the
/// BORDER_REFLECT_101 border; `line` holds n + 2r values.
static void filter_line(double *v, size_t step, int n, const double *kernel, int r, double *line) {
    for (int i = -r; i < n + r; ++i) line[i + r] = v[(size_t)reflect101(i, n) * step];
    for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int k = 0; k <= 2 * r; ++k) sum += kernel[k] * line[i + k];
        v[(size_t)i * step] = sum;
    }
}

/// Filters w x h values in place along rows, then columns (as cv::sepFilter2D does).
static void filter(double *v, int w, int h, const double *kernel, int r, double *line) {
    for (int y = 0; y < h; ++y) filter_line(v + (size_t)y * (size_t)w, 1, w, kernel, r, line);
    for (int x = 0; x < w; ++x) filter_line(v + x, (size_t)w, h, kernel, r, line);
}

int focal_saliency(const unsigned char *rgb, size_t length, int width, int height, int stride, int map_width,
                   int map_height, float *out_map, size_t map_length, char *err, size_t errlen) {
    const int result = check_rgb(rgb, length, width, height, stride, "image", err, errlen);
    if (result != 0) return result;
    if (map_width < 1 || map_height < 1 || map_width > kMaxMapSide || map_height > kMaxMapSide)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "map width and height must be between 1 and %d", kMaxMapSide);
    if (out_map == NULL) return fail(err, errlen, FOCAL_OPS_EINVAL, "output map is NULL");
    if ((unsigned long long)map_width * (unsigned long long)map_height > (unsigned long long)map_length)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "output map is shorter than map_width * map_height");
    const int w = kSaliencyWidth;
    const long rounded = lround((double)height * w / width);
    if (rounded > kMaxMapSide)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "image is more than %d times taller than wide", kMaxMapSide / w);
    const int h = rounded < 1 ? 1 : (int)rounded;

    // One block: the spectrum, a line and two DFT plans; two planes of doubles and a filter line;
    // the float map; the 8-bit thumbnail.
    const int longer = h > w ? h : w;
    const size_t n = (size_t)w * (size_t)h, points = n + (size_t)longer + plan_points(w) + plan_points(h);
    const size_t doubles = 2 * n + (size_t)longer + 24;
    unsigned char *block = malloc(sizeof(cpx) * points + sizeof(double) * doubles + sizeof(float) * n + n);
    if (block == NULL) return fail(err, errlen, FOCAL_OPS_ENOMEM, "out of memory");
    cpx *spectrum = (cpx *)block, *line = spectrum + n;
    dft_plan rows, cols;
    plan_init(&rows, w, line + longer);
    plan_init(&cols, h, rows.tw + plan_points(w));
    double *log_amplitude = (double *)(spectrum + points), *blurred = log_amplitude + n, *filter_buffer = blurred + n;
    float *map = (float *)(filter_buffer + longer + 24);
    unsigned char *thumb = (unsigned char *)(map + n);

    // The grey thumbnail, 64 px wide, in 8 bits (area when shrinking, bilinear otherwise), then /255.
    if (grey_thumbnail(rgb, width, height, stride, thumb, w, h) != 0) {
        free(block);
        return fail(err, errlen, FOCAL_OPS_ENOMEM, "out of memory");
    }
    double sum = 0, squares = 0;
    for (size_t i = 0; i < n; ++i) {
        const float v = (float)thumb[i] * (float)(1.0 / 255.0);
        spectrum[i] = (cpx){v, 0};
        sum += v, squares += (double)v * v;
    }
    // A flat image has no salient region (the residual of an empty spectrum would be a spike at
    // the DC term, i.e. a blob in the top-left corner).
    const double mean = sum / (double)n;
    if (sqrt(fmax(squares / (double)n - mean * mean, 0)) < 1e-4) {
        for (size_t i = 0; i < (size_t)map_width * (size_t)map_height; ++i) out_map[i] = 0;
        free(block);
        return 0;
    }

    // Spectral residual: the log amplitude minus its 3x3 average (cv::blur), back with the
    // original phase.
    dft2(spectrum, w, h, &rows, &cols, 0, line);
    for (size_t i = 0; i < n; ++i)
        blurred[i] = log_amplitude[i] = log(hypot(spectrum[i].re, spectrum[i].im) + 1e-9);
    const double box[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    filter(blurred, w, h, box, 1, filter_buffer);
    for (size_t i = 0; i < n; ++i) {
        const double amplitude = hypot(spectrum[i].re, spectrum[i].im), residual = exp(log_amplitude[i] - blurred[i]);
        const double ratio = amplitude > 0 ? residual / amplitude : 0;
        spectrum[i] = amplitude > 0 ? (cpx){spectrum[i].re * ratio, spectrum[i].im * ratio} : (cpx){residual, 0};
    }
    dft2(spectrum, w, h, &rows, &cols, 1, line);

    // The squared magnitude (the inverse scaled by 1/n), blurred with OpenCV's Gaussian for
    // sigma 3 (25 taps), normalised to [0, 1] as cv::normalize(NORM_MINMAX) does.
    for (size_t i = 0; i < n; ++i)
        blurred[i] = (spectrum[i].re * spectrum[i].re + spectrum[i].im * spectrum[i].im) / ((double)n * (double)n);
    double gauss[25], total = 0;
    for (int k = 0; k < 25; ++k) total += gauss[k] = exp(-0.5 * (k - 12) * (k - 12) / 9.0);
    for (int k = 0; k < 25; ++k) gauss[k] /= total;
    filter(blurred, w, h, gauss, 12, filter_buffer);
    double lo = blurred[0], hi = blurred[0];
    for (size_t i = 1; i < n; ++i) lo = fmin(lo, blurred[i]), hi = fmax(hi, blurred[i]);
    const double scale = hi - lo > DBL_EPSILON ? 1.0 / (hi - lo) : 0;
    for (size_t i = 0; i < n; ++i) map[i] = (float)((blurred[i] - lo) * scale);

    const plane source = {NULL, map, (size_t)w, w, 1, 0};
    const int status =
        resample_plane(&source, h, map_width, map_height, NULL, out_map, (size_t)map_width, err, errlen);
    free(block);
    return status;
}

// ---- NMS --------------------------------------------------------------------------------------

typedef struct ranked {
    float score;
    int index;
} ranked;

/// Best first; equal scores in input order (std::stable_sort in OpenCV).
static int by_score(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static double min_(double a, double b) { return b < a ? b : a; }  // std::min

/// The area of cv::Rect2d's intersection (operator&=) of two x, y, width, height boxes.
static double intersection(const float *a, const float *b) {
    if (a[2] <= 0 || a[3] <= 0 || b[2] <= 0 || b[3] <= 0) return 0;
    const float *xl = a[0] < b[0] ? a : b, *xr = a[0] < b[0] ? b : a;
    const float *yl = a[1] < b[1] ? a : b, *yr = a[1] < b[1] ? b : a;
    if ((xl[0] < 0 && (double)xl[0] + xl[2] < xr[0]) || (yl[1] < 0 && (double)yl[1] + yl[3] < yr[1])) return 0;
    const double w = min_((double)xl[2] - ((double)xr[0] - xl[0]), xr[2]);
    const double h = min_((double)yl[3] - ((double)yr[1] - yl[1]), yr[3]);
    return w <= 0 || h <= 0 ? 0 : w * h;
}

/// OpenCV's overlap: 1 - jaccardDistance, that distance computed in double and cast to float.
static float overlap(const float *a, const float *b) {
    const double area_a = (double)a[2] * a[3], area_b = (double)b[2] * b[3];
    if (area_a + area_b <= DBL_EPSILON) return 1.0f;
    const double shared = intersection(a, b);
    return 1.0f - (float)(1.0 - shared / (area_a + area_b - shared));
}

int focal_nms(const float *boxes, const float *scores, int count, float score_threshold, float iou_threshold,
              int *keep, int capacity, char *err, size_t errlen) {
    if (count < 0 || capacity < 0)
        return fail(err, errlen, FOCAL_OPS_EINVAL, "count and capacity must not be negative");
    if (count > 0 && (boxes == NULL || scores == NULL))
        return fail(err, errlen, FOCAL_OPS_EINVAL, "boxes or scores are NULL");
    if (capacity > 0 && keep == NULL) return fail(err, errlen, FOCAL_OPS_EINVAL, "output array is NULL");
    if (!(score_threshold >= 0) || !(iou_threshold >= 0))
        return fail(err, errlen, FOCAL_OPS_EINVAL, "score and IoU thresholds must be >= 0");
    if (count == 0 || capacity == 0) return 0;
    ranked *order = malloc(sizeof(ranked) * (size_t)count);
    if (order == NULL) return fail(err, errlen, FOCAL_OPS_ENOMEM, "out of memory");
    size_t n = 0;
    for (int i = 0; i < count; ++i)
        if (scores[i] > score_threshold) order[n++] = (ranked){scores[i], i};
    qsort(order, n, sizeof(ranked), by_score);
    int kept = 0;
    for (size_t i = 0; i < n && kept < capacity; ++i) {
        const float *box = boxes + 4 * (size_t)order[i].index;
        int keeps = 1;
        for (int k = 0; k < kept && keeps; ++k) keeps = overlap(box, boxes + 4 * (size_t)keep[k]) <= iou_threshold;
        if (keeps) keep[kept++] = order[i].index;
    }
    free(order);
    return kept;
}
