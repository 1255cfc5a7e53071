// libbluetooth (BlueZ) for the HCI user channel: its headers need <sys/socket.h> first, and the raw HCI
// socket ioctls and structures come from hci.h.
#pragma once
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

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
