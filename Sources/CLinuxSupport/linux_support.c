// _GNU_SOURCE is defined here and only here: defining it in a system-library shim makes the debug
// build see two different fd_set declarations.
#define _GNU_SOURCE
#include "CLinuxSupport.h"

#include <errno.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <linux/uinput.h>
#include <netinet/in.h>
#include <string.h>

const uint32_t GESTURED_EPOLLIN = EPOLLIN;
const uint32_t GESTURED_EPOLLERR = EPOLLERR;
const uint32_t GESTURED_EPOLLHUP = EPOLLHUP;
const uint32_t GESTURED_EPOLLOUT = EPOLLOUT;
const uint32_t GESTURED_EPOLLRDHUP = EPOLLRDHUP;

int gestured_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int gestured_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev = {.events = events, .data = {.u64 = token}};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int gestured_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev = {.events = events, .data = {.u64 = token}};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
}

int gestured_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

/* Not inlined, even by link-time optimization: scripts/measure-breadth.sh finds each wake-up by
 * this function's entry (and each send by gestured_send's). A call a wake-up. */
__attribute__((noinline)) int gestured_epoll_wait(int epfd, gestured_epoll_event *out, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].events = events[i].events;
        out[i].token = events[i].data.u64;
    }
    return n;
}

int gestured_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int gestured_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == sizeof one ? 0 : -1;
}

int gestured_eventfd_drain(int fd) {
    uint64_t count;
    return read(fd, &count, sizeof count) == sizeof count ? 0 : -1;
}

int gestured_timerfd(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

int gestured_timerfd_arm(int fd, int64_t deadline_ns) {
    struct itimerspec spec = {0};
    if (deadline_ns > 0) {
        spec.it_value.tv_sec = deadline_ns / 1000000000;
        spec.it_value.tv_nsec = deadline_ns % 1000000000;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int gestured_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

__attribute__((noinline)) ssize_t gestured_send(int fd, const void *bytes, size_t length) {
    return send(fd, bytes, length, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int gestured_sock_diag_open(void) { return socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG); }

int64_t gestured_tcp_socket_uid(
    int diag_fd, int family, const void *source, uint16_t source_port, const void *destination,
    uint16_t destination_port) {
    size_t address_size = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
    if (address_size == 0) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
    } message;
    memset(&message, 0, sizeof message);
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;
    message.request.sdiag_family = (uint8_t)family;
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = ~0U;
    message.request.id.idiag_sport = htons(source_port);
    message.request.id.idiag_dport = htons(destination_port);
    memcpy(message.request.id.idiag_src, source, address_size);
    memcpy(message.request.id.idiag_dst, destination, address_size);
    message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    ssize_t sent;
    do sent = send(diag_fd, &message, sizeof message, 0);
    while (sent < 0 && errno == EINTR);
    if (sent < 0) return -1;
    // One answer: the socket, or an error (NLMSG_ERROR carries a negative errno).
    union {
        struct nlmsghdr header;
        char bytes[8192];
    } answer;
    ssize_t received;
    do received = recv(diag_fd, &answer, sizeof answer, 0);
    while (received < 0 && errno == EINTR);
    if (received < 0) return -1;
    struct nlmsghdr *header = &answer.header;
    if (!NLMSG_OK(header, (size_t)received)) {
        errno = EPROTO;
        return -1;
    }
    if (header->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *error = NLMSG_DATA(header);
        errno = error->error < 0 ? -error->error : EPROTO;
        return -1;
    }
    if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY || header->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
        errno = EPROTO;
        return -1;
    }
    const struct inet_diag_msg *socket_info = NLMSG_DATA(header);
    return socket_info->idiag_uid;
}

int gestured_is_listening_stream(int fd) {
    int type = 0, listening = 0;
    socklen_t size = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0) return -1;
    size = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0) return -1;
    return type == SOCK_STREAM && listening ? 1 : 0;
}

int gestured_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

const int GESTURED_SOL_SOCKET = SOL_SOCKET;
const int GESTURED_SO_PEERCRED = SO_PEERCRED;
_Static_assert(sizeof(gestured_ucred) == sizeof(struct ucred), "gestured_ucred must match struct ucred");
_Static_assert(offsetof(gestured_ucred, gid) == offsetof(struct ucred, gid), "gestured_ucred must match struct ucred");

int gestured_peer_groups(int fd, gid_t *groups, int capacity) {
    socklen_t size = (socklen_t)(capacity * (int)sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &size) == 0) return (int)(size / sizeof(gid_t));
    // Too little room: the kernel says how much it needs.
    if (errno == ERANGE) return (int)(size / sizeof(gid_t));
    return -1;
}

static int signal_pipe_write_end = -1;

static void gestured_signal_to_pipe(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    // Async-signal-safe; a full pipe drops the byte, and an earlier byte is already waiting.
    (void)!write(signal_pipe_write_end, &byte, 1);
    errno = saved;
}

int gestured_signal_pipe_install_for(const int *signals, int count) {
    int fds[2];
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return -1;
    signal_pipe_write_end = fds[1];
    struct sigaction action = {0};
    action.sa_handler = gestured_signal_to_pipe;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
        sigaddset(&set, signals[i]);
    }
    // A parent may have started us with them blocked (a blocked signal stays pending forever);
    // this thread takes them.
    if (pthread_sigmask(SIG_UNBLOCK, &set, NULL) != 0) return -1;
    return fds[0];
}

int gestured_signal_pipe_install(void) {
    int signals[] = {SIGTERM, SIGINT, SIGHUP};
    return gestured_signal_pipe_install_for(signals, sizeof signals / sizeof signals[0]);
}

int gestured_wait_readable(int fd, int64_t timeout_us) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    struct timespec timeout = {.tv_sec = timeout_us / 1000000, .tv_nsec = (timeout_us % 1000000) * 1000};
    int n = ppoll(&p, 1, timeout_us < 0 ? NULL : &timeout, NULL);
    return n < 0 ? -1 : (n > 0 ? 1 : 0);
}

int gestured_signal_pipe_read(int fd) {
    unsigned char byte;
    return read(fd, &byte, 1) == 1 ? (int)byte : -1;
}

int64_t gestured_monotonic_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int gestured_uinput_set_phys(int fd, const char *phys) {
    return ioctl(fd, UI_SET_PHYS, phys);
}

int gestured_release_free_memory(void) {
    return malloc_trim(0);
}

int gestured_lower_thread_priority(int by) {
    static __thread int lowered;
    if (lowered) return 0;
    lowered = 1;
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (nice == -1 && errno != 0) return -1;
    return setpriority(PRIO_PROCESS, tid, nice + by > 19 ? 19 : nice + by);
}

int gestured_name_thread(const char *name) {
    return prctl(PR_SET_NAME, name);
}

int64_t gestured_tcp_bytes_received(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    if (length < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) {
        errno = ENOTSUP;
        return -1;
    }
    return (int64_t)info.tcpi_bytes_received;
}
