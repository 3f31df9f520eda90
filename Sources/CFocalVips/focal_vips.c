#include "focal_vips.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>

struct focal_vips_source {
    VipsSource *source;
};

struct focal_vips_image {
    VipsImage *image;
};

/// Copies libvips's pending error text (or `fallback`) into err and clears it.
static void take_error(char *err, size_t errlen, const char *fallback) {
    const char *text = vips_error_buffer();
    if (err != NULL && errlen > 0) {
        const char *message = (text != NULL && text[0] != '\0') ? text : fallback;
        size_t n = strlen(message);
        // libvips ends each message with a newline; drop the last one.
        while (n > 0 && message[n - 1] == '\n') n--;
        if (n >= errlen) n = errlen - 1;
        memcpy(err, message, n);
        err[n] = '\0';
    }
    vips_error_clear();
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;
static char init_error[256];

static void init_vips(void) {
    // Decode problems are reported as errors to the caller; libvips's own warnings on stderr
    // would only repeat them. A caller's VIPS_WARNING setting is kept.
    g_setenv("VIPS_WARNING", "0", FALSE);
    if (VIPS_INIT("focal") != 0) {
        take_error(init_error, sizeof init_error, "libvips failed to start");
        init_result = -1;
        return;
    }
    // Loaders that libvips marks as unsafe for untrusted input (ImageMagick, MATLAB, ...) stay off.
    vips_block_untrusted_set(TRUE);
    init_result = 0;
}

int focal_vips_init(char *err, size_t errlen) {
    pthread_once(&init_once, init_vips);
    if (init_result != 0 && err != NULL && errlen > 0) {
        strncpy(err, init_error, errlen - 1);
        err[errlen - 1] = '\0';
    }
    return init_result;
}

void focal_vips_set_concurrency(int threads) { vips_concurrency_set(threads); }
void focal_vips_set_cache_max(int operations) { vips_cache_set_max(operations); }
void focal_vips_leak_set(int on) { vips_leak_set(on ? TRUE : FALSE); }

static void *count_object(void *object, void *a, void *b) {
    (void)object;
    (void)b;
    (*(int *)a)++;
    return NULL;
}

int focal_vips_objects_alive(void) {
    int count = 0;
    vips_object_map(count_object, &count, NULL);
    return count;
}

int focal_vips_tracked_allocs(void) { return vips_tracked_get_allocs(); }

/// Reads the header behind `source` into info; 0 or -1.
static int read_header(VipsSource *source, focal_vips_info *info, char *err, size_t errlen) {
    const char *loader = vips_foreign_find_load_source(source);
    if (loader == NULL) {
        vips_error_clear();
        take_error(err, errlen, "not a known image format");
        return -1;
    }
    VipsImage *header = vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (header == NULL) {
        take_error(err, errlen, "unreadable image header");
        return -1;
    }
    int orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION) != 0 &&
        vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation) != 0) {
        orientation = 1;
    }
    if (orientation < 1 || orientation > 8) orientation = 1;
    int width = vips_image_get_width(header), height = vips_image_get_height(header);
    // libvips reports the height of all pages for some multi-page loaders; use one page.
    int page_height = vips_image_get_page_height(header);
    if (page_height > 0 && page_height < height) height = page_height;
    info->orientation = orientation;
    info->width = orientation >= 5 ? height : width;
    info->height = orientation >= 5 ? width : height;
    info->bands = vips_image_get_bands(header);
    info->has_alpha = vips_image_hasalpha(header) ? 1 : 0;
    strncpy(info->loader, loader, sizeof info->loader - 1);
    info->loader[sizeof info->loader - 1] = '\0';
    g_object_unref(header);
    return 0;
}

static focal_vips_source *open_source(VipsSource *source, focal_vips_info *info, char *err, size_t errlen) {
    if (read_header(source, info, err, errlen) != 0) {
        g_object_unref(source);
        return NULL;
    }
    focal_vips_source *handle = g_new0(focal_vips_source, 1);
    handle->source = source;
    return handle;
}

focal_vips_source *focal_vips_open_file(const char *path, focal_vips_info *info, char *err, size_t errlen) {
    VipsSource *source = vips_source_new_from_file(path);
    if (source == NULL) {
        take_error(err, errlen, "cannot open file");
        return NULL;
    }
    return open_source(source, info, err, errlen);
}

focal_vips_source *focal_vips_open_buffer(const void *bytes, size_t length, focal_vips_info *info,
                                          char *err, size_t errlen) {
    if (length == 0) {
        take_error(err, errlen, "no bytes");
        return NULL;
    }
    // libvips keeps reading the memory it is given, so it gets a copy that it owns.
    VipsBlob *blob = vips_blob_copy(bytes, length);
    VipsSource *source = vips_source_new_from_blob(blob);
    vips_area_unref(VIPS_AREA(blob));
    if (source == NULL) {
        take_error(err, errlen, "cannot read bytes");
        return NULL;
    }
    return open_source(source, info, err, errlen);
}

void focal_vips_source_free(focal_vips_source *source) {
    if (source == NULL) return;
    g_object_unref(source->source);
    g_free(source);
}

static focal_vips_image *wrap(VipsImage *image) {
    focal_vips_image *handle = g_new0(focal_vips_image, 1);
    handle->image = image;
    return handle;
}

/// Converts to 8-bit sRGB (keeping alpha), consuming `in`.
static VipsImage *to_srgb8(VipsImage *in) {
    VipsImage *srgb = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL) != 0) {
        g_object_unref(in);
        return NULL;
    }
    g_object_unref(in);
    if (vips_image_get_format(srgb) == VIPS_FORMAT_UCHAR) return srgb;
    VipsImage *cast = NULL;
    int failed = vips_cast(srgb, &cast, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(srgb);
    return failed ? NULL : cast;
}

/// Loads and scales the oriented image to exactly width x height; NULL on failure.
static VipsImage *load_scaled(focal_vips_source *source, int width, int height) {
    VipsImage *out = NULL;
    if (vips_source_rewind(source->source) != 0) return NULL;
    if (vips_thumbnail_source(source->source, &out, width, "height", height, "size", VIPS_SIZE_FORCE,
                              "option_string", "fail_on=truncated", NULL) != 0) {
        return NULL;
    }
    return out;
}


/// Computes `image` into memory (consuming it), so that the result no longer reads the source:
/// it can be used many times and from any thread. NULL on failure.
static VipsImage *materialised(VipsImage *image) {
    VipsImage *memory = vips_image_copy_memory(image);
    g_object_unref(image);
    return memory;
}

focal_vips_image *focal_vips_thumbnail(focal_vips_source *source, int width, int height,
                                       char *err, size_t errlen) {
    VipsImage *scaled = load_scaled(source, width, height);
    VipsImage *srgb = scaled ? to_srgb8(scaled) : NULL;
    if (srgb != NULL) srgb = materialised(srgb);
    if (srgb == NULL) {
        take_error(err, errlen, "cannot decode image");
        return NULL;
    }
    return wrap(srgb);
}

focal_vips_image *focal_vips_render(focal_vips_source *source, int scaled_width, int scaled_height,
                                    int left, int top, int area_width, int area_height,
                                    int out_width, int out_height, char *err, size_t errlen) {
    VipsImage *scaled = load_scaled(source, scaled_width, scaled_height);
    if (scaled == NULL) {
        take_error(err, errlen, "cannot decode image");
        return NULL;
    }
    VipsImage *area = NULL;
    int failed = vips_extract_area(scaled, &area, left, top, area_width, area_height, NULL);
    g_object_unref(scaled);
    if (failed) {
        take_error(err, errlen, "crop outside the image");
        return NULL;
    }
    if (area_width != out_width || area_height != out_height) {
        VipsImage *resized = NULL;
        double hscale = (double)out_width / area_width, vscale = (double)out_height / area_height;
        failed = vips_resize(area, &resized, hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
        g_object_unref(area);
        if (failed) {
            take_error(err, errlen, "cannot resize");
            return NULL;
        }
        area = resized;
    }
    VipsImage *srgb = to_srgb8(area);
    if (srgb != NULL) srgb = materialised(srgb);
    if (srgb == NULL) {
        take_error(err, errlen, "cannot decode image");
        return NULL;
    }
    return wrap(srgb);
}

focal_vips_image *focal_vips_from_rgb(const unsigned char *rgb, int width, int height,
                                      char *err, size_t errlen) {
    VipsImage *image = vips_image_new_from_memory_copy(rgb, (size_t)width * height * 3, width, height,
                                                       3, VIPS_FORMAT_UCHAR);
    if (image == NULL) {
        take_error(err, errlen, "cannot wrap pixels");
        return NULL;
    }
    image->Type = VIPS_INTERPRETATION_sRGB;
    return wrap(image);
}

focal_vips_image *focal_vips_resize(focal_vips_image *image, int width, int height, char *err, size_t errlen) {
    double hscale = (double)width / vips_image_get_width(image->image);
    double vscale = (double)height / vips_image_get_height(image->image);
    VipsImage *out = NULL;
    if (vips_resize(image->image, &out, hscale, "vscale", vscale, NULL) != 0) {
        take_error(err, errlen, "cannot resize");
        return NULL;
    }
    return wrap(out);
}

void focal_vips_image_free(focal_vips_image *image) {
    if (image == NULL) return;
    g_object_unref(image->image);
    g_free(image);
}

void focal_vips_image_size(const focal_vips_image *image, int *width, int *height) {
    *width = vips_image_get_width(image->image);
    *height = vips_image_get_height(image->image);
}

/// The image without alpha, flattened on white, as a new reference; NULL on failure.
static VipsImage *flattened(VipsImage *image) {
    if (!vips_image_hasalpha(image)) {
        g_object_ref(image);
        return image;
    }
    VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
    VipsImage *out = NULL;
    int failed = vips_flatten(image, &out, "background", white, NULL);
    vips_area_unref(VIPS_AREA(white));
    return failed ? NULL : out;
}

int focal_vips_rgb_pixels(focal_vips_image *image, unsigned char **rgb, size_t *length,
                          char *err, size_t errlen) {
    VipsImage *flat = flattened(image->image);
    VipsImage *three = NULL;
    if (flat == NULL) {
        take_error(err, errlen, "cannot flatten alpha");
        return -1;
    }
    if (vips_image_get_bands(flat) == 3) {
        three = flat;
    } else {
        // 8-bit sRGB with alpha removed has 3 bands; anything else (grey) is widened.
        int failed = vips_bandjoin_const1(flat, &three, 0, NULL);
        g_object_unref(flat);
        if (failed) {
            take_error(err, errlen, "unexpected band count");
            return -1;
        }
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(three, &size);
    g_object_unref(three);
    if (memory == NULL) {
        take_error(err, errlen, "cannot decode pixels");
        return -1;
    }
    *rgb = memory;
    *length = size;
    return 0;
}

int focal_vips_encode(focal_vips_image *image, focal_vips_format format, int quality,
                      void **bytes, size_t *length, char *err, size_t errlen) {
    int failed = -1;
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    switch (format) {
    case FOCAL_VIPS_JPEG: {
        VipsImage *flat = flattened(image->image);
        if (flat == NULL) break;
        failed = vips_jpegsave_buffer(flat, bytes, length, "Q", quality, "strip", TRUE,
                                      "optimize_coding", TRUE, NULL);
        g_object_unref(flat);
        break;
    }
    case FOCAL_VIPS_PNG:
        failed = vips_pngsave_buffer(image->image, bytes, length, "compression", 6, "strip", TRUE, NULL);
        break;
    case FOCAL_VIPS_WEBP: {
        // libvips 8.14's webpsave ignores "strip" and rebuilds EXIF from the exif-* fields:
        // save a copy without any metadata field.
        VipsImage *bare = NULL;
        if (vips_copy(image->image, &bare, NULL) != 0) break;
        gchar **fields = vips_image_get_fields(bare);
        for (int i = 0; fields[i] != NULL; i++) {
            const char *f = fields[i];
            if (g_str_has_prefix(f, "exif-") || g_str_has_prefix(f, "xmp-") || g_str_has_prefix(f, "iptc-") ||
                strcmp(f, VIPS_META_ICC_NAME) == 0 || strcmp(f, VIPS_META_ORIENTATION) == 0)
                vips_image_remove(bare, f);
        }
        g_strfreev(fields);
        failed = vips_webpsave_buffer(bare, bytes, length, "Q", quality, "strip", TRUE, NULL);
        g_object_unref(bare);
        break;
    }
    }
    if (failed) {
        take_error(err, errlen, "cannot encode image");
        return -1;
    }
    return 0;
}

int focal_vips_text_mask(const char *text, int height, unsigned char **mask, int *width,
                         int *mask_height, char *err, size_t errlen) {
    VipsImage *rendered = NULL;
    // libvips sizes text in points at a given DPI; 72 dpi makes points pixels.
    char font[32];
    snprintf(font, sizeof font, "sans %d", height > 4 ? height * 3 / 4 : 3);
    // vips_text reads Pango markup: escape the caller's plain text.
    char *escaped = g_markup_escape_text(text, -1);
    int failed = vips_text(&rendered, escaped, "font", font, "dpi", 72, NULL);
    g_free(escaped);
    if (failed != 0) {
        take_error(err, errlen, "cannot render text");
        return -1;
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(rendered, &size);
    *width = vips_image_get_width(rendered);
    *mask_height = vips_image_get_height(rendered);
    g_object_unref(rendered);
    if (memory == NULL) {
        take_error(err, errlen, "cannot render text");
        return -1;
    }
    *mask = memory;
    return 0;
}

void focal_vips_free(void *pointer) { g_free(pointer); }
