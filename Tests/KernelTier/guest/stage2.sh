#!/bin/bash
# Stage 2, PID 1 on the host's root: runs the command boot.py wrote into the results share and writes its exit
# status back, then powers the machine off (qemu runs with -no-reboot, so it exits).
#   $1: the results share, mounted at its host path; boot.py's files are in $1/.kt/
out="$1"
kt="$out/.kt"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TERM=dumb LANG=C.UTF-8
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs shm /dev/shm 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
hostname kernel-tier
ip link set lo up

# Guest networking only when boot.py forwards ports: the host is 10.0.2.100 (qemu user networking, restricted).
if [ -f "$kt/network" ]; then
    modprobe virtio_net
    ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up
fi

# virtio-serial ports by name (no udev here): /dev/virtio-ports/<name>, as udev would make them. The host announces
# its ports after the driver loads, so wait (up to 5 s) for the ones boot.py lists.
if [ -s "$kt/ports" ]; then
    modprobe virtio_console
    mkdir -p /dev/virtio-ports
    for name in $(cat "$kt/ports"); do
        for _ in $(seq 100); do
            found=$(grep -lx "$name" /sys/class/virtio-ports/*/name 2>/dev/null | head -1)
            [ -n "$found" ] && break
            sleep 0.05
        done
        [ -n "$found" ] || { echo "kernel-tier: virtio-serial port $name never appeared" >>"$kt/guest-errors"; continue; }
        dev=${found%/name}
        ln -sf "/dev/${dev##*/}" "/dev/virtio-ports/$name"
    done
fi

set -a
[ -f "$kt/env" ] && . "$kt/env"
set +a
cat /proc/uptime >"$kt/started"
cd "${KT_CWD:-/}" && bash "$kt/command.sh" >"$out/stdout" 2>"$out/stderr" </dev/null
echo $? >"$kt/rc.tmp" && mv "$kt/rc.tmp" "$kt/rc"
cat /proc/uptime >"$kt/finished"
sync
echo o >/proc/sysrq-trigger
sleep 5
