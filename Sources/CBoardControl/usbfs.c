#include <linux/usbdevice_fs.h>
#include <sys/ioctl.h>
#include "CBoardControl.h"

int blerig_usb_control(
    int fd, uint8_t request_type, uint8_t request, uint16_t value, uint16_t index, void *data, uint16_t length,
    uint32_t timeout_ms) {
    struct usbdevfs_ctrltransfer transfer = {
        .bRequestType = request_type,
        .bRequest = request,
        .wValue = value,
        .wIndex = index,
        .wLength = length,
        .timeout = timeout_ms,
        .data = data,
    };
    return ioctl(fd, USBDEVFS_CONTROL, &transfer);
}
