#!/bin/sh
# How many heap allocations the daemon makes per published line (docs/performance-history.md, "Before
# and after: per-line cost"): `gestured run --replay REC --loop` at its own pace with one client (`gestured
# listen`, swipes and pans unless LISTEN says otherwise), malloc, calloc, realloc and
# posix_memalign counted in the daemon by an LD_PRELOAD shim; the counts after WARM seconds and
# SECONDS later, and the lines the client printed in between. Compare two builds in one sitting:
# the counts follow the recording's frames, not the host's load.
#
# usage: scripts/measure-allocations.sh [BINARY] [SECONDS]  (default .build/release/gestured, 30)
# Environment: RECORDING (default examples/recordings/demo.evemu), LISTEN (the client's filters,
# default "--kind swipe --kind pan"; "--touches --explain" takes everything), WARM (default 8).
# Needs a dynamically linked gestured (not --static-swift-stdlib) and a C compiler (cc).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$here/.build/release/gestured}
seconds=${2:-30}
recording=${RECORDING:-$here/examples/recordings/demo.evemu}
work=$(mktemp -d)
trap 'kill $daemon $client 2>/dev/null || true; rm -rf "$work"' EXIT
daemon=
client=

# The counter: SIGUSR2 appends the count so far to $ALLOC_COUNT_FILE (the daemon leaves SIGUSR2
# alone; write(2) is async-signal-safe).
cat > "$work/count.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static _Atomic unsigned long count;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_memalign)(void **, size_t, size_t);
static void (*real_free)(void *);
/* dlsym itself may call calloc before real_calloc is known: served from here, never freed. */
static char early[1 << 16];
static size_t early_used;
void *malloc(size_t n) {
    if (!real_malloc) real_malloc = dlsym(RTLD_NEXT, "malloc");
    count++;
    return real_malloc(n);
}
void *calloc(size_t a, size_t b) {
    if (!real_calloc) {
        size_t n = (a * b + 15) & ~(size_t)15;
        if (early_used + n > sizeof early) return 0;
        void *p = early + early_used;
        early_used += n;
        memset(p, 0, n);
        real_calloc = dlsym(RTLD_NEXT, "calloc");
        return p;
    }
    count++;
    return real_calloc(a, b);
}
void *realloc(void *p, size_t n) {
    if (!real_realloc) real_realloc = dlsym(RTLD_NEXT, "realloc");
    count++;
    return real_realloc(p, n);
}
int posix_memalign(void **p, size_t a, size_t n) {
    if (!real_memalign) real_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    count++;
    return real_memalign(p, a, n);
}
void free(void *p) {
    if ((char *)p >= early && (char *)p < early + sizeof early) return;
    if (!real_free) real_free = dlsym(RTLD_NEXT, "free");
    real_free(p);
}
static void dump(int sig) {
    (void)sig;
    char buf[32];
    int i = 31;
    unsigned long v = count;
    buf[i--] = '\n';
    do { buf[i--] = (char)('0' + v % 10); v /= 10; } while (v);
    const char *path = getenv("ALLOC_COUNT_FILE");
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
    if (fd >= 0) { (void)!write(fd, buf + i + 1, (size_t)(31 - i)); close(fd); }
}
__attribute__((constructor)) static void init(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = dump;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR2, &sa, 0);
}
EOF
cc -O2 -shared -fPIC -o "$work/count.so" "$work/count.c" -ldl

ALLOC_COUNT_FILE=$work/counts LD_PRELOAD=$work/count.so \
    "$binary" run --socket "$work/g.sock" --replay "$recording" --loop > "$work/daemon.log" 2>&1 &
daemon=$!
i=0
while [ ! -S "$work/g.sock" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
# shellcheck disable=SC2086 # LISTEN is a list of options
"$binary" listen --socket "$work/g.sock" ${LISTEN:---kind swipe --kind pan} > "$work/lines" 2>&1 &
client=$!
sleep "${WARM:-8}"
kill -USR2 "$daemon"
first_lines=$(wc -l < "$work/lines")
sleep "$seconds"
kill -USR2 "$daemon"
last_lines=$(wc -l < "$work/lines")
sleep 0.2
set -- $(cat "$work/counts")
allocations=$(($2 - $1))
lines=$((last_lines - first_lines))
echo "$allocations allocations and $lines published lines in $seconds s" \
    "($(python3 -c "print(f'{$allocations / max($lines, 1):.2f}')") a line, start-up left out)"
