#!/bin/bash
# The kernel path (`radio: {kind: bluez}`) in the kernel tier's guest, beside blerig's own host on the same adapter.
# Runs where hci0 already exists (the tier's hci_session.sh made it with hci_vhci and Bumble's controller) and a
# served esp-points advertise on the same Bumble link:
#   blerig scan  --radio bluez:hci0 while hci-user:0 holds hci0 → bluez-held.out (must fail, naming hci-user:0)
#   blerig scan  --radio bluez:hci0 --json, hci0 down → bluez-scan.out (blerig powers it on; adapter.txt)
#   bluetoothd starts (it stays up for the rest)
#   blerig probe --radio bluez:hci0 NAME --json       → bluez-probe.out
#   blerig run   RIG with {kind: bluez, adapter: hci0} → bluez-run/   (discovery, handshake, commands; every board)
#   (the served boards' consoles, on the host, get `pair`: the bluez run's keys are gone with that run)
#   blerig run   RIG with {kind: hci, transport: hci-user:0} → hci-user-run/ (the same suites, the same adapter)
#   handshake.txt: the handshake metrics of both runs, side by side
# bluetoothd runs beside the probe and the runs (bluetoothd.state says whether it could); btmon records everything.
# Each command's exit status goes to NAME.rc, its output to NAME.out / NAME.err, times (guest uptime) to times.txt.
#   bluez_session.sh OUT BLERIG DEVICE_NAME [OTHER_DEVICE_NAME...]   (one board each, esp-01, esp-02, …; the first
#   is probed)
set -u
out="$1"
blerig="$2"
device="$3"
shift 2
devices=("$@")
connections=10
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

# Types a line on the served boards' consoles, which live on the host: the test's relay watches console.request.
# shellcheck source=served_console.sh
. "$(dirname "${BASH_SOURCE[0]}")/served_console.sh"

# One rig, two radios: the kernel's stack, then blerig's own host on the adapter's user channel; every board at once.
rig() {
    echo "rig: kernel-tier-$1"
    echo "radio: $2"
    echo "boards:"
    local n=0
    for name in "${devices[@]}"; do
        n=$((n + 1))
        printf '  - {id: esp-%02d, profile: esp-point, match: {name: %s}}\n' "$n" "$name"
    done
    cat <<YAML
suites:
  - discovery
  - {handshake: {connections: $connections}}
  - commands
YAML
}
rig bluez "{kind: bluez, adapter: hci0}" >"$out/bluez-rig.yaml"
rig hci-user "{kind: hci, transport: \"hci-user:0\"}" >"$out/hci-user-rig.yaml"

stamp bluez-start
# btmon records what the kernel exchanged with the controller and the mgmt sockets (btmon.snoop, for a failure).
btmon -w "$out/btmon.snoop" >/dev/null 2>&1 &
btmon=$!
trap 'kill $btmon 2>/dev/null' EXIT
adapter_state() { hciconfig hci0 2>&1 | grep -o -m1 'UP RUNNING\|DOWN' || echo gone; }

# hci0 held through the user channel (blerig's own host scanning on hci-user:0): the kernel's stack does not have
# it, and bluez:hci0 must say so and point to hci-user:0.
"$blerig" scan --radio hci-user:0 --duration 8 >"$out/held-scan.out" 2>"$out/held-scan.err" &
holder=$!
for _ in $(seq 200); do [ "$(adapter_state)" = "UP RUNNING" ] && break; sleep 0.05; done
echo "hci0 while hci-user:0 scans: $(adapter_state)" >"$out/adapter.txt"
run bluez-held "$blerig" scan --radio bluez:hci0 --duration 1 --json
wait $holder

# hci0 is down (the user channel closed): blerig powers it on through mgmt (Set Powered).
echo "hci0 before bluez-scan: $(adapter_state)" >>"$out/adapter.txt"
run bluez-scan "$blerig" scan --radio bluez:hci0 --duration 3 --json
echo "hci0 after bluez-scan: $(adapter_state)" >>"$out/adapter.txt"

# bluetoothd beside blerig from here on, as on a rig host: it needs the system bus (the guest's /etc and /run are
# its own) and takes the adapter blerig powered on.
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
            grep -q "Adapter /org/bluez/hci0 registered" "$out/bluetoothd.log" && break
            sleep 0.05
        done
        if grep -q "Adapter /org/bluez/hci0 registered" "$out/bluetoothd.log"; then
            echo "running (pid $daemon), hci0 registered" >"$out/bluetoothd.state"
        else
            echo "running (pid $daemon), hci0 not registered within 20 s" >"$out/bluetoothd.state"
        fi
    else
        echo "not running: dbus-daemon --system failed: $(cat "$out/dbus.out")" >"$out/bluetoothd.state"
    fi
else
    echo "not running: $bluetoothd is not installed (Debian package bluez)" >"$out/bluetoothd.state"
fi
trap 'kill $btmon ${daemon:-} 2>/dev/null' EXIT
stamp bluetoothd
run bluez-probe "$blerig" probe --radio bluez:hci0 "$device" --json --timeout 30
# The run history is SQLite, whose locks the 9p share does not hold: it stays in the guest.
run bluez-run "$blerig" run "$out/bluez-rig.yaml" --out "$out/bluez-run" --history /tmp/bluez-history.sqlite
# The boards paired with the bluez run's keys, which that run kept in memory only: they must take new ones. Their
# consoles are on the host: the test types `pair` on each when asked (console.request → console.done).
served_console pair
# The user channel needs hci0 down; blerig takes it down itself (HCIDEVDOWN). The kernel may still be busy with it.
for attempt in $(seq 20); do
    run hci-user-run "$blerig" run "$out/hci-user-rig.yaml" --out "$out/hci-user-run" \
        --history /tmp/hci-user-history.sqlite && break
    grep -qi "busy" "$out/hci-user-run.err" "$out/hci-user-run.out" || break
    sleep 0.25
done

# Both runs' handshake numbers, side by side per board, from their junit.xml properties (one awk: the share is slow).
{
    echo "handshake on hci0, $connections connections per board, all boards at once: the kernel's stack (bluez,"
    echo "bluetoothd running) and blerig's own host (hci-user:0) on the same adapter and the same served esp-points"
    awk -v bluez="$(ls "$out"/bluez-run/*/junit.xml 2>/dev/null | head -1)" '
        match($0, /<testsuite name="[^"]*"/) { split(substr($0, RSTART, RLENGTH), part, "\""); board = part[2] }
        match($0, /name="handshake\.[a-z_]+\.(p50|p95|max|count)" value="[^"]*"/) {
            split(substr($0, RSTART, RLENGTH), part, "\"")
            key = board " " part[2]
            if (!(key in seen)) { seen[key] = 1; order[++n] = key }
            value[FILENAME == bluez ? "bluez" : "hci-user", key] = part[4]
        }
        END {
            printf "%-39s %10s %10s\n", "board metric", "bluez", "hci-user"
            for (i = 1; i <= n; i++)
                printf "%-39s %10s %10s\n", order[i], value["bluez", order[i]], value["hci-user", order[i]]
        }' "$out"/bluez-run/*/junit.xml "$out"/hci-user-run/*/junit.xml
} >"$out/handshake.txt"
stamp bluez-end
cat "$out/handshake.txt"
