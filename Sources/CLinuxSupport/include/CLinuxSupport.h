#ifndef GESTURED_CLINUXSUPPORT_H
#define GESTURED_CLINUXSUPPORT_H

#include <stdint.h>
#include <sys/types.h>

/// Thin wrappers over Linux calls that Swift's Glibc module does not expose (they need
/// _GNU_SOURCE). Each returns what the wrapped call returns; errno is left as the call set it.

/// Flags for `gestured_epoll_ctl` events, mirroring EPOLLIN / EPOLLERR / EPOLLHUP.
extern const uint32_t GESTURED_EPOLLIN;
extern const uint32_t GESTURED_EPOLLERR;
extern const uint32_t GESTURED_EPOLLHUP;
/// EPOLLOUT and EPOLLRDHUP, for the server's client sockets.
extern const uint32_t GESTURED_EPOLLOUT;
extern const uint32_t GESTURED_EPOLLRDHUP;

/// One readiness report from `gestured_epoll_wait`.
typedef struct {
    uint32_t events;
    uint64_t token;
} gestured_epoll_event;

/// epoll_create1(EPOLL_CLOEXEC)
int gestured_epoll_create(void);
/// epoll_ctl(EPOLL_CTL_ADD) with `token` as the event's data
int gestured_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
/// epoll_ctl(EPOLL_CTL_MOD) with `token` as the event's data
int gestured_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token);
/// epoll_ctl(EPOLL_CTL_DEL)
int gestured_epoll_remove(int epfd, int fd);
/// epoll_wait, copying at most `capacity` reports into `out`
int gestured_epoll_wait(int epfd, gestured_epoll_event *out, int capacity, int timeout_ms);

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)
int gestured_eventfd(void);
/// write(fd, 1) as the 8-byte counter eventfd expects
int gestured_eventfd_signal(int fd);
/// read the 8-byte counter (resets it); returns 0, or -1 with errno (EAGAIN when not signalled)
int gestured_eventfd_drain(int fd);

/// timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)
int gestured_timerfd(void);
/// Arms the timer to fire once at `deadline_ns` on CLOCK_MONOTONIC (absolute); 0 disarms it.
int gestured_timerfd_arm(int fd, int64_t deadline_ns);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)
int gestured_accept(int fd);
/// send(fd, bytes, length, MSG_NOSIGNAL | MSG_DONTWAIT): a client that has gone raises EPIPE,
/// never SIGPIPE. Returns the bytes sent, or -1 with errno.
ssize_t gestured_send(int fd, const void *bytes, size_t length);
/// Whether `fd` is a stream socket that listens (SO_ACCEPTCONN): 1, 0, or -1 with errno.
int gestured_is_listening_stream(int fd);

/// socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG): asks the kernel about
/// sockets (sock_diag(7)), one request at a time.
int gestured_sock_diag_open(void);
/// The uid that owns the TCP socket on this machine whose address is `source` (the peer of a
/// connection this process accepted) and whose peer is `destination` (the accepting socket):
/// one SOCK_DIAG_BY_FAMILY request for that exact socket. `family` is AF_INET (4-byte
/// addresses) or AF_INET6 (16 bytes); ports in host order. -1 with errno set when there is none
/// (ENOENT: the peer is on another machine) or the kernel will not say.
int64_t gestured_tcp_socket_uid(
    int diag_fd, int family, const void *source, uint16_t source_port, const void *destination,
    uint16_t destination_port);
/// fcntl O_NONBLOCK on `fd`: 0, or -1 with errno.
int gestured_set_nonblocking(int fd);

/// The layout of `struct ucred`, the value of SO_PEERCRED, so Swift can read it through
/// SwiftNIO's SocketOptionProvider (which has the channel's fd) without _GNU_SOURCE.
typedef struct {
    pid_t pid;
    uid_t uid;
    gid_t gid;
} gestured_ucred;
/// SOL_SOCKET and SO_PEERCRED, the level and name to read a `gestured_ucred` with.
extern const int GESTURED_SOL_SOCKET;
extern const int GESTURED_SO_PEERCRED;
/// The supplementary groups of a Unix socket's peer, as they were at connect (SO_PEERGROUPS,
/// Linux 4.13): writes at most `capacity` into `groups` and returns how many the peer has (more
/// than `capacity`: call again with room for them all), or -1 with errno.
int gestured_peer_groups(int fd, gid_t *groups, int capacity);

/// Routes SIGTERM, SIGINT and SIGHUP into a pipe (the self-pipe trick): a handler, whichever
/// thread the kernel picks, writes the signal's number as one byte. Returns the read end
/// (O_NONBLOCK | O_CLOEXEC) to watch, or -1 with errno. Also unblocks them in the calling
/// thread. Call once per process.
int gestured_signal_pipe_install(void);
/// The same for the `count` signals listed (e.g. SIGINT, SIGTERM, SIGUSR1 for `gestured simulate`).
/// Unlike blocking signals and taking them with sigwait, this works whatever threads the process
/// already has: a signal mask is per thread, a handler is per process.
int gestured_signal_pipe_install_for(const int *signals, int count);
/// Waits until `fd` is readable or `timeout_us` microseconds pass (-1: no limit), with ppoll's
/// precision: 1 readable, 0 timed out, -1 with errno (EINTR when a signal came first).
int gestured_wait_readable(int fd, int64_t timeout_us);
/// Reads one signal number from that pipe: the number, or -1 with errno (EAGAIN when none).
int gestured_signal_pipe_read(int fd);

/// clock_gettime(CLOCK_MONOTONIC) in microseconds (the clock libevdev timestamps use)
int64_t gestured_monotonic_us(void);

/// ioctl(fd, UI_SET_PHYS, phys) on an open /dev/uinput before the device is created: libevdev's
/// uinput API has no call for it, and passthrough mirrors carry a phys marker (docs/PASSTHROUGH.md)
int gestured_uinput_set_phys(int fd, const char *phys);

/// malloc_trim(0): hands freed heap memory back to the system (glibc keeps it otherwise), after
/// a client's definitions go (shape templates are the big ones). 1 if memory was released.
int gestured_release_free_memory(void);

/// Raises the calling thread's nice value (on Linux a thread's own: setpriority of its tid) by
/// `by`, up to 19, the first time a thread calls it; later calls change nothing. For work that
/// must yield the cores to the input thread. 0 on success.
int gestured_lower_thread_priority(int by);

/// Names the calling thread (at most 15 bytes), as ps -T and /proc/PID/task/TID/comm show it.
int gestured_name_thread(const char *name);

/// The bytes a TCP socket has received (TCP_INFO's tcpi_bytes_received, which glibc's struct
/// tcp_info lacks), or -1 with errno: how much a peer sent, whoever reads it.
int64_t gestured_tcp_bytes_received(int fd);

#endif
