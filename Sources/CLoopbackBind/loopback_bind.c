// libBlerigLoopback.so: preloaded (LD_PRELOAD) into the processes blerig starts that cannot be told where to
// listen, rootcanal above all: rootcanal 1.10.0 binds its HCI, link and test ports to INADDR_ANY and has no flag to
// change that. This bind(2) turns a wildcard address (0.0.0.0, ::) into the loopback one (127.0.0.1, ::1) and
// leaves every other address alone, so a controller with no authentication is never reachable from the network
// of a CI host. RootcanalProcess also checks the listeners in /proc/net after start-up, so a process this cannot
// reach (a static binary) is refused, not trusted. The library's other job, on rootcanal's HCI port only, is in
// h4_whole_packets.c.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "loopback_bind.h"

typedef int (*bind_function)(int, const struct sockaddr *, socklen_t);

int bind(int fd, const struct sockaddr *address, socklen_t length) {
    static bind_function next_bind;
    if (next_bind == NULL) {
        next_bind = (bind_function)dlsym(RTLD_NEXT, "bind");
        if (next_bind == NULL) {
            errno = ENOSYS;
            return -1;
        }
    }
    if (address != NULL && address->sa_family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in local;
        memcpy(&local, address, sizeof local);
        if (local.sin_addr.s_addr == htonl(INADDR_ANY)) {
            local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            return next_bind(fd, (const struct sockaddr *)&local, sizeof local);
        }
    } else if (address != NULL && address->sa_family == AF_INET6
               && length >= (socklen_t)sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 local;
        memcpy(&local, address, sizeof local);
        if (memcmp(&local.sin6_addr, &in6addr_any, sizeof local.sin6_addr) == 0) {
            local.sin6_addr = in6addr_loopback;
            return next_bind(fd, (const struct sockaddr *)&local, sizeof local);
        }
    }
    return next_bind(fd, address, length);
}

int blerig_loopback_bind_marker(void) { return 1; }
