// ov_library.c: opens OpenVINO's C API with dlopen, once per process (see ov_library.h).
#define FOCAL_OV_LIBRARY_IMPLEMENTATION
#include "ov_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct focal_ov_library focal_ov_library;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int open_status = -1;
static char open_error[512];

static void open_library(void) {
    // RTLD_LOCAL: OpenVINO's symbols stay out of the process's global namespace; RTLD_NOW: a
    // missing symbol fails here, with its name, not at a later call.
    void *handle = dlopen(FOCAL_OV_LIBRARY_NAME, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(open_error, sizeof open_error, "cannot load OpenVINO (%s): %s", FOCAL_OV_LIBRARY_NAME,
                 why ? why : "unknown error");
        return;
    }
#define FOCAL_OV_RESOLVE(name)                                                                               \
    focal_ov_library.name = (__typeof__(name) *)dlsym(handle, #name);                                        \
    if (focal_ov_library.name == NULL) {                                                                     \
        snprintf(open_error, sizeof open_error, "%s lacks %s: not the OpenVINO version Focal was built for", \
                 FOCAL_OV_LIBRARY_NAME, #name);                                                              \
        return;                                                                                              \
    }
    FOCAL_OV_FUNCTIONS(FOCAL_OV_RESOLVE)
    FOCAL_OV_VARIABLES(FOCAL_OV_RESOLVE)
#undef FOCAL_OV_RESOLVE
    // The handle stays open for the life of the process: compiled models and their threads
    // belong to it.
    open_status = 0;
}

int focal_ov_library_open(char *err, size_t errlen) {
    pthread_once(&once, open_library);
    if (open_status != 0 && err != NULL && errlen > 0) snprintf(err, errlen, "%s", open_error);
    return open_status;
}
