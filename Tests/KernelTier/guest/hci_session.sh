#!/bin/bash
# The Bluetooth session, in the guest: makes hci0 with hci_vhci, bridged by vhci_bridge.py to Bumble's controller
# on the host (hci_link.py, virtio-serial port "hci"), then runs the real blerig against the served esp-point on
# the same Bumble link:
#   blerig adapters                                   → adapters.txt
#   blerig scan --radio hci-user:0 --json              → scan.json   (retried while the kernel still sets hci0 up)
#   blerig probe --radio hci-user:0 NAME --json        → probe.json
#   the kernel's stack (kind: bluez) beside blerig's host on hci0       → bluez/ (../bluez/bluez_session.sh)
#   blerig doctor RIG, with dummy_hcd's hub and gadget loaded  → doctor.out
#   a bluez run whose hci0 is removed under it (the vhci bridge killed)  → bluez/fault-run/ (../bluez/bluez_fault.sh)
# Each command's exit status goes to NAME.rc, its stderr to NAME.err, and times (guest uptime) to times.txt.
#   hci_session.sh OUT BLERIG DEVICE_NAME [OTHER_DEVICE_NAME...]   (every served board; the first is probed)
set -u
out="$1"
blerig="$2"
device="$3"
shift 2
devices=("$@")
here="$(dirname "$0")"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
stamp() { echo "$1 $(uptime_s)" >>"$out/times.txt"; }

stamp start
modprobe hci_vhci || exit 10
python3 "$here/vhci_bridge.py" /dev/virtio-ports/hci "$out/vhci.ready" >"$out/vhci.log" 2>&1 &
bridge=$!
trap 'kill $bridge 2>/dev/null' EXIT
for _ in $(seq 400); do [ -s "$out/vhci.ready" ] && [ -e /sys/class/bluetooth/hci0 ] && break; sleep 0.025; done
[ -e /sys/class/bluetooth/hci0 ] || { echo "no hci0 10 s after starting the vhci bridge" >&2; cat "$out/vhci.log" >&2; exit 11; }
stamp hci0

run() {
    local name="$1"
    shift
    "$@" >"$out/$name.out" 2>"$out/$name.err"
    local status=$?
    echo "$status" >"$out/$name.rc"
    stamp "$name"
    return "$status"
}

run adapters "$blerig" adapters
# The kernel sends its own setup commands to a new adapter; the user channel is busy (exit 3) until they are done.
for attempt in $(seq 20); do
    run scan "$blerig" scan --radio hci-user:0 --duration 3 --json && break
    grep -qi "busy" "$out/scan.err" || break
    sleep 0.25
done
echo "$attempt" >"$out/scan.attempts"
run probe "$blerig" probe --radio hci-user:0 "$device" --json --timeout 30

# The kernel's own stack on the same hci0, beside bluetoothd, then blerig's host again for the same suites.
mkdir -p "$out/bluez"
run bluez "$here/../bluez/bluez_session.sh" "$out/bluez" "$blerig" "${devices[@]}"

# blerig doctor, with a USB bus to look at too: dummy_hcd's root hub (per-port power) and g_serial's gadget on its
# port 1 as /dev/ttyACM0, which the rig's board is bound to.
modprobe -a dummy_hcd g_serial cdc_acm || exit 12
for _ in $(seq 400); do [ -e /dev/ttyACM0 ] && break; sleep 0.025; done
# shellcheck disable=SC2086 # the command is words on purpose
run doctor $BLERIG_DOCTOR_COMMAND

# Last, as it takes hci0 away: a bluez run whose adapter is removed under it (the bridge killed mid-handshake).
run bluez-fault "$here/../bluez/bluez_fault.sh" "$out/bluez" "$blerig" "$device" "$bridge"
stamp end
exit 0
