// vips-attention: libvips's own smart crop, measured the way focal-bench measures Focal, for
// `make bench`. Crops every JPEG of a folder to 400x400 with vips_thumbnail(crop=attention) and
// encodes it (JPEG, Q 85), on as many threads as the machine has cores, one libvips thread per
// crop and no operation cache (Focal's settings), and prints crops per second and the peak
// resident memory of the process. Usage: vips-attention FOLDER [ROUNDS]
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vips/vips.h>

static char **files;
static int file_count;
static atomic_int next_file;
static atomic_int failures;

static void *worker(void *unused) {
    (void)unused;
    for (;;) {
        int i = atomic_fetch_add(&next_file, 1);
        if (i >= file_count) return NULL;
        VipsImage *thumb = NULL;
        void *bytes = NULL;
        size_t length = 0;
        if (vips_thumbnail(files[i], &thumb, 400, "height", 400, "crop", VIPS_INTERESTING_ATTENTION, NULL) != 0 ||
            vips_jpegsave_buffer(thumb, &bytes, &length, "Q", 85, "strip", TRUE, "optimize_coding", TRUE, NULL) != 0) {
            atomic_fetch_add(&failures, 1);
            fprintf(stderr, "vips-attention: %s: %s", files[i], vips_error_buffer());
            vips_error_clear();
        }
        if (thumb) g_object_unref(thumb);
        g_free(bytes);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double peak_mb(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = atof(line + 6);
    if (status) fclose(status);
    return kb / 1024;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: vips-attention FOLDER [ROUNDS]\n");
        return 64;
    }
    if (VIPS_INIT(argv[0])) vips_error_exit(NULL);
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    if (rounds < 1) rounds = 1;
    DIR *folder = opendir(argv[1]);
    if (!folder) {
        perror(argv[1]);
        return 66;
    }
    struct dirent *entry;
    files = calloc(4096, sizeof *files);
    while ((entry = readdir(folder)) && file_count < 4096) {
        size_t n = strlen(entry->d_name);
        if (n > 4 && strcmp(entry->d_name + n - 4, ".jpg") == 0) {
            files[file_count] = malloc(strlen(argv[1]) + n + 2);
            sprintf(files[file_count++], "%s/%s", argv[1], entry->d_name);
        }
    }
    closedir(folder);
    qsort(files, file_count, sizeof *files, by_name);
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    pthread_t pool[256];
    if (threads > 256) threads = 256;
    for (int r = 0; r < rounds; r++) {
        atomic_store(&next_file, 0);
        double start = now();
        for (int t = 0; t < threads; t++) pthread_create(&pool[t], NULL, worker, NULL);
        for (int t = 0; t < threads; t++) pthread_join(pool[t], NULL);
        double seconds = now() - start;
        // One line per round: crops per second, peak MB so far.
        printf("%.2f %.0f\n", file_count / seconds, peak_mb());
        fflush(stdout);
    }
    return atomic_load(&failures) ? 1 : 0;
}
