#define _GNU_SOURCE  // dladdr
#include "focal_vips.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vips/vips.h>

struct focal_vips_source {
    VipsSource *source;
    /// The bytes the source reads, kept so that an animation's frames can be read through a
    /// source of their own while other decodes rewind this one.
    VipsBlob *blob;
    /// Load options: the fail_on level for this loader (any warning for JPEG: libjpeg reports a
    /// cut or garbled scan only as a warning, then fills in grey; errors for the rest), and the
    /// page picked, if any.
    char options[64];
    /// Degrees anticlockwise (0, 90, 180, 270) the oriented image is turned before anything else.
    int turn;
    /// Whether libvips's JPEG loader reads it (`load_jpeg_shrunk` applies to no other).
    int jpeg;
};

struct focal_vips_image {
    VipsImage *image;
};

// MARK: - Error text and the call lock

/// Every call into libvips holds this lock for reading, so calls run side by side. A call that
/// failed runs again holding it for writing (alone), so that the text it leaves in libvips's
/// process-wide error buffer is its own. Writers are preferred, so a retry is not starved.
///
/// Built with FOCAL_VIPS_SERIALIZE_CALLS (only by the lock benchmark, scripts/lockbench.sh), every
/// call holds it for writing instead and reads its text at once: a plain mutex around every call,
/// for comparison.
static pthread_rwlock_t calls;

/// The longest a retry may run, in milliseconds: the other calls wait while it does, so a slow
/// failing input cannot stall the process for long. A retry that does not finish in time leaves
/// the failure's fixed text.
#define RETRY_MS 1000

/// Copies `text` into err, dropping trailing newlines and truncating to errlen.
static void put_text(char *err, size_t errlen, const char *text) {
    if (err == NULL || errlen == 0) return;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) n--;
    if (n >= errlen) n = errlen - 1;
    memcpy(err, text, n);
    err[n] = '\0';
}

/// Returns FOCAL_VIPS_ERR_ARGUMENT from the entry point it is written in, with "WHAT pointer is
/// NULL" in `err`, when `failed` (an argument pointer the caller must give is NULL).
#define REFUSE_NULL(failed, what)                           \
    do {                                                    \
        if (failed) {                                       \
            put_text(err, errlen, what " pointer is NULL"); \
            return FOCAL_VIPS_ERR_ARGUMENT;                 \
        }                                                   \
    } while (0)

/// One call's body. It returns a status; for a failure it knows itself (a bad argument, a
/// deadline) it points `own` at its fixed text, and the call is not retried.
typedef focal_vips_status (*body_fn)(void *args, const char **own);

static void init_vips(void);
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/// Runs `body` holding the call lock and, when it fails without text of its own, once more alone
/// to read its text. The status is always the first run's (it never depends on the shared buffer);
/// the retry only supplies the text, and only when it fails the same way. `timeout_ms` points at
/// the body's deadline argument (NULL when it has none): the retry gets what is left of it, at
/// most RETRY_MS, so that no call runs past its deadline.
static focal_vips_status guarded(body_fn body, void *args, int *timeout_ms, char *err, size_t errlen,
                                 const char *fallback) {
    // The lock is made by the one-time start-up.
    pthread_once(&init_once, init_vips);
    const char *own = NULL;
#ifdef FOCAL_VIPS_SERIALIZE_CALLS
    // One call at a time: the buffer holds only this call's text, read at once, no retry.
    pthread_rwlock_wrlock(&calls);
    vips_error_clear();
    focal_vips_status alone = body(args, &own);
    if (alone != FOCAL_VIPS_OK) {
        const char *text = vips_error_buffer();
        // clang-format off
        put_text(err, errlen, own != NULL ? own : text != NULL && text[0] != '\0' ? text : fallback);
        // clang-format on
    }
    vips_error_clear();
    pthread_rwlock_unlock(&calls);
    (void)timeout_ms;
    return alone;
#endif
    gint64 started = g_get_monotonic_time();
    pthread_rwlock_rdlock(&calls);
    focal_vips_status status = body(args, &own);
    pthread_rwlock_unlock(&calls);
    if (status == FOCAL_VIPS_OK) return status;
    if (own != NULL) {
        put_text(err, errlen, own);
        return status;
    }
    int retry_ms = RETRY_MS;
    if (timeout_ms != NULL && *timeout_ms > 0) {
        gint64 left = *timeout_ms - (g_get_monotonic_time() - started) / 1000;
        if (left <= 0) {
            put_text(err, errlen, fallback);
            return status;
        }
        if (left < retry_ms) retry_ms = (int)left;
    }
    if (timeout_ms != NULL) *timeout_ms = retry_ms;
    // Run it again alone: the buffer then holds this call's text and nobody else's.
    pthread_rwlock_wrlock(&calls);
    vips_error_clear();
    own = NULL;
    focal_vips_status again = body(args, &own);
    if (again == FOCAL_VIPS_OK) {
        // It failed only in company (memory, a transient error): the result stands.
        status = again;
    } else {
        const char *text = vips_error_buffer();
        put_text(err, errlen, again == status && own == NULL && text != NULL && text[0] != '\0' ? text : fallback);
    }
    vips_error_clear();
    pthread_rwlock_unlock(&calls);
    return status;
}

// MARK: - Modules

/// libvips's modules that hold a loader or saver Focal uses: HEIF and AVIF, and JPEG XL (which
/// Debian's 8.14 blocks as untrusted). libvips would load every module at start, ImageMagick,
/// poppler and OpenSlide too (about 25 ms and 30 libraries a process, for loaders Focal never
/// runs); Focal starts it with none and loads these on the first miss (`load_modules`).
static const char *const wanted_modules[] = {"vips-heif", "vips-jxl", NULL};
/// The folder of libvips's modules, beside the libvips library itself; empty when not found
/// (libvips then loads its modules itself, all of them, as it would without Focal).
static char modules_dir[PATH_MAX];
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static int modules_loaded;

/// Finds the modules folder: `vips-modules-MAJOR.MINOR` beside the libvips library this process
/// runs, if it holds the HEIF module.
static void find_modules_dir(void) {
    Dl_info info;
    char library[PATH_MAX];
    if (dladdr((void *)&vips_init, &info) == 0 || info.dli_fname == NULL || realpath(info.dli_fname, library) == NULL)
        return;
    char *slash = strrchr(library, '/');
    if (slash == NULL) return;
    *slash = '\0';
    char folder[PATH_MAX], heif[PATH_MAX];
    if (snprintf(folder, sizeof folder, "%s/vips-modules-%d.%d", library, vips_version(0), vips_version(1)) >=
            (int)sizeof folder ||
        snprintf(heif, sizeof heif, "%s/vips-heif.so", folder) >= (int)sizeof heif || access(heif, R_OK) != 0)
        return;
    memcpy(modules_dir, folder, sizeof folder);
}

/// Loads the wanted modules, once per process (their loaders then block as libvips says).
/// Returns 1 when they are loaded (by this call or an earlier one: a caller that missed while
/// another thread loaded them looks again), 0 when Focal does not load them (libvips did).
static int load_modules(void) {
    if (modules_dir[0] == '\0') return 0;
    pthread_mutex_lock(&modules_lock);
    if (!modules_loaded) {
        for (const char *const *name = wanted_modules; *name != NULL; name++) {
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s.so", modules_dir, *name) >= (int)sizeof path) continue;
            if (access(path, R_OK) != 0) continue;
            // As libvips loads them: g_module_open runs the module's g_module_check_init, which
            // registers its classes and makes it resident. A module that fails is left out.
            (void)g_module_open(path, G_MODULE_BIND_LAZY);
        }
        vips_block_untrusted_set(TRUE);
        // JPEG XL's savers write Focal's own pixels, never a client's bytes: they may run (its
        // loader, which reads them, stays blocked).
        vips_operation_block_set("VipsForeignSaveJxl", FALSE);
        modules_loaded = 1;
    }
    pthread_mutex_unlock(&modules_lock);
    return 1;
}

/// The loader for `source`, looking again after loading the wanted modules on a miss.
static const char *find_loader(VipsSource *source) {
    const char *loader = vips_foreign_find_load_source(source);
    if (loader == NULL && load_modules()) {
        vips_error_clear();
        if (vips_source_rewind(source) != 0) return NULL;
        loader = vips_foreign_find_load_source(source);
    }
    return loader;
}

// MARK: - Start-up

static focal_vips_status init_result = FOCAL_VIPS_ERR_INTERNAL;
static char init_error[256];

static void init_vips(void) {
    pthread_rwlockattr_t attributes;
    pthread_rwlockattr_init(&attributes);
#ifdef __GLIBC__
    pthread_rwlockattr_setkind_np(&attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
    pthread_rwlock_init(&calls, &attributes);
    pthread_rwlockattr_destroy(&attributes);
    // Decode problems are reported as errors to the caller; libvips's own warnings on stderr
    // would only repeat them. A caller's VIPS_WARNING setting is kept.
    g_setenv("VIPS_WARNING", "0", FALSE);
    // No modules at start (see wanted_modules): libvips looks for them under VIPSHOME, which
    // points at /dev/null (under which nothing can be created) while it starts, then is put back.
    find_modules_dir();
    char *home = NULL;
    if (modules_dir[0] != '\0') {
        const char *given = g_getenv("VIPSHOME");
        home = given ? g_strdup(given) : NULL;
        g_setenv("VIPSHOME", "/dev/null", TRUE);
    }
    const int started = VIPS_INIT("focal");
    if (modules_dir[0] != '\0') {
        if (home)
            g_setenv("VIPSHOME", home, TRUE);
        else
            g_unsetenv("VIPSHOME");
        g_free(home);
    }
    if (started != 0) {
        const char *text = vips_error_buffer();
        put_text(init_error, sizeof init_error, text && text[0] ? text : "libvips failed to start");
        vips_error_clear();
        init_result = FOCAL_VIPS_ERR_INTERNAL;
        return;
    }
    // Loaders that libvips marks as unsafe for untrusted input (ImageMagick, MATLAB, ...) stay off.
    vips_block_untrusted_set(TRUE);
    // Until Vips.configure says otherwise: no operation cache (a cached load keeps its decoder,
    // and so a progressive JPEG's coefficients, alive after the call) and one thread per call.
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    init_result = FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_init(char *err, size_t errlen) {
    pthread_once(&init_once, init_vips);
    if (init_result != FOCAL_VIPS_OK) put_text(err, errlen, init_error);
    return init_result;
}

void focal_vips_set_concurrency(int threads) { vips_concurrency_set(threads < 1 ? 1 : threads); }
void focal_vips_set_cache_max(int operations) { vips_cache_set_max(operations < 0 ? 0 : operations); }
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

// MARK: - Checks

static int side_ok(int value) { return value > 0 && value <= FOCAL_VIPS_MAX_SIDE; }

/// Whether a `width` x `height` area at (`left`, `top`) lies inside a `w` x `h` image. Computed
/// in 64 bits so that nothing overflows.
static int area_inside(int left, int top, int width, int height, int w, int h) {
    return left >= 0 && top >= 0 && side_ok(width) && side_ok(height) &&
           (int64_t)left + width <= (int64_t)w && (int64_t)top + height <= (int64_t)h;
}

// MARK: - Opening

/// The loaders Focal accepts, by the name libvips gives their source loader.
// clang-format off
static const char *const allowed_loaders[] = {
    "jpegload_source", "pngload_source", "webpload_source", "gifload_source",
    "tiffload_source", "heifload_source", "jxlload_source", NULL,
};
// clang-format on

/// Whether the loader class `type` is missing (0) or blocked: libvips finds blocked loaders by
/// their signature but refuses to run them.
static int loader_blocked(GType type) {
    if (type == 0) return 1;
    VipsOperationClass *operation = g_type_class_ref(type);
    int blocked = operation == NULL || (operation->flags & VIPS_OPERATION_BLOCKED) != 0;
    if (operation != NULL) g_type_class_unref(operation);
    return blocked;
}

/// Whether a loader (named by its class, "VipsForeignLoadPngSource", or its nickname) is allowed:
/// on Focal's list and not blocked by libvips.
static int loader_allowed(const char *loader) {
    GType type = g_type_from_name(loader);
    if (type == 0) type = vips_type_find("VipsOperation", loader);
    if (loader_blocked(type)) return 0;
    const char *nickname = type != 0 ? vips_nickname_find(type) : NULL;
    if (nickname == NULL) nickname = loader;
    for (int i = 0; allowed_loaders[i] != NULL; i++)
        if (strcmp(nickname, allowed_loaders[i]) == 0) return 1;
    return 0;
}

struct open_args {
    VipsSource *source;
    int page, turn;
    char options[64];
    focal_vips_info *info;
};

static focal_vips_status open_body(void *raw, const char **own) {
    struct open_args *a = raw;
    if (vips_source_rewind(a->source) != 0) return FOCAL_VIPS_ERR_INTERNAL;
    const char *loader = find_loader(a->source);
    if (loader == NULL) {
        *own = "no image loader recognises these bytes";
        return FOCAL_VIPS_ERR_NOT_IMAGE;
    }
    if (!loader_allowed(loader)) {
        *own = "a format Focal does not accept";
        strncpy(a->info->loader, loader, sizeof a->info->loader - 1);
        return FOCAL_VIPS_ERR_UNSUPPORTED;
    }
    const char *fail_on =
        strstr(loader, "Jpeg") != NULL || strstr(loader, "jpeg") != NULL ? "fail_on=warning" : "fail_on=error";
    snprintf(a->options, sizeof a->options, "%s", fail_on);
    VipsImage *header = vips_image_new_from_source(a->source, a->options, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (header == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    int file_pages = 1;
    if (vips_image_get_typeof(header, VIPS_META_N_PAGES) != 0 &&
        vips_image_get_int(header, VIPS_META_N_PAGES, &file_pages) != 0)
        file_pages = 1;
    if (a->page > 0 && a->page < file_pages) {
        // One page alone: its own header (a TIFF's pages may differ in size).
        g_object_unref(header);
        snprintf(a->options, sizeof a->options, "%s,page=%d", fail_on, a->page);
        if (vips_source_rewind(a->source) != 0) return FOCAL_VIPS_ERR_INTERNAL;
        header = vips_image_new_from_source(a->source, a->options, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
        if (header == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    }
    focal_vips_info *info = a->info;
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
    int pages = file_pages, interlaced = 0;
    if (vips_image_get_typeof(header, "interlaced") != 0 && vips_image_get_int(header, "interlaced", &interlaced) != 0)
        interlaced = 0;
    info->orientation = orientation;
    // A quarter turn, by the EXIF orientation or by the caller's turn, swaps the sides; two cancel.
    int swapped = (orientation >= 5) != (a->turn == 90 || a->turn == 270);
    info->width = swapped ? height : width;
    info->height = swapped ? width : height;
    info->bands = vips_image_get_bands(header);
    info->bits = (int)vips_format_sizeof(vips_image_get_format(header)) * 8;
    info->has_alpha = vips_image_hasalpha(header) ? 1 : 0;
    info->interlaced = interlaced ? 1 : 0;
    info->pages = pages > 0 ? pages : 1;
    info->cmyk = vips_image_get_interpretation(header) == VIPS_INTERPRETATION_CMYK ? 1 : 0;
    const char *chroma = NULL;
    if (vips_image_get_typeof(header, "jpeg-chroma-subsample") != 0 &&
        vips_image_get_string(header, "jpeg-chroma-subsample", &chroma) == 0 && chroma != NULL)
        put_text(info->chroma, sizeof info->chroma, chroma);
    strncpy(info->loader, loader, sizeof info->loader - 1);
    info->loader[sizeof info->loader - 1] = '\0';
    g_object_unref(header);
    if (!side_ok(width) || !side_ok(height)) {
        *own = "the header claims a width or height beyond 10000000 pixels";
        return FOCAL_VIPS_ERR_CORRUPT;
    }
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_open(const void *bytes, size_t length, int page, int turn, focal_vips_source **out,
                                  focal_vips_info *info, char *err, size_t errlen) {
    if (out == NULL || info == NULL) {
        put_text(err, errlen, "output pointers are NULL");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    if (page < 0 || (turn != 0 && turn != 90 && turn != 180 && turn != 270)) {
        put_text(err, errlen, "page or turn out of range");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    *out = NULL;
    memset(info, 0, sizeof *info);
    if (bytes == NULL || length == 0) {
        put_text(err, errlen, "no bytes");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    // libvips keeps reading the memory it is given, so it gets a copy that it owns.
    VipsBlob *blob = vips_blob_copy(bytes, length);
    VipsSource *source = vips_source_new_from_blob(blob);
    if (source == NULL) {
        vips_area_unref(VIPS_AREA(blob));
        put_text(err, errlen, "cannot wrap the bytes");
        vips_error_clear();
        return FOCAL_VIPS_ERR_INTERNAL;
    }
    struct open_args a = {source, page, turn, "", info};
    focal_vips_status status = guarded(open_body, &a, NULL, err, errlen, "unreadable image header");
    if (status != FOCAL_VIPS_OK) {
        g_object_unref(source);
        vips_area_unref(VIPS_AREA(blob));
        return status;
    }
    focal_vips_source *handle = g_new0(focal_vips_source, 1);
    handle->source = source;
    handle->blob = blob;
    memcpy(handle->options, a.options, sizeof handle->options);
    handle->turn = turn;
    handle->jpeg = strcmp(info->loader, "jpegload_source") == 0;
    *out = handle;
    return FOCAL_VIPS_OK;
}

struct identify_args {
    VipsSource *source;
    char *loader;
    size_t loaderlen;
};

static focal_vips_status identify_body(void *raw, const char **own) {
    struct identify_args *a = raw;
    if (vips_source_rewind(a->source) != 0) return FOCAL_VIPS_ERR_INTERNAL;
    const char *loader = find_loader(a->source);
    if (loader == NULL) {
        *own = "no image loader recognises these bytes";
        return FOCAL_VIPS_ERR_NOT_IMAGE;
    }
    GType type = g_type_from_name(loader);
    const char *nickname = type != 0 ? vips_nickname_find(type) : NULL;
    put_text(a->loader, a->loaderlen, nickname != NULL ? nickname : loader);
    if (!loader_allowed(loader)) {
        *own = "a format Focal does not accept";
        return FOCAL_VIPS_ERR_UNSUPPORTED;
    }
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_identify(const void *bytes, size_t length, char *loader, size_t loaderlen, char *err,
                                      size_t errlen) {
    if (loader != NULL && loaderlen > 0) loader[0] = '\0';
    if (bytes == NULL || length == 0) {
        put_text(err, errlen, "no bytes");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    pthread_once(&init_once, init_vips);
    if (init_result != FOCAL_VIPS_OK) {
        put_text(err, errlen, init_error);
        return init_result;
    }
    VipsBlob *blob = vips_blob_copy(bytes, length);
    VipsSource *source = vips_source_new_from_blob(blob);
    vips_area_unref(VIPS_AREA(blob));
    if (source == NULL) {
        put_text(err, errlen, "cannot wrap the bytes");
        return FOCAL_VIPS_ERR_INTERNAL;
    }
    struct identify_args a = {source, loader, loaderlen};
    focal_vips_status status = guarded(identify_body, &a, NULL, err, errlen, "no image loader recognises these bytes");
    g_object_unref(source);
    return status;
}

int focal_vips_loader_usable(const char *nickname) {
    if (nickname == NULL) return 0;
    pthread_once(&init_once, init_vips);
    if (init_result != FOCAL_VIPS_OK) return 0;
    if (vips_type_find("VipsOperation", nickname) == 0) load_modules();
    return !loader_blocked(vips_type_find("VipsOperation", nickname));
}

void focal_vips_source_free(focal_vips_source *source) {
    if (source == NULL) return;
    g_object_unref(source->source);
    vips_area_unref(VIPS_AREA(source->blob));
    g_free(source);
}

// MARK: - Decoding

static focal_vips_image *wrap(VipsImage *image) {
    focal_vips_image *handle = g_new0(focal_vips_image, 1);
    handle->image = image;
    return handle;
}

/// Converts to 8-bit sRGB (keeping alpha), consuming `in`. NULL on failure.
static VipsImage *to_srgb8(VipsImage *in) {
    VipsImage *srgb = NULL;
    int failed = vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(in);
    if (failed) return NULL;
    if (vips_image_get_bands(srgb) > 4) {
        // Colour, alpha and more (a TIFF may declare hundreds of extra samples): only the colour
        // is kept, so that every later step sees RGB or RGBA.
        VipsImage *colour = NULL;
        failed = vips_extract_band(srgb, &colour, 0, "n", 3, NULL);
        g_object_unref(srgb);
        if (failed) return NULL;
        srgb = colour;
    }
    if (vips_image_get_format(srgb) == VIPS_FORMAT_UCHAR) return srgb;
    VipsImage *cast = NULL;
    failed = vips_cast(srgb, &cast, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(srgb);
    return failed ? NULL : cast;
}

/// A deadline for one computation, checked as libvips reports progress.
typedef struct deadline {
    // clang-format off
    gint64 at;        ///< g_get_monotonic_time() microseconds; 0 for none.
    // clang-format on
    int expired;
} deadline;

static deadline deadline_in(int timeout_ms) {
    deadline d = {0, 0};
    if (timeout_ms > 0) d.at = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    return d;
}

static void on_eval(VipsImage *image, VipsProgress *progress, void *user) {
    (void)progress;
    deadline *d = user;
    if (d->at != 0 && g_get_monotonic_time() > d->at) {
        d->expired = 1;
        vips_image_set_kill(image, TRUE);
    }
}

/// Computes `image` into memory (consuming it), so that the result no longer reads the source:
/// it can be used many times and from any thread. Stops when the deadline passes. NULL on failure.
static VipsImage *materialised(VipsImage *image, deadline *d) {
    gulong handler = 0;
    if (d != NULL && d->at != 0) {
        vips_image_set_progress(image, TRUE);
        handler = g_signal_connect(image, "eval", G_CALLBACK(on_eval), d);
    }
    VipsImage *memory = vips_image_copy_memory(image);
    if (handler != 0) g_signal_handler_disconnect(image, handler);
    g_object_unref(image);
    return memory;
}

/// A decode stopped by its deadline before any pixel was handed on.
static focal_vips_status timed_out(const char **own) {
    *own = "decoding passed its deadline and was stopped";
    return FOCAL_VIPS_ERR_TIMEOUT;
}

/// Computes `image` into memory (consuming it) as `*out`: FOCAL_VIPS_ERR_TIMEOUT with
/// `timeout_text` in `*own` when the deadline stopped it, else FOCAL_VIPS_ERR_CORRUPT when it
/// failed (a decoder's error surfaces here).
static focal_vips_status into_memory(VipsImage *image, deadline *d, const char *timeout_text, focal_vips_image **out,
                                     const char **own) {
    VipsImage *memory = materialised(image, d);
    if (memory == NULL) {
        if (d->expired) {
            *own = timeout_text;
            return FOCAL_VIPS_ERR_TIMEOUT;
        }
        return FOCAL_VIPS_ERR_CORRUPT;
    }
    *out = wrap(memory);
    return FOCAL_VIPS_OK;
}

/// libvips's angle for a turn of `degrees` anticlockwise.
static VipsAngle turn_angle(int degrees) {
    return degrees == 90 ? VIPS_ANGLE_D270 : degrees == 180 ? VIPS_ANGLE_D180
                                         : degrees == 270   ? VIPS_ANGLE_D90
                                                            : VIPS_ANGLE_D0;
}

/// Turns `in` `degrees` anticlockwise (consuming it); NULL on failure. Turning reads the image
/// out of order, so it is computed into memory first (within the deadline `d`).
static VipsImage *turned(VipsImage *in, int degrees, deadline *d) {
    if (degrees == 0) return in;
    VipsImage *memory = materialised(in, d);
    if (memory == NULL) return NULL;
    VipsImage *out = NULL;
    int failed = vips_rot(memory, &out, turn_angle(degrees), NULL);
    g_object_unref(memory);
    return failed ? NULL : out;
}

/// Maps an area of an image turned `degrees` anticlockwise to the same pixels of the image as
/// stored, `width` x `height`.
static void unturned_area(int degrees, int width, int height, int *left, int *top, int *area_width, int *area_height) {
    int l = *left, t = *top, w = *area_width, h = *area_height;
    switch (degrees) {
    case 90:  // (x, y) was turned to (y, width - 1 - x)
        *left = width - t - h, *top = l, *area_width = h, *area_height = w;
        break;
    case 180:
        *left = width - l - w, *top = height - t - h;
        break;
    case 270:  // (x, y) was turned to (height - 1 - y, x)
        *left = t, *top = height - l - w, *area_width = h, *area_height = w;
        break;
    default:
        break;
    }
}

/// Loads and scales the oriented image, not yet turned, to the size whose turn is exactly
/// width x height (the sides swapped for a quarter turn); NULL on failure. Lazy: a caller cuts
/// what it needs and turns only that (`turned`), so no more than the output is held turned.
static VipsImage *load_scaled(focal_vips_source *source, int width, int height) {
    VipsImage *out = NULL;
    if (vips_source_rewind(source->source) != 0) return NULL;
    int quarter = source->turn == 90 || source->turn == 270;
    if (vips_thumbnail_source(source->source, &out, quarter ? height : width, "height", quarter ? width : height,
                              "size", VIPS_SIZE_FORCE, "option_string", source->options, NULL) != 0) {
        return NULL;
    }
    return out;
}

struct thumbnail_args {
    focal_vips_source *source;
    int width, height, timeout_ms;
    focal_vips_image **out;
};

static VipsImage *crop_and_resize(VipsImage *in, int left, int top, int area_width, int area_height, int out_width,
                                  int out_height);

/// A JPEG that needs no colour management (no ICC profile; 8-bit sRGB or grey) loaded at the
/// largest DCT shrink (1/4 or 1/8) that still holds the size wanted, then resized to it
/// (Lanczos 3), and oriented by its EXIF tag: as `load_scaled`, for a working copy's decode (which
/// also gives the outputs it holds enough pixels for, and the overlays' images; the results' key
/// schema changed with it). libvips's thumbnail takes a shrink of k only when the image is 2k
/// times the size wanted, to keep a final reduction of two for sharpness; a Lanczos reduction of
/// up to two after the DCT's block average is sharp enough for a crop and a detector's copy,
/// and a 12 MP photo then decodes to 512 px from a quarter of its sides instead of a half (about
/// 28 ms instead of 42 on one core). NULL with `*tried` 0 when it does not apply (the caller takes
/// `load_scaled`); NULL with `*tried` 1 when it failed.
static VipsImage *load_jpeg_shrunk(focal_vips_source *source, int width, int height, deadline *d, int *tried) {
    *tried = 0;
    // Any other format keeps libvips's path, without a second parse of its header.
    if (!source->jpeg || vips_source_rewind(source->source) != 0) return NULL;
    VipsImage *header = vips_image_new_from_source(source->source, source->options, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (header == NULL) {
        vips_error_clear();
        return NULL;
    }
    const char *loader = NULL;
    int orientation = 1;
    if (vips_image_get_typeof(header, VIPS_META_ORIENTATION) != 0 &&
        vips_image_get_int(header, VIPS_META_ORIENTATION, &orientation) != 0)
        orientation = 1;
    VipsInterpretation kind = vips_image_get_interpretation(header);
    int plain = vips_image_get_typeof(header, VIPS_META_LOADER) != 0 &&
                vips_image_get_string(header, VIPS_META_LOADER, &loader) == 0 && loader != NULL &&
                strcmp(loader, "jpegload_source") == 0 && vips_image_get_typeof(header, VIPS_META_ICC_NAME) == 0 &&
                vips_image_get_format(header) == VIPS_FORMAT_UCHAR &&
                ((vips_image_get_bands(header) == 3 && kind == VIPS_INTERPRETATION_sRGB) ||
                 (vips_image_get_bands(header) == 1 && kind == VIPS_INTERPRETATION_B_W));
    int stored_width = vips_image_get_width(header), stored_height = vips_image_get_height(header);
    g_object_unref(header);
    if (!plain || orientation < 1 || orientation > 8) return NULL;
    // The size wanted, oriented and not yet turned, then as stored (EXIF 5 to 8 swap the sides).
    int quarter = source->turn == 90 || source->turn == 270;
    int oriented_width = quarter ? height : width, oriented_height = quarter ? width : height;
    int swap = orientation >= 5;
    int want_width = swap ? oriented_height : oriented_width, want_height = swap ? oriented_width : oriented_height;
    // A shrink of 4 or 8 only, where most of the time goes (libvips's own is half of it there);
    // a decode 2 to 4 times the size wanted stays libvips's, whole, as the converted models'
    // reference boxes were measured on.
    // Each side at least k times the one wanted, so that the shrunk image (a side over k,
    // rounded either way) is never smaller than it: a 1 x 1 JPEG is no candidate.
    int shrink = 1;
    for (int k = 8; k >= 4 && shrink == 1; k /= 2)
        if (want_width >= 1 && want_height >= 1 && stored_width / k >= want_width && stored_height / k >= want_height)
            shrink = k;
    if (shrink == 1 || vips_source_rewind(source->source) != 0) return NULL;
    *tried = 1;
    VipsImage *loaded = vips_image_new_from_source(source->source, source->options, "access", VIPS_ACCESS_SEQUENTIAL,
                                                   "shrink", shrink, NULL);
    if (loaded == NULL) return NULL;
    int w = vips_image_get_width(loaded), h = vips_image_get_height(loaded);
    if (w < want_width || h < want_height) {
        // Not what the header promised: libvips's own path decides.
        g_object_unref(loaded);
        *tried = 0;
        return NULL;
    }
    VipsImage *sized = crop_and_resize(loaded, 0, 0, w, h, want_width, want_height);
    g_object_unref(loaded);
    if (sized == NULL || orientation == 1) return sized;
    // Turned upright from memory: a rotation reads its input out of order.
    VipsImage *memory = materialised(sized, d);
    if (memory == NULL) return NULL;
    VipsImage *upright = NULL;
    int failed = vips_autorot(memory, &upright, NULL);
    g_object_unref(memory);
    return failed ? NULL : upright;
}

static focal_vips_status thumbnail_body(void *raw, const char **own) {
    struct thumbnail_args *a = raw;
    deadline d = deadline_in(a->timeout_ms);
    int tried = 0;
    VipsImage *scaled = load_jpeg_shrunk(a->source, a->width, a->height, &d, &tried);
    if (scaled == NULL && tried) return d.expired ? timed_out(own) : FOCAL_VIPS_ERR_CORRUPT;
    if (scaled == NULL) scaled = load_scaled(a->source, a->width, a->height);
    if (scaled == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    VipsImage *srgb = to_srgb8(scaled);
    if (srgb != NULL) srgb = turned(srgb, a->source->turn, &d);
    if (srgb == NULL) return d.expired ? timed_out(own) : FOCAL_VIPS_ERR_CORRUPT;
    return into_memory(srgb, &d, "decoding passed its deadline and was stopped", a->out, own);
}

focal_vips_status focal_vips_thumbnail(focal_vips_source *source, int width, int height, int timeout_ms,
                                       focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(out == NULL || source == NULL, "source or output");
    *out = NULL;
    if (!side_ok(width) || !side_ok(height) || timeout_ms < 0) {
        put_text(err, errlen, "thumbnail size out of range");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    struct thumbnail_args a = {source, width, height, timeout_ms, out};
    return guarded(thumbnail_body, &a, &a.timeout_ms, err, errlen, "cannot decode the image");
}

/// Extracts an area of `in` and resizes it (Lanczos 3) to out_width x out_height when it differs;
/// does not consume `in`. NULL on failure.
static VipsImage *crop_and_resize(VipsImage *in, int left, int top, int area_width, int area_height,
                                  int out_width, int out_height) {
    VipsImage *area = NULL;
    if (vips_extract_area(in, &area, left, top, area_width, area_height, NULL) != 0) return NULL;
    if (area_width == out_width && area_height == out_height) return area;
    VipsImage *resized = NULL;
    double hscale = (double)out_width / area_width, vscale = (double)out_height / area_height;
    int failed = vips_resize(area, &resized, hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
    g_object_unref(area);
    if (failed) return NULL;
    // vips_resize rounds; make the size exact.
    if (vips_image_get_width(resized) != out_width || vips_image_get_height(resized) != out_height) {
        VipsImage *exact = NULL;
        failed = vips_embed(resized, &exact, 0, 0, out_width, out_height, "extend", VIPS_EXTEND_COPY, NULL);
        g_object_unref(resized);
        if (failed) return NULL;
        resized = exact;
    }
    return resized;
}

struct render_args {
    focal_vips_source *source;
    int scaled_width, scaled_height, left, top, area_width, area_height, out_width, out_height, timeout_ms;
    focal_vips_image **out;
};

/// The source decoded at `scaled_width` × `scaled_height`, the area cut out and resized to the
/// output, as 8-bit sRGB, into `*out`. Lazy: the pixels are computed when they are read, so a
/// decoder's error surfaces then.
static focal_vips_status crop_pipeline(focal_vips_source *source, int scaled_width, int scaled_height, int left,
                                       int top, int area_width, int area_height, int out_width, int out_height,
                                       deadline *d, VipsImage **out, const char **own) {
    VipsImage *scaled = load_scaled(source, scaled_width, scaled_height);
    if (scaled == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    int quarter = source->turn == 90 || source->turn == 270;
    int width = vips_image_get_width(scaled), height = vips_image_get_height(scaled);
    if (!area_inside(left, top, area_width, area_height, quarter ? height : width, quarter ? width : height)) {
        g_object_unref(scaled);
        *own = "the crop lies outside the decoded image";
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    // The area of the turned image is cut from the image as loaded, then only it is turned.
    unturned_area(source->turn, width, height, &left, &top, &area_width, &area_height);
    VipsImage *cropped = crop_and_resize(scaled, left, top, area_width, area_height, quarter ? out_height : out_width,
                                         quarter ? out_width : out_height);
    g_object_unref(scaled);
    if (cropped == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    VipsImage *srgb = to_srgb8(cropped);
    if (srgb != NULL) srgb = turned(srgb, source->turn, d);
    if (srgb == NULL) return d->expired ? timed_out(own) : FOCAL_VIPS_ERR_CORRUPT;
    *out = srgb;
    return FOCAL_VIPS_OK;
}

static focal_vips_status render_body(void *raw, const char **own) {
    struct render_args *a = raw;
    deadline d = deadline_in(a->timeout_ms);
    VipsImage *srgb = NULL;
    focal_vips_status status = crop_pipeline(a->source, a->scaled_width, a->scaled_height, a->left, a->top,
                                             a->area_width, a->area_height, a->out_width, a->out_height, &d, &srgb, own);
    if (status != FOCAL_VIPS_OK) return status;
    return into_memory(srgb, &d, "rendering passed its deadline and was stopped", a->out, own);
}

focal_vips_status focal_vips_render(focal_vips_source *source, int scaled_width, int scaled_height,
                                    int left, int top, int area_width, int area_height,
                                    int out_width, int out_height, int timeout_ms,
                                    focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(out == NULL || source == NULL, "source or output");
    *out = NULL;
    if (!side_ok(scaled_width) || !side_ok(scaled_height) || !side_ok(out_width) || !side_ok(out_height) ||
        !area_inside(left, top, area_width, area_height, scaled_width, scaled_height) || timeout_ms < 0) {
        put_text(err, errlen, "render geometry out of range");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    struct render_args a = {source, scaled_width, scaled_height, left, top, area_width, area_height,
                            out_width, out_height, timeout_ms, out};
    return guarded(render_body, &a, &a.timeout_ms, err, errlen, "cannot decode the image");
}

/// What save_to_buffer answers for a format that has no saver.
#define SAVE_UNKNOWN (-2)
static int save_to_buffer(VipsImage *image, const focal_vips_saver *saver, void **bytes, size_t *length);

struct render_encode_args {
    focal_vips_source *source;
    int scaled_width, scaled_height, left, top, out_width, out_height;
    const focal_vips_saver *saver;
    int timeout_ms;
    void **bytes;
    size_t *length;
};

static focal_vips_status render_encode_body(void *raw, const char **own) {
    struct render_encode_args *a = raw;
    deadline d = deadline_in(a->timeout_ms);
    VipsImage *srgb = NULL;
    focal_vips_status status = crop_pipeline(a->source, a->scaled_width, a->scaled_height, a->left, a->top,
                                             a->out_width, a->out_height, a->out_width, a->out_height, &d, &srgb,
                                             own);
    if (status != FOCAL_VIPS_OK) return status;
    // Decoding runs as the encoder pulls rows, so a decoder's error surfaces here: with the sizes
    // checked before, a failure to save is the input's (or its deadline's).
    gulong handler = 0;
    if (d.at != 0) {
        vips_image_set_progress(srgb, TRUE);
        handler = g_signal_connect(srgb, "eval", G_CALLBACK(on_eval), &d);
    }
    int failed = save_to_buffer(srgb, a->saver, a->bytes, a->length);
    if (handler != 0) g_signal_handler_disconnect(srgb, handler);
    g_object_unref(srgb);
    if (!failed) return FOCAL_VIPS_OK;
    if (failed == SAVE_UNKNOWN) {
        *own = "no libvips saver for the output format";
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    if (*a->bytes != NULL) {
        g_free(*a->bytes);
        *a->bytes = NULL;
        *a->length = 0;
    }
    if (d.expired) {
        *own = "rendering passed its deadline and was stopped";
        return FOCAL_VIPS_ERR_TIMEOUT;
    }
    return FOCAL_VIPS_ERR_CORRUPT;
}

focal_vips_status focal_vips_render_encode(focal_vips_source *source, int scaled_width, int scaled_height, int left,
                                           int top, int out_width, int out_height, const focal_vips_saver *saver,
                                           int timeout_ms, void **bytes, size_t *length, char *err, size_t errlen) {
    REFUSE_NULL(source == NULL || saver == NULL || saver->format == NULL || bytes == NULL || length == NULL, "source, saver or output");
    *bytes = NULL;
    *length = 0;
    if (!side_ok(scaled_width) || !side_ok(scaled_height) || !side_ok(out_width) || !side_ok(out_height) ||
        !area_inside(left, top, out_width, out_height, scaled_width, scaled_height) || timeout_ms < 0) {
        put_text(err, errlen, "render geometry out of range");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    // The format's limits and options are the caller's (Swift's FormatDescriptor, EncodeSettings);
    // an unknown saver fails in save_to_buffer.
    struct render_encode_args a = {source, scaled_width, scaled_height, left, top, out_width, out_height,
                                   saver, timeout_ms, bytes, length};
    return guarded(render_encode_body, &a, &a.timeout_ms, err, errlen, "cannot decode the image");
}

struct crop_resize_args {
    const focal_vips_image *image;
    int left, top, area_width, area_height, out_width, out_height;
    focal_vips_image **out;
};

static focal_vips_status crop_resize_body(void *raw, const char **own) {
    (void)own;
    struct crop_resize_args *a = raw;
    VipsImage *cropped = crop_and_resize(a->image->image, a->left, a->top, a->area_width, a->area_height,
                                         a->out_width, a->out_height);
    if (cropped == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *memory = materialised(cropped, NULL);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    *a->out = wrap(memory);
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_crop_resize(const focal_vips_image *image, int left, int top, int area_width,
                                         int area_height, int out_width, int out_height,
                                         focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(out == NULL || image == NULL, "image or output");
    *out = NULL;
    if (!side_ok(out_width) || !side_ok(out_height) ||
        !area_inside(left, top, area_width, area_height, vips_image_get_width(image->image),
                     vips_image_get_height(image->image))) {
        put_text(err, errlen, "crop geometry out of range");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    struct crop_resize_args a = {image, left, top, area_width, area_height, out_width, out_height, out};
    return guarded(crop_resize_body, &a, NULL, err, errlen, "cannot crop the image");
}

/// Wraps a copy of 8-bit pixels of `bands` bands (3: RGB, 4: RGBA) as an sRGB image.
static focal_vips_status from_pixels(const unsigned char *pixels, size_t length, int width, int height, int bands,
                                     focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(out == NULL || pixels == NULL, "pixel or output");
    *out = NULL;
    if (!side_ok(width) || !side_ok(height) || (uint64_t)width * (uint64_t)height * (uint64_t)bands != (uint64_t)length) {
        put_text(err, errlen, "pixel buffer length does not match width * height * bands");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image == NULL) {
        const char *text = vips_error_buffer();
        put_text(err, errlen, text && text[0] ? text : "cannot wrap pixels");
        vips_error_clear();
        return FOCAL_VIPS_ERR_INTERNAL;
    }
    image->Type = VIPS_INTERPRETATION_sRGB;
    *out = wrap(image);
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_from_rgb(const unsigned char *rgb, size_t length, int width, int height,
                                      focal_vips_image **out, char *err, size_t errlen) {
    return from_pixels(rgb, length, width, height, 3, out, err, errlen);
}

struct resize_args {
    const focal_vips_image *image;
    int width, height;
    focal_vips_image **out;
};

static focal_vips_status resize_body(void *raw, const char **own) {
    (void)own;
    struct resize_args *a = raw;
    int w = vips_image_get_width(a->image->image), h = vips_image_get_height(a->image->image);
    VipsImage *resized = crop_and_resize(a->image->image, 0, 0, w, h, a->width, a->height);
    if (resized == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *memory = materialised(resized, NULL);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    *a->out = wrap(memory);
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_resize(const focal_vips_image *image, int width, int height,
                                    focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(out == NULL || image == NULL, "image or output");
    *out = NULL;
    if (!side_ok(width) || !side_ok(height)) {
        put_text(err, errlen, "resize size out of range");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    struct resize_args a = {image, width, height, out};
    return guarded(resize_body, &a, NULL, err, errlen, "cannot resize the image");
}

struct flip_args {
    const focal_vips_image *image;
    int horizontal, vertical;
    focal_vips_image **out;
};

static focal_vips_status flip_body(void *raw, const char **own) {
    (void)own;
    struct flip_args *a = raw;
    VipsImage *current = a->image->image;
    g_object_ref(current);
    if (a->horizontal) {
        VipsImage *flipped = NULL;
        int failed = vips_flip(current, &flipped, VIPS_DIRECTION_HORIZONTAL, NULL);
        g_object_unref(current);
        if (failed) return FOCAL_VIPS_ERR_INTERNAL;
        current = flipped;
    }
    if (a->vertical) {
        VipsImage *flipped = NULL;
        int failed = vips_flip(current, &flipped, VIPS_DIRECTION_VERTICAL, NULL);
        g_object_unref(current);
        if (failed) return FOCAL_VIPS_ERR_INTERNAL;
        current = flipped;
    }
    VipsImage *memory = materialised(current, NULL);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    *a->out = wrap(memory);
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_flip(const focal_vips_image *image, int horizontal, int vertical,
                                  focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(out == NULL || image == NULL, "image or output");
    *out = NULL;
    struct flip_args a = {image, horizontal != 0, vertical != 0, out};
    return guarded(flip_body, &a, NULL, err, errlen, "cannot flip the image");
}

struct flatten_args {
    const focal_vips_image *image;
    double background[3];
    focal_vips_image **out;
};

static focal_vips_status flatten_body(void *raw, const char **own) {
    (void)own;
    struct flatten_args *a = raw;
    VipsImage *in = a->image->image;
    if (!vips_image_hasalpha(in)) {
        g_object_ref(in);
        *a->out = wrap(in);
        return FOCAL_VIPS_OK;
    }
    VipsArrayDouble *background = vips_array_double_new(a->background, 3);
    VipsImage *flat = NULL;
    int failed = vips_flatten(in, &flat, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *memory = materialised(flat, NULL);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    *a->out = wrap(memory);
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_flatten_on(const focal_vips_image *image, int red, int green, int blue,
                                        focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(out == NULL || image == NULL, "image or output");
    *out = NULL;
    struct flatten_args a = {image, {red, green, blue}, out};
    return guarded(flatten_body, &a, NULL, err, errlen, "cannot flatten the image");
}

struct rotate_args {
    const focal_vips_image *image;
    int quarters;
    focal_vips_image **out;
};

static focal_vips_status rotate_body(void *raw, const char **own) {
    (void)own;
    struct rotate_args *a = raw;
    static const VipsAngle angles[4] = {VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270};
    VipsImage *rotated = NULL;
    if (vips_rot(a->image->image, &rotated, angles[a->quarters], NULL)) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *memory = materialised(rotated, NULL);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    *a->out = wrap(memory);
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_rotate(const focal_vips_image *image, int quarter_turns, focal_vips_image **out,
                                    char *err, size_t errlen) {
    if (out == NULL || image == NULL || quarter_turns < 0 || quarter_turns > 3) {
        put_text(err, errlen, "image or output pointer is NULL, or the turn is not 0 to 3 quarters");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    *out = NULL;
    struct rotate_args a = {image, quarter_turns, out};
    return guarded(rotate_body, &a, NULL, err, errlen, "cannot rotate the image");
}

/// `image` (consumed) cast to 8 bits a sample and computed into memory, as `*out`.
static focal_vips_status as_bytes_in_memory(VipsImage *image, focal_vips_image **out) {
    VipsImage *bytes = NULL;
    int failed = vips_cast(image, &bytes, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(image);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *memory = materialised(bytes, NULL);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    *out = wrap(memory);
    return FOCAL_VIPS_OK;
}

struct hue_args {
    const focal_vips_image *image;
    double degrees;
    focal_vips_image **out;
};

static focal_vips_status hue_body(void *raw, const char **own) {
    (void)own;
    struct hue_args *a = raw;
    VipsImage *lch = NULL;
    if (vips_colourspace(a->image->image, &lch, VIPS_INTERPRETATION_LCH, NULL)) return FOCAL_VIPS_ERR_INTERNAL;
    // L, C and alpha as they are; h (degrees) moved.
    double times[4] = {1, 1, 1, 1}, plus[4] = {0, 0, a->degrees, 0};
    int bands = vips_image_get_bands(lch);
    if (bands > 4) bands = 4;
    VipsImage *moved = NULL;
    int failed = vips_linear(lch, &moved, times, plus, bands, NULL);
    g_object_unref(lch);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *srgb = NULL;
    failed = vips_colourspace(moved, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(moved);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    return as_bytes_in_memory(srgb, a->out);
}

focal_vips_status focal_vips_hue(const focal_vips_image *image, double degrees, focal_vips_image **out, char *err,
                                 size_t errlen) {
    if (out == NULL || image == NULL || !(degrees >= -360 && degrees <= 360)) {
        put_text(err, errlen, "image or output pointer is NULL, or the angle is not -360 to 360");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    *out = NULL;
    struct hue_args a = {image, degrees, out};
    return guarded(hue_body, &a, NULL, err, errlen, "cannot turn the hue");
}

focal_vips_status focal_vips_from_rgba(const unsigned char *rgba, size_t length, int width, int height,
                                       focal_vips_image **out, char *err, size_t errlen) {
    return from_pixels(rgba, length, width, height, 4, out, err, errlen);
}

struct convolve_args {
    const focal_vips_image *image;
    const double *matrix;
    int columns, rows, separable;
    focal_vips_image **out;
};

static focal_vips_status convolve_body(void *raw, const char **own) {
    (void)own;
    struct convolve_args *a = raw;
    VipsImage *mask = vips_image_new_matrix_from_array(a->columns, a->rows, a->matrix, a->columns * a->rows);
    if (mask == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *convolved = NULL;
    int failed = a->separable ? vips_convsep(a->image->image, &convolved, mask, "precision", VIPS_PRECISION_FLOAT, NULL)
                              : vips_conv(a->image->image, &convolved, mask, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(mask);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    return as_bytes_in_memory(convolved, a->out);
}

focal_vips_status focal_vips_convolve(const focal_vips_image *image, const double *matrix, int columns, int rows,
                                      int separable, focal_vips_image **out, char *err, size_t errlen) {
    if (out == NULL || image == NULL || matrix == NULL || columns < 1 || rows < 1 || columns > 512 || rows > 512 ||
        (separable && rows != 1)) {
        put_text(err, errlen, "image, matrix or output pointer is NULL, or the matrix is not 1 to 512 a side");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    *out = NULL;
    struct convolve_args a = {image, matrix, columns, rows, separable != 0, out};
    return guarded(convolve_body, &a, NULL, err, errlen, "cannot convolve the image");
}

void focal_vips_image_free(focal_vips_image *image) {
    if (image == NULL) return;
    g_object_unref(image->image);
    g_free(image);
}

void focal_vips_image_size(const focal_vips_image *image, int *width, int *height) {
    if (width != NULL) *width = image != NULL ? vips_image_get_width(image->image) : 0;
    if (height != NULL) *height = image != NULL ? vips_image_get_height(image->image) : 0;
}

int focal_vips_image_has_alpha(const focal_vips_image *image) {
    return image != NULL && vips_image_hasalpha(image->image) ? 1 : 0;
}

// MARK: - Pixels and encoding

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

struct pixels_args {
    const focal_vips_image *image;
    unsigned char **rgb;
    size_t *length;
};

static focal_vips_status pixels_body(void *raw, const char **own) {
    struct pixels_args *a = raw;
    VipsImage *flat = flattened(a->image->image);
    if (flat == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *three = NULL;
    int bands = vips_image_get_bands(flat);
    if (bands == 3) {
        three = flat;
    } else if (bands == 1) {
        // Grey is widened to three equal bands.
        VipsImage *copies[3] = {flat, flat, flat};
        int failed = vips_bandjoin(copies, &three, 3, NULL);
        g_object_unref(flat);
        if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    } else {
        g_object_unref(flat);
        *own = "unexpected band count";
        return FOCAL_VIPS_ERR_INTERNAL;
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(three, &size);
    int width = vips_image_get_width(three), height = vips_image_get_height(three);
    g_object_unref(three);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    if ((uint64_t)size != (uint64_t)width * (uint64_t)height * 3u) {
        g_free(memory);
        *own = "decoded pixel count does not match the image size";
        return FOCAL_VIPS_ERR_INTERNAL;
    }
    *a->rgb = memory;
    *a->length = size;
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_rgb_pixels(const focal_vips_image *image, unsigned char **rgb, size_t *length,
                                        char *err, size_t errlen) {
    REFUSE_NULL(image == NULL || rgb == NULL || length == NULL, "image or output");
    *rgb = NULL;
    *length = 0;
    struct pixels_args a = {image, rgb, length};
    return guarded(pixels_body, &a, NULL, err, errlen, "cannot read the pixels");
}

static focal_vips_status rgba_body(void *raw, const char **own) {
    struct pixels_args *a = raw;
    VipsImage *in = a->image->image, *srgb = NULL, *four = NULL, *bytes = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) return FOCAL_VIPS_ERR_INTERNAL;
    int failed = vips_image_hasalpha(srgb) ? vips_copy(srgb, &four, NULL) : vips_addalpha(srgb, &four, NULL);
    g_object_unref(srgb);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    failed = vips_cast(four, &bytes, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(four);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    if (vips_image_get_bands(bytes) != 4) {
        g_object_unref(bytes);
        *own = "unexpected band count";
        return FOCAL_VIPS_ERR_INTERNAL;
    }
    size_t size = 0;
    void *memory = vips_image_write_to_memory(bytes, &size);
    int width = vips_image_get_width(bytes), height = vips_image_get_height(bytes);
    g_object_unref(bytes);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    if ((uint64_t)size != (uint64_t)width * (uint64_t)height * 4u) {
        g_free(memory);
        *own = "decoded pixel count does not match the image size";
        return FOCAL_VIPS_ERR_INTERNAL;
    }
    *a->rgb = memory;
    *a->length = size;
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_rgba_pixels(const focal_vips_image *image, unsigned char **rgba, size_t *length,
                                         char *err, size_t errlen) {
    REFUSE_NULL(image == NULL || rgba == NULL || length == NULL, "image or output");
    *rgba = NULL;
    *length = 0;
    struct pixels_args a = {image, rgba, length};
    return guarded(rgba_body, &a, NULL, err, errlen, "cannot read the pixels");
}

struct encode_args {
    const focal_vips_image *image;
    const focal_vips_saver *saver;
    void **bytes;
    size_t *length;
};

/// A copy of `image` without any metadata field. libvips 8.14's webpsave and heifsave ignore
/// "strip" and rebuild EXIF from the exif-* fields. NULL on failure.
static VipsImage *without_metadata(VipsImage *image) {
    VipsImage *bare = NULL;
    if (vips_copy(image, &bare, NULL) != 0) return NULL;
    gchar **fields = vips_image_get_fields(bare);
    for (int i = 0; fields[i] != NULL; i++) {
        const char *f = fields[i];
        if (g_str_has_prefix(f, "exif-") || g_str_has_prefix(f, "xmp-") || g_str_has_prefix(f, "iptc-") ||
            strcmp(f, VIPS_META_ICC_NAME) == 0 || strcmp(f, VIPS_META_ORIENTATION) == 0)
            vips_image_remove(bare, f);
    }
    g_strfreev(fields);
    return bare;
}

/// Encodes `image` (not consumed) with `saver`: metadata removed, alpha flattened on white when
/// it asks. 0 on success, -1 when the saver failed, SAVE_UNKNOWN when libvips has no saver for it.
static int save_to_buffer(VipsImage *image, const focal_vips_saver *saver, void **bytes, size_t *length) {
    if (vips_foreign_find_save_buffer(saver->format) == NULL) {
        vips_error_clear();
        if (!load_modules() || vips_foreign_find_save_buffer(saver->format) == NULL) {
            vips_error_clear();
            return SAVE_UNKNOWN;
        }
    }
    VipsImage *bare = without_metadata(image);
    if (bare == NULL) return -1;
    VipsImage *ready = saver->flatten ? flattened(bare) : bare;
    if (saver->flatten) g_object_unref(bare);
    if (ready == NULL) return -1;
    int failed = vips_image_write_to_buffer(ready, saver->format, bytes, length, NULL);
    g_object_unref(ready);
    return failed;
}

static focal_vips_status encode_body(void *raw, const char **own) {
    struct encode_args *a = raw;
    int failed = save_to_buffer(a->image->image, a->saver, a->bytes, a->length);
    if (failed == SAVE_UNKNOWN) {
        *own = "no libvips saver for the output format";
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    return failed ? FOCAL_VIPS_ERR_ENCODE : FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_encode(const focal_vips_image *image, const focal_vips_saver *saver, void **bytes,
                                    size_t *length, char *err, size_t errlen) {
    REFUSE_NULL(image == NULL || saver == NULL || saver->format == NULL || bytes == NULL || length == NULL, "image, saver or output");
    *bytes = NULL;
    *length = 0;
    struct encode_args a = {image, saver, bytes, length};
    return guarded(encode_body, &a, NULL, err, errlen, "cannot encode the image");
}

struct text_args {
    const char *text;
    const char *family;
    int points;
    unsigned char **mask;
    int *width, *mask_height;
};

static focal_vips_status text_body(void *raw, const char **own) {
    (void)own;
    struct text_args *a = raw;
    VipsImage *rendered = NULL;
    // libvips sizes text in points at a given DPI; 72 dpi makes points pixels.
    char font[96];
    snprintf(font, sizeof font, "%s %d", a->family != NULL ? a->family : "sans", a->points);
    // vips_text reads Pango markup: escape the caller's plain text.
    char *escaped = g_markup_escape_text(a->text, -1);
    int failed = vips_text(&rendered, escaped, "font", font, "dpi", 72, NULL);
    g_free(escaped);
    if (failed != 0) return FOCAL_VIPS_ERR_INTERNAL;
    size_t size = 0;
    void *memory = vips_image_write_to_memory(rendered, &size);
    *a->width = vips_image_get_width(rendered);
    *a->mask_height = vips_image_get_height(rendered);
    g_object_unref(rendered);
    if (memory == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    *a->mask = memory;
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_text_mask(const char *text, const char *family, int points, unsigned char **mask,
                                       int *width, int *mask_height, char *err, size_t errlen) {
    REFUSE_NULL(text == NULL || mask == NULL || width == NULL || mask_height == NULL, "text or output");
    *mask = NULL;
    *width = *mask_height = 0;
    if (points < 1 || points > 1000) {
        put_text(err, errlen, "the text size must be between 1 and 1000 points");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    if (family != NULL && (family[0] == '\0' || strlen(family) > 64)) {
        put_text(err, errlen, "the font family must be 1 to 64 characters");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    struct text_args a = {text, family, points, mask, width, mask_height};
    return guarded(text_body, &a, NULL, err, errlen, "cannot render text");
}

void focal_vips_free(void *pointer) { g_free(pointer); }

// MARK: - Animations

struct animation_args {
    focal_vips_source *source;
    focal_vips_animation *info;
    int *delays;
    int max_delays;
};

static focal_vips_status animation_body(void *raw, const char **own) {
    struct animation_args *a = raw;
    if (vips_source_rewind(a->source->source) != 0) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *header = vips_image_new_from_source(a->source->source, a->source->options, "n", -1, "access",
                                                   VIPS_ACCESS_SEQUENTIAL, NULL);
    if (header == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    int width = vips_image_get_width(header), height = vips_image_get_height(header);
    int page_height = vips_image_get_page_height(header);
    int pages = 1;
    if (vips_image_get_typeof(header, VIPS_META_N_PAGES) != 0 &&
        vips_image_get_int(header, VIPS_META_N_PAGES, &pages) != 0)
        pages = 1;
    int loop = 0;
    if (vips_image_get_typeof(header, "loop") != 0 && vips_image_get_int(header, "loop", &loop) != 0) loop = 0;
    int *delays = NULL, count = 0;
    if (vips_image_get_typeof(header, "delay") != 0 && vips_image_get_array_int(header, "delay", &delays, &count) != 0) {
        delays = NULL;
        count = 0;
    }
    for (int i = 0; i < a->max_delays; i++) a->delays[i] = i < count && delays != NULL ? delays[i] : -1;
    g_object_unref(header);
    if (page_height <= 0 || page_height > height || pages < 1 || (int64_t)page_height * pages != height) {
        // Frames of different sizes: libvips loads only the first.
        pages = 1;
        page_height = height;
    }
    a->info->frames = pages;
    // Frames of a turned image are turned alike.
    int quarter = a->source->turn == 90 || a->source->turn == 270;
    a->info->width = quarter ? page_height : width;
    a->info->frame_height = quarter ? width : page_height;
    a->info->loop = loop < 0 ? 0 : loop;
    if (!side_ok(width) || !side_ok(page_height)) {
        *own = "the header claims a frame beyond 10000000 pixels a side";
        return FOCAL_VIPS_ERR_CORRUPT;
    }
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_animation_info(focal_vips_source *source, focal_vips_animation *info, int *delays,
                                            int max_delays, char *err, size_t errlen) {
    REFUSE_NULL(source == NULL || info == NULL || (delays == NULL && max_delays > 0) || max_delays < 0, "source or output");
    memset(info, 0, sizeof *info);
    struct animation_args a = {source, info, delays, max_delays};
    return guarded(animation_body, &a, NULL, err, errlen, "unreadable animation header");
}

struct focal_vips_frames {
    VipsSource *source;
    VipsImage *all;  ///< Every frame, one above the next, read once from top to bottom.
    int width, frame_height, frames, next;
    int turn;  ///< Degrees anticlockwise each frame is turned (the source's turn).
};

struct frames_open_args {
    focal_vips_source *source;
    int frames;
    focal_vips_frames **out;
};

static focal_vips_status frames_open_body(void *raw, const char **own) {
    struct frames_open_args *a = raw;
    VipsSource *source = vips_source_new_from_blob(a->source->blob);
    if (source == NULL) return FOCAL_VIPS_ERR_INTERNAL;
    // The first `frames` pages: all of them, or the first few a request keeps (max_frames).
    VipsImage *all = vips_image_new_from_source(source, a->source->options, "n", a->frames, "access",
                                                VIPS_ACCESS_SEQUENTIAL, NULL);
    if (all == NULL) {
        g_object_unref(source);
        return FOCAL_VIPS_ERR_CORRUPT;
    }
    int page_height = vips_image_get_page_height(all);
    if (page_height <= 0 || (int64_t)page_height * a->frames != vips_image_get_height(all)) {
        g_object_unref(all);
        g_object_unref(source);
        *own = "the frames are not the size the header said";
        return FOCAL_VIPS_ERR_CORRUPT;
    }
    focal_vips_frames *frames = g_new0(focal_vips_frames, 1);
    frames->source = source;
    frames->all = all;
    frames->width = vips_image_get_width(all);
    frames->frame_height = page_height;
    frames->frames = a->frames;
    frames->turn = a->source->turn;
    *a->out = frames;
    return FOCAL_VIPS_OK;
}

focal_vips_status focal_vips_frames_open(focal_vips_source *source, int frames, focal_vips_frames **out, char *err,
                                         size_t errlen) {
    if (source == NULL || out == NULL || frames < 1) {
        put_text(err, errlen, "source or output pointer is NULL, or no frames");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    *out = NULL;
    struct frames_open_args a = {source, frames, out};
    return guarded(frames_open_body, &a, NULL, err, errlen, "cannot read the animation");
}

struct frames_render_args {
    focal_vips_frames *frames;
    int frame, left, top, area_width, area_height, out_width, out_height, timeout_ms;
    focal_vips_image **out;
};

static focal_vips_status frames_render_body(void *raw, const char **own) {
    struct frames_render_args *a = raw;
    focal_vips_frames *f = a->frames;
    if (a->frame < f->next) {
        *own = "frames are read in order, each at most once";
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    deadline d = deadline_in(a->timeout_ms);
    // The area is the turned frame's: the same pixels of the frame as stored, then turned.
    int left = a->left, top = a->top, area_width = a->area_width, area_height = a->area_height;
    int out_width = a->out_width, out_height = a->out_height;
    unturned_area(f->turn, f->width, f->frame_height, &left, &top, &area_width, &area_height);
    if (f->turn == 90 || f->turn == 270) {
        out_width = a->out_height;
        out_height = a->out_width;
    }
    VipsImage *cropped = crop_and_resize(f->all, left, a->frame * f->frame_height + top, area_width, area_height,
                                         out_width, out_height);
    if (cropped != NULL && f->turn != 0) {
        // Turning decodes the frame now: the reader moves past it whatever comes of it, and a
        // failure is not run again (the reader would fail otherwise).
        f->next = a->frame + 1;
        cropped = turned(cropped, f->turn, &d);
        if (cropped == NULL) {
            if (d.expired) return timed_out(own);
            *own = "a frame of the animation could not be decoded";
            return FOCAL_VIPS_ERR_CORRUPT;
        }
    }
    if (cropped == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    VipsImage *srgb = to_srgb8(cropped);
    if (srgb == NULL) return FOCAL_VIPS_ERR_CORRUPT;
    // The frames before it are read past now, whatever comes of this one.
    f->next = a->frame + 1;
    focal_vips_status status = into_memory(srgb, &d, "decoding passed its deadline and was stopped", a->out, own);
    // Not run again to read libvips's text: the reader has moved on, and would fail otherwise.
    if (status == FOCAL_VIPS_ERR_CORRUPT) *own = "a frame of the animation could not be decoded";
    return status;
}

focal_vips_status focal_vips_frames_render(focal_vips_frames *frames, int frame, int left, int top, int area_width,
                                           int area_height, int out_width, int out_height, int timeout_ms,
                                           focal_vips_image **out, char *err, size_t errlen) {
    REFUSE_NULL(frames == NULL || out == NULL, "frames or output");
    *out = NULL;
    int quarter = frames->turn == 90 || frames->turn == 270;
    int turned_width = quarter ? frames->frame_height : frames->width;
    int turned_height = quarter ? frames->width : frames->frame_height;
    if (frame < 0 || frame >= frames->frames || !side_ok(out_width) || !side_ok(out_height) || timeout_ms < 0 ||
        !area_inside(left, top, area_width, area_height, turned_width, turned_height)) {
        put_text(err, errlen, "frame geometry out of range");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    struct frames_render_args a = {frames, frame, left, top, area_width, area_height, out_width, out_height,
                                   timeout_ms, out};
    return guarded(frames_render_body, &a, &a.timeout_ms, err, errlen, "cannot decode the frame");
}

void focal_vips_frames_free(focal_vips_frames *frames) {
    if (frames == NULL) return;
    g_object_unref(frames->all);
    g_object_unref(frames->source);
    g_free(frames);
}

struct encode_animation_args {
    const focal_vips_image *const *frames;
    int count;
    const int *delays;
    int loop;
    const focal_vips_saver *saver;
    int timeout_ms;
    void **bytes;
    size_t *length;
};

static focal_vips_status encode_animation_body(void *raw, const char **own) {
    struct encode_animation_args *a = raw;
    int width = vips_image_get_width(a->frames[0]->image), height = vips_image_get_height(a->frames[0]->image);
    int alpha = 1;
    for (int i = 0; i < a->count; i++) {
        VipsImage *frame = a->frames[i]->image;
        if (vips_image_get_width(frame) != width || vips_image_get_height(frame) != height) {
            *own = "the frames differ in size";
            return FOCAL_VIPS_ERR_ARGUMENT;
        }
        if (!vips_image_hasalpha(frame)) alpha = 0;
    }
    // One band layout for all: alpha only when every frame has it (a redacted frame is RGB).
    VipsImage **parts = g_new0(VipsImage *, a->count);
    int failed = 0;
    for (int i = 0; i < a->count && !failed; i++) {
        VipsImage *frame = a->frames[i]->image;
        if (alpha || !vips_image_hasalpha(frame)) {
            g_object_ref(frame);
            parts[i] = frame;
        } else {
            parts[i] = flattened(frame);
            failed = parts[i] == NULL;
        }
    }
    VipsImage *joined = NULL;
    if (!failed) failed = vips_arrayjoin(parts, &joined, a->count, "across", 1, NULL) != 0;
    for (int i = 0; i < a->count; i++)
        if (parts[i] != NULL) g_object_unref(parts[i]);
    g_free(parts);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    VipsImage *animated = NULL;
    failed = vips_copy(joined, &animated, NULL) != 0;
    g_object_unref(joined);
    if (failed) return FOCAL_VIPS_ERR_INTERNAL;
    vips_image_set_int(animated, VIPS_META_PAGE_HEIGHT, height);
    vips_image_set_int(animated, VIPS_META_N_PAGES, a->count);
    vips_image_set_array_int(animated, "delay", a->delays, a->count);
    vips_image_set_int(animated, "loop", a->loop);
    deadline d = deadline_in(a->timeout_ms);
    gulong handler = 0;
    if (d.at != 0) {
        vips_image_set_progress(animated, TRUE);
        handler = g_signal_connect(animated, "eval", G_CALLBACK(on_eval), &d);
    }
    int saved = save_to_buffer(animated, a->saver, a->bytes, a->length);
    if (handler != 0) g_signal_handler_disconnect(animated, handler);
    g_object_unref(animated);
    if (!saved) return FOCAL_VIPS_OK;
    if (*a->bytes != NULL) {
        g_free(*a->bytes);
        *a->bytes = NULL;
        *a->length = 0;
    }
    if (saved == SAVE_UNKNOWN) {
        *own = "no libvips saver for the output format";
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    if (d.expired) {
        *own = "encoding passed its deadline and was stopped";
        return FOCAL_VIPS_ERR_TIMEOUT;
    }
    return FOCAL_VIPS_ERR_ENCODE;
}

focal_vips_status focal_vips_encode_animation(const focal_vips_image *const *frames, int count, const int *delays,
                                              int loop, const focal_vips_saver *saver, int timeout_ms, void **bytes,
                                              size_t *length, char *err, size_t errlen) {
    REFUSE_NULL(frames == NULL || delays == NULL || saver == NULL || saver->format == NULL || bytes == NULL || length == NULL,
                "frames, saver or output");
    *bytes = NULL;
    *length = 0;
    if (count < 1 || loop < 0 || timeout_ms < 0) {
        put_text(err, errlen, "no frames, or a negative loop count");
        return FOCAL_VIPS_ERR_ARGUMENT;
    }
    for (int i = 0; i < count; i++) {
        if (frames[i] == NULL || delays[i] < 0) {
            put_text(err, errlen, "a frame is NULL or its delay negative");
            return FOCAL_VIPS_ERR_ARGUMENT;
        }
    }
    struct encode_animation_args a = {frames, count, delays, loop, saver, timeout_ms, bytes, length};
    return guarded(encode_animation_body, &a, &a.timeout_ms, err, errlen, "cannot encode the animation");
}
