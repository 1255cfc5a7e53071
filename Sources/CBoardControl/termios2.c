// termios2 lives in the kernel's <asm/termbits.h>, whose struct termios is not glibc's: this file includes only
// the kernel's headers.
#include <asm/termbits.h>
#include <sys/ioctl.h>
#include "CBoardControl.h"

int blerig_set_baud(int fd, uint32_t baud) {
    struct termios2 settings;
    if (ioctl(fd, TCGETS2, &settings) != 0) return -1;
    settings.c_cflag &= ~(CBAUD | (CBAUD << IBSHIFT));
    settings.c_cflag |= BOTHER | (BOTHER << IBSHIFT);
    settings.c_ispeed = baud;
    settings.c_ospeed = baud;
    return ioctl(fd, TCSETS2, &settings);
}

int blerig_get_baud(int fd, uint32_t *input, uint32_t *output) {
    struct termios2 settings;
    if (ioctl(fd, TCGETS2, &settings) != 0) return -1;
    *input = settings.c_ispeed;
    *output = settings.c_ospeed;
    return 0;
}
