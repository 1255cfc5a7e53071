// The second job of libBlerigLoopback.so: rootcanal 1.10.0 sends each HCI packet to a host in two send(2) calls,
// its H4 indicator (one byte) and then the packet, on a socket with Nagle's algorithm on. Each packet then crosses
// the loopback as two TCP segments, which wakes the host twice; and while the indicator is unacknowledged, Nagle
// holds the packet back until the host's ACK comes, which a host that delays its ACKs makes a 40 ms stall.
//
// On the sockets of rootcanal's HCI port (BLERIG_H4_PORT, set by RootcanalProcess), this turns both off: accepted
// connections get TCP_NODELAY, and a one-byte send of an H4 indicator (0x01-0x05) goes with MSG_MORE, so the kernel
// holds it for the packet's send that follows and sends the two as one segment. Every host on that controller sees
// the same bytes in the same order; only the segment boundaries move. Other sockets are left alone.
// docs/radios.md ("rootcanal's sockets") says what this changes for hosts and how to check it.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*accept_function)(int, struct sockaddr *, socklen_t *);
typedef int (*accept4_function)(int, struct sockaddr *, socklen_t *, int);
typedef ssize_t (*send_function)(int, const void *, size_t, int);
typedef ssize_t (*sendto_function)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);

// The C library's `name`, looked up once into *slot; NULL, with errno ENOSYS, when there is none.
static void *next_symbol(void **slot, const char *name) {
    if (*slot == NULL) *slot = dlsym(RTLD_NEXT, name);
    if (*slot == NULL) errno = ENOSYS;
    return *slot;
}

// The HCI port from BLERIG_H4_PORT, or -1 when it is unset or not a port. Read once; a race reads the same value.
static int h4_port(void) {
    static int port = -2;
    if (port == -2) {
        const char *text = getenv("BLERIG_H4_PORT");
        char *end = NULL;
        long value = text ? strtol(text, &end, 10) : -1;
        port = (text && *text && end && *end == '\0' && value > 0 && value <= 65535) ? (int)value : -1;
    }
    return port;
}

// Whether fd is a TCP socket whose local port is the HCI port.
static int on_h4_port(int fd) {
    int port = h4_port();
    if (port < 0) return 0;
    struct sockaddr_storage local;
    socklen_t length = sizeof local;
    int saved = errno;
    int found = getsockname(fd, (struct sockaddr *)&local, &length) == 0
        && ((local.ss_family == AF_INET && ntohs(((struct sockaddr_in *)&local)->sin_port) == port)
            || (local.ss_family == AF_INET6 && ntohs(((struct sockaddr_in6 *)&local)->sin6_port) == port));
    errno = saved;
    return found;
}

static void accepted(int fd) {
    if (fd < 0 || !on_h4_port(fd)) return;
    int saved = errno;
    int on = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    errno = saved;
}

// A lone H4 indicator, about to be sent on the HCI port without MSG_MORE: the flags to send it with instead.
static int h4_flags(int fd, const void *bytes, size_t length, int flags) {
    if (length != 1 || bytes == NULL || (flags & MSG_MORE)) return flags;
    unsigned char indicator = *(const unsigned char *)bytes;
    if (indicator < 0x01 || indicator > 0x05 || !on_h4_port(fd)) return flags;
    return flags | MSG_MORE;
}

int accept(int fd, struct sockaddr *address, socklen_t *length) {
    static void *next;
    if (next_symbol(&next, "accept") == NULL) return -1;
    int client = ((accept_function)next)(fd, address, length);
    accepted(client);
    return client;
}

int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    static void *next;
    if (next_symbol(&next, "accept4") == NULL) return -1;
    int client = ((accept4_function)next)(fd, address, length, flags);
    accepted(client);
    return client;
}

ssize_t send(int fd, const void *bytes, size_t length, int flags) {
    static void *next;
    if (next_symbol(&next, "send") == NULL) return -1;
    return ((send_function)next)(fd, bytes, length, h4_flags(fd, bytes, length, flags));
}

ssize_t sendto(int fd, const void *bytes, size_t length, int flags, const struct sockaddr *to, socklen_t size) {
    static void *next;
    if (next_symbol(&next, "sendto") == NULL) return -1;
    return ((sendto_function)next)(fd, bytes, length, h4_flags(fd, bytes, length, flags), to, size);
}
