// The libvips shim's call lock, measured: decodes per second of a set of files on N threads.
// scripts/lockbench.sh builds this twice against Sources/CFocalVips/focal_vips.c: as shipped (a
// reader-writer lock: calls run side by side, a failing call re-runs alone to read its own error
// text) and with FOCAL_VIPS_SERIALIZE_CALLS (a plain mutex around every call).
//
// Usage: lockbench THREADS SECONDS FILE...
// Each thread takes the next file, opens it, decodes a copy whose long side is 256 px and encodes
// it as JPEG; a failure counts as done. Prints: calls per second, failures.
#include "focal_vips.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    unsigned char *bytes;
    size_t length;
} file;

static file *files;
static int file_count;
static atomic_long next_job, done_jobs, failed_jobs;
static double stop_at;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int one(const file *f) {
    char err[256];
    focal_vips_source *source = NULL;
    focal_vips_info info;
    if (focal_vips_open(f->bytes, f->length, &source, &info, err, sizeof err) != FOCAL_VIPS_OK) return 0;
    int long_side = info.width > info.height ? info.width : info.height;
    double scale = long_side > 256 ? 256.0 / long_side : 1.0;
    int w = (int)(info.width * scale + 0.5), h = (int)(info.height * scale + 0.5);
    focal_vips_image *image = NULL;
    int ok = focal_vips_thumbnail(source, w > 0 ? w : 1, h > 0 ? h : 1, 10000, &image, err, sizeof err) == FOCAL_VIPS_OK;
    if (ok) {
        void *jpeg = NULL;
        size_t length = 0;
        focal_vips_saver saver = {".jpg[Q=80,strip,optimize_coding]", 1};
        ok = focal_vips_encode(image, &saver, &jpeg, &length, err, sizeof err) == FOCAL_VIPS_OK;
        focal_vips_free(jpeg);
    }
    focal_vips_image_free(image);
    focal_vips_source_free(source);
    return ok;
}

static void *worker(void *unused) {
    (void)unused;
    while (now() < stop_at) {
        long job = atomic_fetch_add(&next_job, 1);
        if (!one(&files[job % file_count])) atomic_fetch_add(&failed_jobs, 1);
        atomic_fetch_add(&done_jobs, 1);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: lockbench THREADS SECONDS FILE...\n");
        return 64;
    }
    int threads = atoi(argv[1]);
    double seconds = atof(argv[2]);
    file_count = argc - 3;
    files = calloc((size_t)file_count, sizeof *files);
    for (int i = 0; i < file_count; i++) {
        FILE *f = fopen(argv[3 + i], "rb");
        if (f == NULL) {
            perror(argv[3 + i]);
            return 66;
        }
        fseek(f, 0, SEEK_END);
        files[i].length = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        files[i].bytes = malloc(files[i].length);
        if (fread(files[i].bytes, 1, files[i].length, f) != files[i].length) return 66;
        fclose(f);
    }
    char err[256];
    if (focal_vips_init(err, sizeof err) != FOCAL_VIPS_OK) {
        fprintf(stderr, "libvips: %s\n", err);
        return 70;
    }
    for (int i = 0; i < file_count; i++) one(&files[i]);  // warm up: loaders, colour profiles
    pthread_t pool[64];
    if (threads < 1 || threads > 64) threads = 1;
    double start = now();
    stop_at = start + seconds;
    for (int i = 0; i < threads; i++) pthread_create(&pool[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++) pthread_join(pool[i], NULL);
    double elapsed = now() - start;
    printf("%.1f %ld\n", (double)atomic_load(&done_jobs) / elapsed, atomic_load(&failed_jobs));
    return 0;
}
