// focal_vips.h: the C face of Focal's libvips shim. Opaque handles, no variadic functions and no
// libvips type, so that Swift can call every function. Functions that can fail return NULL or -1
// and copy libvips's message into `err` (NUL-terminated, truncated to `errlen`; `err` may be NULL).
#ifndef FOCAL_VIPS_H
#define FOCAL_VIPS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An opened image source (a file, or a private copy of caller bytes) whose header has been read.
typedef struct focal_vips_source focal_vips_source;
/// A lazily evaluated libvips image.
typedef struct focal_vips_image focal_vips_image;

/// What the header says, read without decoding pixels.
typedef struct focal_vips_info {
    int width, height;     ///< After the EXIF orientation is applied.
    int orientation;       ///< EXIF orientation 1...8 (1 when absent).
    int bands;             ///< Bands as stored, alpha included.
    int has_alpha;         ///< 1 when the image has an alpha band.
    char loader[48];       ///< libvips's loader, e.g. "jpegload_source".
} focal_vips_info;

/// Output encodings.
typedef enum focal_vips_format {
    FOCAL_VIPS_JPEG = 0,
    FOCAL_VIPS_PNG = 1,
    FOCAL_VIPS_WEBP = 2,
} focal_vips_format;

/// Starts libvips once (thread safe; later calls return the first result). 0 on success.
int focal_vips_init(char *err, size_t errlen);
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

/// Opens a file and reads its header. NULL with `err` filled when the file is unreadable or not an image.
focal_vips_source *focal_vips_open_file(const char *path, focal_vips_info *info, char *err, size_t errlen);
/// Copies `length` bytes and reads their header. NULL with `err` filled when they are not an image.
focal_vips_source *focal_vips_open_buffer(const void *bytes, size_t length, focal_vips_info *info,
                                          char *err, size_t errlen);
/// Releases a source; NULL is ignored.
void focal_vips_source_free(focal_vips_source *source);

/// Decodes the oriented image scaled to exactly `width` x `height` using shrink-on-load, in sRGB.
/// Truncated or corrupt data is an error.
focal_vips_image *focal_vips_thumbnail(focal_vips_source *source, int width, int height,
                                       char *err, size_t errlen);
/// Decodes the oriented image scaled to `scaled_width` x `scaled_height`, takes the area at
/// (`left`, `top`) of `area_width` x `area_height` in those scaled pixels, and resizes it to exactly
/// `out_width` x `out_height` when it differs. Result in sRGB, 8 bits per band.
focal_vips_image *focal_vips_render(focal_vips_source *source, int scaled_width, int scaled_height,
                                    int left, int top, int area_width, int area_height,
                                    int out_width, int out_height, char *err, size_t errlen);
/// Wraps a copy of an 8-bit interleaved RGB buffer as an image.
focal_vips_image *focal_vips_from_rgb(const unsigned char *rgb, int width, int height,
                                      char *err, size_t errlen);
/// Resizes the image to exactly `width` x `height` (Lanczos 3 when shrinking, bicubic when
/// enlarging). NULL with `err` filled on failure.
focal_vips_image *focal_vips_resize(focal_vips_image *image, int width, int height, char *err, size_t errlen);
/// Releases an image; NULL is ignored.
void focal_vips_image_free(focal_vips_image *image);
/// The image's size.
void focal_vips_image_size(const focal_vips_image *image, int *width, int *height);

/// Computes the image as 8-bit interleaved RGB (alpha flattened on white). On success `*rgb`
/// holds width * height * 3 bytes that the caller frees with focal_vips_free. 0 or -1.
int focal_vips_rgb_pixels(focal_vips_image *image, unsigned char **rgb, size_t *length,
                          char *err, size_t errlen);
/// Encodes the image; metadata is stripped and JPEG flattens alpha on white. `quality` is 1...100
/// (JPEG, WebP). On success `*bytes` holds `*length` bytes freed with focal_vips_free. 0 or -1.
int focal_vips_encode(focal_vips_image *image, focal_vips_format format, int quality,
                      void **bytes, size_t *length, char *err, size_t errlen);
/// Renders `text` as an 8-bit coverage mask `height` pixels tall or so. `*mask` is freed with
/// focal_vips_free. 0 or -1.
int focal_vips_text_mask(const char *text, int height, unsigned char **mask, int *width,
                         int *mask_height, char *err, size_t errlen);
/// Frees memory the shim handed out.
void focal_vips_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
