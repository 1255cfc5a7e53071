// Kernel interfaces for BoardControl that Swift cannot import next to Glibc: termios2 (its struct termios clashes
// with glibc's) and usbfs control transfers (_IOWR request numbers). Every function returns -1 with errno set on
// failure, as the system calls do.
#pragma once
#include <stdint.h>

// Sets both speeds of a serial port to `baud`, any rate the driver accepts (termios2, BOTHER).
int blerig_set_baud(int fd, uint32_t baud);

// Reads back the speeds the driver actually set (termios2's c_ispeed and c_ospeed).
int blerig_get_baud(int fd, uint32_t *input, uint32_t *output);

// One control transfer on an open usbfs device node (/dev/bus/usb/BBB/DDD); returns the bytes transferred.
int blerig_usb_control(
    int fd, uint8_t request_type, uint8_t request, uint16_t value, uint16_t index, void *data, uint16_t length,
    uint32_t timeout_ms);
