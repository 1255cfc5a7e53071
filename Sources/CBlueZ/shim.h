// libbluetooth (BlueZ) for the HCI user channel: its headers need <sys/socket.h> first, and the raw HCI
// socket ioctls and structures come from hci.h.
#pragma once
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

// HCIDEVUP, HCIDEVDOWN, HCIGETDEVLIST and HCIGETDEVINFO are _IOW/_IOR macros Swift does not import.
static inline unsigned long blerig_hcidevup(void) { return HCIDEVUP; }
static inline unsigned long blerig_hcidevdown(void) { return HCIDEVDOWN; }
static inline unsigned long blerig_hcigetdevlist(void) { return HCIGETDEVLIST; }
static inline unsigned long blerig_hcigetdevinfo(void) { return HCIGETDEVINFO; }
// The HCI user channel (Linux 3.13): exclusive access to a controller that is down, no bluetoothd in between.
#ifndef HCI_CHANNEL_USER
#define HCI_CHANNEL_USER 1
#endif
static inline unsigned short blerig_hci_channel_user(void) { return HCI_CHANNEL_USER; }
// The management channel (mgmt-api.txt): commands and events of the kernel's own Bluetooth stack, bound to no
// device (HCI_DEV_NONE).
#ifndef HCI_CHANNEL_CONTROL
#define HCI_CHANNEL_CONTROL 3
#endif
static inline unsigned short blerig_hci_channel_control(void) { return HCI_CHANNEL_CONTROL; }
static inline unsigned short blerig_hci_dev_none(void) { return HCI_DEV_NONE; }

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// HCIGETDEVLIST: struct hci_dev_list_req ends in a flexible array, which Swift does not import. Writes the indexes
// of up to `capacity` adapters to `ids`; returns how many there are, or -1 with errno set.
static inline int blerig_hci_dev_list(int sock, uint16_t *ids, uint16_t capacity) {
    struct hci_dev_list_req *list = calloc(1, sizeof(*list) + capacity * sizeof(struct hci_dev_req));
    if (!list) {
        errno = ENOMEM;
        return -1;
    }
    list->dev_num = capacity;
    if (ioctl(sock, HCIGETDEVLIST, (void *)list) < 0) {
        int saved = errno;
        free(list);
        errno = saved;
        return -1;
    }
    int count = list->dev_num;
    for (int i = 0; i < count; i++) ids[i] = list->dev_req[i].dev_id;
    free(list);
    return count;
}

// HCIGETCONNLIST: whether adapter `dev` has an LE connection to the device whose address is `bdaddr` (6 bytes, least
// significant first), in any state, from connecting to the kernel's handling of its Disconnection Complete. Returns
// 1 or 0, or -1 with errno set (ENODEV: no such adapter).
static inline int blerig_hci_has_le_connection(int sock, uint16_t dev, const uint8_t *bdaddr) {
    // The kernel's LE_LINK (include/net/bluetooth/hci.h), which libbluetooth's headers do not define.
    const uint8_t le_link = 0x80;
    // The kernel takes at most two pages of entries.
    const uint16_t capacity = (2 * 4096) / sizeof(struct hci_conn_info);
    struct hci_conn_list_req *list = calloc(1, sizeof(*list) + capacity * sizeof(struct hci_conn_info));
    if (!list) {
        errno = ENOMEM;
        return -1;
    }
    list->dev_id = dev;
    list->conn_num = capacity;
    if (ioctl(sock, HCIGETCONNLIST, (void *)list) < 0) {
        int saved = errno;
        free(list);
        errno = saved;
        return -1;
    }
    int found = 0;
    for (int i = 0; i < list->conn_num && !found; i++) {
        struct hci_conn_info *info = &list->conn_info[i];
        found = info->type == le_link && memcmp(info->bdaddr.b, bdaddr, 6) == 0;
    }
    free(list);
    return found;
}
