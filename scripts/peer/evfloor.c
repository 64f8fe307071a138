/* evfloor.c - the least a libevdev daemon can do per frame: the peer bench's floor.
 *
 * Opens $DEV, waits in epoll_wait, and on each wake-up reads with libevdev_next_event until
 * EAGAIN (as libinput and gestured do), handling a SYN_DROPPED resync; it keeps no state and
 * recognizes nothing. Its CPU in the same boot as lisgd and gestured is what the kernel's
 * wake-up and libevdev's reading cost any daemon that reads every frame through libevdev:
 * the part of a peer ratio no daemon's own code can remove. SIGINT or SIGTERM ends it; it
 * prints the frames it read to stderr then.
 *
 * build: gcc -O2 -o evfloor evfloor.c $(pkg-config --cflags --libs libevdev)
 */
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

int main(void)
{
	const char *path = getenv("DEV");
	if (!path) { fprintf(stderr, "evfloor: DEV is not set\n"); return 2; }
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) { fprintf(stderr, "evfloor: %s: %s\n", path, strerror(errno)); return 1; }
	struct libevdev *dev;
	int rc = libevdev_new_from_fd(fd, &dev);
	if (rc < 0) { fprintf(stderr, "evfloor: %s: %s\n", path, strerror(-rc)); return 1; }
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event want = { .events = EPOLLIN, .data.fd = fd };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &want) < 0) { perror("evfloor: epoll"); return 1; }
	unsigned long frames = 0, dropped = 0;
	while (!stop) {
		struct epoll_event got;
		if (epoll_wait(ep, &got, 1, -1) < 0) {
			if (errno == EINTR) continue;
			perror("evfloor: epoll_wait");
			return 1;
		}
		struct input_event ev;
		unsigned int flag = LIBEVDEV_READ_FLAG_NORMAL;
		for (;;) {
			rc = libevdev_next_event(dev, flag, &ev);
			if (rc == LIBEVDEV_READ_STATUS_SUCCESS) {
				frames += ev.type == EV_SYN && ev.code == SYN_REPORT;
			} else if (rc == LIBEVDEV_READ_STATUS_SYNC) {
				dropped += flag == LIBEVDEV_READ_FLAG_NORMAL;   /* the SYN_DROPPED itself */
				flag = LIBEVDEV_READ_FLAG_SYNC;                  /* then the resync's events */
			} else if (rc == -EAGAIN && flag == LIBEVDEV_READ_FLAG_SYNC) {
				flag = LIBEVDEV_READ_FLAG_NORMAL;                /* resynced: what is queued after it */
			} else if (rc == -EAGAIN) {
				break;
			} else {
				fprintf(stderr, "evfloor: read: %s\n", strerror(-rc));
				return 1;
			}
		}
	}
	fprintf(stderr, "evfloor: %lu frames, %lu SYN_DROPPED\n", frames, dropped);
	return 0;
}
