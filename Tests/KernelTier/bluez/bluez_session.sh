#!/bin/bash
# The kernel path (`radio: {kind: bluez}`) in the kernel tier's guest, beside blerig's own host on the same adapter.
# Runs where hci0 already exists (the tier's hci_session.sh made it with hci_vhci and Bumble's controller) and a
# served esp-point advertises on the same Bumble link:
#   blerig scan  --radio bluez:hci0 --json            → bluez-scan.json
#   blerig probe --radio bluez:hci0 NAME --json       → bluez-probe.json
#   blerig run   RIG with {kind: bluez, adapter: hci0} → bluez-run/   (discovery, handshake, commands)
#   blerig run   RIG with {kind: hci, transport: hci-user:0} → hci-user-run/ (the same suites, the same adapter)
#   handshake.txt: the handshake metrics of both runs, side by side
# Each command's exit status goes to NAME.rc, its output to NAME.out / NAME.err, times (guest uptime) to times.txt.
#   bluez_session.sh OUT BLERIG DEVICE_NAME [CONNECTIONS]
set -u
out="$1"
blerig="$2"
device="$3"
connections="${4:-10}"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
stamp() { echo "$1 $(uptime_s)" >>"$out/times.txt"; }
run() {
    local name="$1"
    shift
    "$@" >"$out/$name.out" 2>"$out/$name.err"
    local status=$?
    echo "$status" >"$out/$name.rc"
    stamp "$name"
    return "$status"
}

# One rig, two radios: the kernel's stack, then blerig's own host on the adapter's user channel.
rig() {
    cat <<YAML
rig: kernel-tier-$1
radio: $2
boards:
  - id: esp-01
    profile: esp-point
    match: {name: $device}
suites:
  - discovery
  - {handshake: {connections: $connections}}
  - commands
YAML
}
rig bluez "{kind: bluez, adapter: hci0}" >"$out/bluez-rig.yaml"
rig hci-user "{kind: hci, transport: \"hci-user:0\"}" >"$out/hci-user-rig.yaml"

stamp bluez-start
# bluetoothd beside blerig, as on a rig host: it needs the system bus (the guest's /etc and /run are its own). It
# powers hci0 on itself (AutoEnable); without it, blerig powers hci0 on through mgmt. btmon records what the kernel
# exchanged with the controller (btmon.snoop, for a failure).
btmon -w "$out/btmon.snoop" >/dev/null 2>&1 &
btmon=$!
bluetoothd=/usr/libexec/bluetooth/bluetoothd
daemon=
if [ -x "$bluetoothd" ]; then
    mkdir -p /run/dbus
    if dbus-daemon --system --fork >"$out/dbus.out" 2>&1; then
        # Its storage, which the read-only root would refuse.
        mount -t tmpfs tmpfs /var/lib/bluetooth
        "$bluetoothd" -n -d >"$out/bluetoothd.log" 2>&1 &
        daemon=$!
        for _ in $(seq 400); do
            grep -q "hci0 has been enabled" "$out/bluetoothd.log" && break
            sleep 0.05
        done
        if grep -q "hci0 has been enabled" "$out/bluetoothd.log"; then
            echo "running (pid $daemon), hci0 powered on by it" >"$out/bluetoothd.state"
        else
            echo "running (pid $daemon), hci0 not enabled by it within 20 s" >"$out/bluetoothd.state"
        fi
    else
        echo "not running: dbus-daemon --system failed: $(cat "$out/dbus.out")" >"$out/bluetoothd.state"
    fi
else
    echo "not running: $bluetoothd is not installed (Debian package bluez)" >"$out/bluetoothd.state"
fi
trap 'kill $btmon ${daemon:-} 2>/dev/null' EXIT
stamp bluetoothd
run bluez-scan "$blerig" scan --radio bluez:hci0 --duration 3 --json
run bluez-probe "$blerig" probe --radio bluez:hci0 "$device" --json --timeout 30
# The run history is SQLite, whose locks the 9p share does not hold: it stays in the guest.
run bluez-run "$blerig" run "$out/bluez-rig.yaml" --out "$out/bluez-run" --history /tmp/bluez-history.sqlite
# The user channel needs hci0 down; blerig takes it down itself (HCIDEVDOWN). The kernel may still be busy with it.
for attempt in $(seq 20); do
    run hci-user-run "$blerig" run "$out/hci-user-rig.yaml" --out "$out/hci-user-run" \
        --history /tmp/hci-user-history.sqlite && break
    grep -qi "busy" "$out/hci-user-run.err" "$out/hci-user-run.out" || break
    sleep 0.25
done

{
    echo "handshake on hci0 ($connections connections): the kernel's stack (bluez) beside blerig's host (hci-user:0)"
    for kind in bluez hci-user; do
        echo "== $kind"
        grep -h "handshake\." "$out"/$kind-run/*/summary.txt 2>/dev/null || echo "(no handshake metrics: see $kind-run.out)"
    done
} >"$out/handshake.txt"
stamp bluez-end
cat "$out/handshake.txt"
