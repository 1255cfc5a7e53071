#!/bin/bash
# The adapter goes away under a `kind: bluez` run, in the kernel tier's guest: a run with a long handshake starts,
# and once the handshake check is under way the process holding /dev/vhci (the bridge to Bumble's controller) is
# killed, so the kernel removes hci0 (mgmt Index Removed). blerig must stop the run as an infrastructure failure of
# the radio (exit 3), blaming no board.
#   bluez_fault.sh OUT BLERIG DEVICE_NAME BRIDGE_PID
# Writes OUT/fault-run/ (the run's reports), fault-run.out/.err/.rc, and the times (guest uptime) to times.txt.
set -u
out="$1"
blerig="$2"
device="$3"
bridge="$4"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
stamp() { echo "$1 $(uptime_s)" >>"$out/times.txt"; }

cat >"$out/fault-rig.yaml" <<YAML
rig: kernel-tier-bluez-fault
radio: {kind: bluez, adapter: hci0}
boards:
  - id: esp-01
    profile: esp-point
    match: {name: $device}
suites:
  - {handshake: {connections: 1000}}
YAML

# shellcheck source=served_console.sh
. "$(dirname "${BASH_SOURCE[0]}")/served_console.sh"
# The boards hold the keys of the last run, which kept them in memory only: in pairing mode again, so that the
# handshake check really is connecting when the adapter goes (a board that refuses pairing fails the run at once).
served_console pair
stamp fault-start
"$blerig" run "$out/fault-rig.yaml" --out "$out/fault-run" --history /tmp/fault-history.sqlite \
    >"$out/fault-run.out" 2>"$out/fault-run.err" &
run=$!
# The board is up (blerig prints each check as it ends, and run.jsonl is written in 32 kB blocks), and the
# handshake check has been connecting for a while: several links came and went.
for _ in $(seq 600); do
    grep -qs "preflight / reachable: passed" "$out/fault-run.out" && break
    kill -0 $run 2>/dev/null || break
    sleep 0.1
done
stamp board-up
sleep 5
kill "$bridge"
stamp bridge-killed
for _ in $(seq 200); do [ -e /sys/class/bluetooth/hci0 ] || break; sleep 0.05; done
stamp "hci0-gone $([ -e /sys/class/bluetooth/hci0 ] && echo no || echo yes)"
wait $run
echo $? >"$out/fault-run.rc"
stamp fault-run
