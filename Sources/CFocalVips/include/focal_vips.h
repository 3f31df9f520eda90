// focal_vips.h: the C face of Focal's libvips shim. Opaque handles, no variadic functions and no
// libvips type, so that Swift can call every function.
//
// Every function that can fail returns a focal_vips_status: the kind of failure is decided here,
// from the step that failed, never from libvips's message text. The text goes into `err`
// (NUL-terminated, truncated to `errlen`; `err` may be NULL) for logs only. libvips keeps one error
// buffer for the whole process, so text read after a parallel failure could be another call's: a
// call that fails is run again alone (every other call waits) to read its own text.
//
// Every size, offset and length is checked here before libvips sees it; a value out of range is
// FOCAL_VIPS_ERR_ARGUMENT, never undefined behaviour.
#ifndef FOCAL_VIPS_H
#define FOCAL_VIPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An opened image source (a private copy of caller bytes) whose header has been read.
typedef struct focal_vips_source focal_vips_source;
/// A decoded image held in memory, 8-bit sRGB (3 bands, or 4 with alpha).
typedef struct focal_vips_image focal_vips_image;

/// The kind of failure.
typedef enum focal_vips_status {
    FOCAL_VIPS_OK = 0,
    /// No loader recognises the bytes.
    FOCAL_VIPS_ERR_NOT_IMAGE = 1,
    /// A loader recognises the bytes, but it is not on the allow-list (SVG, PDF, matrix, ...).
    FOCAL_VIPS_ERR_UNSUPPORTED = 2,
    /// The header or the pixels are truncated or corrupt (any decoder warning counts for JPEG).
    FOCAL_VIPS_ERR_CORRUPT = 3,
    /// The work passed its deadline and was stopped.
    FOCAL_VIPS_ERR_TIMEOUT = 4,
    /// Encoding failed.
    FOCAL_VIPS_ERR_ENCODE = 5,
    /// An argument is out of range (a size, an offset, a length).
    FOCAL_VIPS_ERR_ARGUMENT = 6,
    /// libvips could not start, or failed in a way that is no input's fault.
    FOCAL_VIPS_ERR_INTERNAL = 7,
} focal_vips_status;

/// The largest width or height the shim accepts anywhere (libvips's own limit is 10 000 000).
#define FOCAL_VIPS_MAX_SIDE 10000000

/// What the header says, read without decoding pixels.
typedef struct focal_vips_info {
    // clang-format off
    int width, height;      ///< After the EXIF orientation is applied (one page of a multi-page file).
    int orientation;        ///< EXIF orientation 1...8 (1 when absent).
    int bands;              ///< Bands as stored, alpha included.
    int bits;               ///< Bits per sample as decoded (8, 16, 32, 64).
    int has_alpha;          ///< 1 when the image has an alpha band.
    int interlaced;         ///< 1 for a progressive JPEG or an interlaced PNG (decoded whole, in memory).
    int pages;              ///< Pages or frames in the file (1 when the loader does not say).
    int cmyk;               ///< 1 when the pixels are CMYK.
    char loader[48];        ///< libvips's loader, e.g. "jpegload_source".
    char chroma[16];        ///< A JPEG's chroma subsampling as libvips names it ("4:2:0", "4:4:4"); else empty.
    // clang-format on
} focal_vips_info;

/// How to save an output: libvips's saver for a suffix, with its options, in libvips's own form
/// (".jpg[Q=85,strip]"). The caller builds it (Swift's FormatDescriptor): the shim has no list of
/// formats, no option of its own and no limits. Metadata is always removed before saving.
typedef struct focal_vips_saver {
    const char *format;  ///< The suffix and options, e.g. ".webp[Q=85,strip]".
    int flatten;         ///< 1 to flatten alpha on white first (a format without alpha).
} focal_vips_saver;

/// Starts libvips once (thread safe; later calls return the first result).
focal_vips_status focal_vips_init(char *err, size_t errlen);
/// Threads libvips may use inside one pipeline.
void focal_vips_set_concurrency(int threads);
/// Operations libvips may keep in its cache (0 turns the cache off).
void focal_vips_set_cache_max(int operations);
/// Turns libvips's leak tracking on or off.
void focal_vips_leak_set(int on);
/// The number of libvips objects alive now (images, sources, operations).
int focal_vips_objects_alive(void);
/// The number of pixel buffers libvips has allocated and not yet freed.
int focal_vips_tracked_allocs(void);

/// Copies `length` bytes and reads their header. Only the loaders for JPEG, PNG, WebP, GIF, TIFF
/// and HEIF/AVIF are accepted. On success `*out` is the source.
///
/// `page` (0-based) picks one page or frame of a multi-page file: every decode then reads it alone
/// and `info` describes it (`info->pages` still counts the file's pages; a page at or past them is
/// not picked, for the caller to refuse). `turn` (0, 90, 180 or 270 degrees anticlockwise) turns
/// the oriented image before anything else: sizes, crops and frames are the turned image's.
focal_vips_status focal_vips_open(const void *bytes, size_t length, int page, int turn, focal_vips_source **out,
                                  focal_vips_info *info, char *err, size_t errlen);
/// Names the libvips loader that recognises `length` bytes, without reading their header: for
/// bytes that start like no format Focal reads, to tell a format Focal refuses (a matrix file, PPM,
/// the vips format: FOCAL_VIPS_ERR_UNSUPPORTED) from bytes no loader takes (FOCAL_VIPS_ERR_NOT_IMAGE).
/// Loaders libvips blocks as unsafe are not asked. `loader` (may be NULL) receives the loader's
/// name, e.g. "matrixload_source". FOCAL_VIPS_OK when an allowed loader recognises them.
focal_vips_status focal_vips_identify(const void *bytes, size_t length, char *loader, size_t loaderlen, char *err,
                                      size_t errlen);
/// 1 when this libvips has the loader named `nickname` (e.g. "jxlload_source") and does not block
/// it as unsafe for untrusted input, else 0.
int focal_vips_loader_usable(const char *nickname);
/// Releases a source; NULL is ignored.
void focal_vips_source_free(focal_vips_source *source);

/// Decodes the first page of the oriented image scaled to exactly `width` x `height`
/// (shrink-on-load), into memory, in 8-bit sRGB. Stops with FOCAL_VIPS_ERR_TIMEOUT once
/// `timeout_ms` milliseconds have passed (0: no deadline).
focal_vips_status focal_vips_thumbnail(focal_vips_source *source, int width, int height, int timeout_ms,
                                       focal_vips_image **out, char *err, size_t errlen);
/// Decodes the oriented image scaled to `scaled_width` x `scaled_height`, takes the area at
/// (`left`, `top`) of `area_width` x `area_height` in those pixels, and resizes it to exactly
/// `out_width` x `out_height` when that differs. The area must lie inside the scaled image.
focal_vips_status focal_vips_render(focal_vips_source *source, int scaled_width, int scaled_height,
                                    int left, int top, int area_width, int area_height,
                                    int out_width, int out_height, int timeout_ms,
                                    focal_vips_image **out, char *err, size_t errlen);
/// Decodes the oriented image scaled to `scaled_width` x `scaled_height`, takes the area at
/// (`left`, `top`) of `out_width` x `out_height` in those pixels and encodes it, in one pass: the
/// output is never held whole in memory (WebP's encoder excepted), and the deadline covers the
/// encoding too. A decoder's error surfaces while encoding and is FOCAL_VIPS_ERR_CORRUPT. The
/// format's limits (sizes, pixels) and its options are the caller's to check: the shim has no
/// limits of its own. AVIF's encoder, like WebP's, holds the output whole. An unknown saver is
/// FOCAL_VIPS_ERR_ARGUMENT.
/// On success `*bytes` holds `*length` bytes freed with focal_vips_free.
focal_vips_status focal_vips_render_encode(focal_vips_source *source, int scaled_width, int scaled_height, int left,
                                           int top, int out_width, int out_height, const focal_vips_saver *saver,
                                           int timeout_ms, void **bytes, size_t *length, char *err, size_t errlen);
/// Takes the area at (`left`, `top`) of `area_width` x `area_height` of a decoded image and
/// resizes it to exactly `out_width` x `out_height` (Lanczos 3), into memory.
focal_vips_status focal_vips_crop_resize(const focal_vips_image *image, int left, int top, int area_width,
                                         int area_height, int out_width, int out_height,
                                         focal_vips_image **out, char *err, size_t errlen);
/// Wraps a copy of an 8-bit interleaved RGB buffer of `length` bytes (width * height * 3).
focal_vips_status focal_vips_from_rgb(const unsigned char *rgb, size_t length, int width, int height,
                                      focal_vips_image **out, char *err, size_t errlen);
/// Resizes the image to exactly `width` x `height` (Lanczos 3 when shrinking, bicubic when
/// enlarging), into memory.
focal_vips_status focal_vips_resize(const focal_vips_image *image, int width, int height,
                                    focal_vips_image **out, char *err, size_t errlen);
/// Mirrors the image left to right (`horizontal`) and/or top to bottom (`vertical`), into memory.
focal_vips_status focal_vips_flip(const focal_vips_image *image, int horizontal, int vertical,
                                  focal_vips_image **out, char *err, size_t errlen);
/// The image with its alpha flattened on `red`, `green`, `blue` (0-255), into memory; the image
/// itself (a new reference) when it has no alpha.
focal_vips_status focal_vips_flatten_on(const focal_vips_image *image, int red, int green, int blue,
                                        focal_vips_image **out, char *err, size_t errlen);
/// Turns the image clockwise by `quarter_turns` (0-3) quarter turns, into memory.
focal_vips_status focal_vips_rotate(const focal_vips_image *image, int quarter_turns, focal_vips_image **out,
                                    char *err, size_t errlen);
/// Turns every pixel's hue by `degrees` (-360 to 360) in CIE LCh (D65), lightness, chroma and
/// alpha kept (imagor's `hue()`, libvips's modulate), into memory as 8-bit sRGB.
focal_vips_status focal_vips_hue(const focal_vips_image *image, double degrees, focal_vips_image **out, char *err,
                                 size_t errlen);
/// Wraps a copy of 8-bit RGBA pixels (`length` = width * height * 4) as an sRGB image with alpha.
focal_vips_status focal_vips_from_rgba(const unsigned char *rgba, size_t length, int width, int height,
                                       focal_vips_image **out, char *err, size_t errlen);
/// The image convolved with `matrix` (`rows` of `columns` weights, used as they are: no scale),
/// edges extended by copying, computed in float and cast back to 8 bits, into memory. With
/// `separable` (one row), the row is applied across, then down.
focal_vips_status focal_vips_convolve(const focal_vips_image *image, const double *matrix, int columns, int rows,
                                      int separable, focal_vips_image **out, char *err, size_t errlen);
/// The image as 8-bit sRGB with alpha (opaque where it has none), rows of width * 4 bytes, in
/// memory the caller releases with `focal_vips_free`.
focal_vips_status focal_vips_rgba_pixels(const focal_vips_image *image, unsigned char **rgba, size_t *length,
                                         char *err, size_t errlen);
/// Releases an image; NULL is ignored.
void focal_vips_image_free(focal_vips_image *image);
/// The image's size.
void focal_vips_image_size(const focal_vips_image *image, int *width, int *height);
/// 1 when the image has an alpha band.
int focal_vips_image_has_alpha(const focal_vips_image *image);

/// Copies the image as 8-bit interleaved RGB (alpha flattened on white). On success `*rgb` holds
/// `*length` = width * height * 3 bytes that the caller frees with focal_vips_free.
focal_vips_status focal_vips_rgb_pixels(const focal_vips_image *image, unsigned char **rgb, size_t *length,
                                        char *err, size_t errlen);
/// Encodes the image with `saver` (metadata removed; alpha flattened on white when it asks). An
/// unknown saver is FOCAL_VIPS_ERR_ARGUMENT. On success `*bytes` holds `*length` bytes freed with
/// focal_vips_free.
focal_vips_status focal_vips_encode(const focal_vips_image *image, const focal_vips_saver *saver,
                                    void **bytes, size_t *length, char *err, size_t errlen);
/// Renders plain `text` (not markup) in the font `family` (NULL: sans) at `points` (1...1000,
/// pixels at 72 dpi) as an 8-bit coverage mask. `*mask` (width * mask_height bytes) is freed
/// with focal_vips_free.
focal_vips_status focal_vips_text_mask(const char *text, const char *family, int points, unsigned char **mask,
                                       int *width, int *mask_height, char *err, size_t errlen);
/// What an animation's header says (GIF, WebP), read without decoding pixels.
typedef struct focal_vips_animation {
    // clang-format off
    int frames;        ///< Frames; 1 when its frames differ in size (libvips then reads the first only).
    int width;         ///< The canvas's width.
    int frame_height;  ///< The canvas's height (one frame).
    int loop;          ///< How many times it plays; 0 for ever.
    // clang-format on
} focal_vips_animation;

/// Reads an animation's header: frames, canvas, loop count, and each frame's delay in ms into
/// `delays` (up to `max_delays`; -1 where the file gives none). No EXIF orientation is applied.
focal_vips_status focal_vips_animation_info(focal_vips_source *source, focal_vips_animation *info, int *delays,
                                            int max_delays, char *err, size_t errlen);
/// An animation's frames, decoded one after another through a source of their own, so that other
/// decodes of the same source may run in between.
typedef struct focal_vips_frames focal_vips_frames;
/// Starts reading the `frames` frames of an animation (as `focal_vips_animation_info` counted them).
focal_vips_status focal_vips_frames_open(focal_vips_source *source, int frames, focal_vips_frames **out, char *err,
                                         size_t errlen);
/// Decodes frame `frame`, takes the area at (`left`, `top`) of `area_width` x `area_height` of its
/// canvas and resizes it to exactly `out_width` x `out_height`, into memory, in 8-bit sRGB. Frames
/// are read in increasing order, each at most once (the file is decoded once, top to bottom); an
/// earlier frame is FOCAL_VIPS_ERR_ARGUMENT.
focal_vips_status focal_vips_frames_render(focal_vips_frames *frames, int frame, int left, int top, int area_width,
                                           int area_height, int out_width, int out_height, int timeout_ms,
                                           focal_vips_image **out, char *err, size_t errlen);
/// Releases a frame reader; NULL is ignored.
void focal_vips_frames_free(focal_vips_frames *frames);
/// Encodes `count` frames of one size as one animation with `saver` (a format that animates:
/// GIF, WebP): each frame shown `delays[i]` ms, played `loop` times (0: for ever). Alpha is kept
/// only when every frame has it. On success `*bytes` holds `*length` bytes freed with
/// focal_vips_free.
focal_vips_status focal_vips_encode_animation(const focal_vips_image *const *frames, int count, const int *delays,
                                              int loop, const focal_vips_saver *saver, int timeout_ms, void **bytes,
                                              size_t *length, char *err, size_t errlen);
/// Frees memory the shim handed out.
void focal_vips_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
