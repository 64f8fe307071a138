#!/bin/bash
# What the VM guest (qemu TCG, the peer comparison's machine) charges for, next to the host:
# a system call, a clock read, an EAGAIN read, an allocation, and — per wake-up of a process that
# sleeps between frames as the daemon does — each data page touched, each distinct function
# reached, and sleeping in epoll_wait with a timeout rather than without one.
# docs/performance-history.md ("Frame path", fifth step) has the figures and what they mean for
# the daemon; docs/performance-history.md ("The recognizers' share, in rounds") the timeout's.
#
# usage: scripts/vm/guest-costs.sh [ITERATIONS]   (gcc, python3; the VM harness installs the rest)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
iterations=${1:-5000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/t"

# 1 024 small functions twice over: packed (16 bytes apart) and one to a page. A wake-up that
# calls N distinct ones pays for reaching N code addresses the emulator has not seen since the
# last context switch; calling one function N times pays only for the calls.
python3 - "$work/probe.c" <<'PY'
import sys
n = 1024
c = [r'''#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
typedef long (*fn)(long);
volatile long sink;
static double cpu(void) {
    struct rusage r; getrusage(RUSAGE_SELF, &r);
    return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}''']
for i in range(n):
    c.append(f'__attribute__((noinline, section(".text.packed"))) long p{i}(long x) {{ return x * {i + 3} + {i}; }}')
    c.append(f'__attribute__((noinline, aligned(4096), section(".text.spread"))) long s{i}(long x) {{ return x * {i + 3} + {i}; }}')
c.append('static fn packed[] = {' + ','.join(f'p{i}' for i in range(n)) + '};')
c.append('static fn spread[] = {' + ','.join(f's{i}' for i in range(n)) + '};')
c.append(r'''
#define OP(name, count, body) do { double a = cpu(); for (long i = 0; i < (count); i++) { body; } \
    printf("probe: %-44s %9.1f ns\n", name, (cpu() - a) * 1e9 / (count)); } while (0)

/* How the child sleeps: in the pipe's read (-2), or in epoll_wait on it with this timeout (ms;
   -1: none) before the read. A timeout that never runs out still starts a kernel timer each time
   the child sleeps and cancels it when the pipe wakes it. */
static int waitTimeout = -2;

/* A child woken through a pipe `iterations` times; each wake-up runs `work`, then answers. */
static void woken(const char *what, int n, int iterations, void (*work)(int, long *)) {
    fflush(stdout);
    int a[2], b[2];
    if (pipe(a) || pipe(b)) { perror("pipe"); exit(1); }
    pid_t p = fork();
    if (p == 0) {
        char c; long s = 1;
        int ep = -1;
        if (waitTimeout != -2) {
            struct epoll_event ev = {.events = EPOLLIN};
            ep = epoll_create1(0);
            if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, a[0], &ev)) _exit(1);
        }
        double t0 = cpu();
        for (int i = 0; i < iterations; i++) {
            struct epoll_event ready;
            if (ep >= 0 && epoll_wait(ep, &ready, 1, waitTimeout) != 1) _exit(1);
            if (read(a[0], &c, 1) != 1) _exit(1);
            work(n, &s);
            if (write(b[1], &c, 1) != 1) _exit(1);
        }
        sink = s;
        printf("probe: wake-up, %-36s %9.2f us CPU\n", what, (cpu() - t0) * 1e6 / iterations);
        fflush(stdout);
        _exit(0);
    }
    char c = 'x';
    for (int i = 0; i < iterations; i++) {
        if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) exit(1);
    }
    waitpid(p, 0, 0);
    close(a[0]); close(a[1]); close(b[0]); close(b[1]);
}
static volatile char *memory;
static void pages(int n, long *s) { for (int j = 0; j < n; j++) *s += memory[(size_t)j * 8192]; }
static void distinctPacked(int n, long *s) { for (int j = 0; j < n; j++) *s = packed[j](*s); }
static void distinctSpread(int n, long *s) { for (int j = 0; j < n; j++) *s = spread[j](*s); }
static void same(int n, long *s) { for (int j = 0; j < n; j++) *s = packed[0](*s); }

int main(int argc, char **argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 5000;
    struct timespec ts; char buf[64]; int pipeFds[2];
    if (pipe2(pipeFds, O_NONBLOCK)) return 1;
    OP("a bare system call (getppid)", 200000, sink = syscall(SYS_getppid));
    OP("clock_gettime(CLOCK_MONOTONIC)", 200000, (clock_gettime(CLOCK_MONOTONIC, &ts), sink = ts.tv_nsec));
    OP("read that returns EAGAIN", 200000, sink = read(pipeFds[0], buf, sizeof buf));
    OP("malloc + free, 64 bytes", 1000000, { void *q = malloc(64); sink = (long)q; free(q); });
    memory = malloc((size_t)8192 * 1024);
    memset((char *)memory, 1, (size_t)8192 * 1024);
    char what[64];
    for (int k = 0; k < 4; k++) {
        int n = (int[]){0, 64, 256, 1024}[k];
        snprintf(what, sizeof what, "%4d data pages touched", n); woken(what, n, iterations, pages);
        snprintf(what, sizeof what, "%4d calls of one function", n); woken(what, n, iterations, same);
        snprintf(what, sizeof what, "%4d distinct functions, packed", n); woken(what, n, iterations, distinctPacked);
        snprintf(what, sizeof what, "%4d distinct functions, a page each", n); woken(what, n, iterations, distinctSpread);
    }
    waitTimeout = -1; woken("epoll_wait without a timeout", 0, iterations, same);
    waitTimeout = 10000; woken("epoll_wait with a 10 s timeout", 0, iterations, same);
    waitTimeout = -1; woken("epoll_wait without a timeout (again)", 0, iterations, same);
    waitTimeout = 10000; woken("epoll_wait with a 10 s timeout (again)", 0, iterations, same);
    return 0;
}''')
open(sys.argv[1], 'w').write('\n'.join(c) + '\n')
PY
gcc -O2 -o "$work/t/probe" "$work/probe.c"

echo "== host"
"$work/t/probe" "$iterations" | sed 's/^probe: //'
echo "== guest (qemu TCG, the peer comparison's VM)"
"$here/run-vm-test.sh" "$work/t" -- /test/probe "$iterations" > "$work/vm.log" 2>&1 || {
    tail -20 "$work/vm.log" >&2
    exit 1
}
sed -n 's/^probe: //p' "$work/vm.log"
