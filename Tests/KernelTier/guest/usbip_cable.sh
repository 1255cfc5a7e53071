#!/bin/bash
# The USB cable between the host's USB/IP board and the guest: attaches the board (busid 1-1 on
# 10.0.2.100:3240, forwarded by boot.py) and attaches it again whenever it left the bus (the board closed the
# connection to re-enumerate, as after a 1200-baud touch). Runs until killed.
#   usbip_cable.sh [ATTACH_LOG]
log="${1:-/dev/null}"
status=/sys/devices/platform/vhci_hcd.0/status
attached() {
    # vhci's status: one line per port; an attached port has status 005 (VDEV_ST_NOTASSIGNED, until the kernel
    # has addressed the device: a slow guest sees it for a while after `usbip attach` returns) or 006 (VDEV_ST_USED)
    local hub port sta rest
    while read -r hub port sta rest; do
        [ "$sta" = "005" ] || [ "$sta" = "006" ] && return 0
    done <"$status"
    return 1
}
exec 9<> <(:)   # a descriptor that never has data: read -t on it is a sleep without a process
while true; do
    if ! attached; then
        if usbip attach -r 10.0.2.100 -b 1-1 2>>"$log"; then
            echo "attached $(cut -d' ' -f1 /proc/uptime)" >>"$log"
        fi
    fi
    read -r -t 0.05 -u 9 || true
done
