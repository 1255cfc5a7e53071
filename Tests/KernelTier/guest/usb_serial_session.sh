#!/bin/bash
# The USB serial session, in the guest: attaches the host's USB/IP CDC-ACM board (cdc_acm_board.py) and drives
# its reset lines, marking each phase in the board's log (on the host's clock) through its marks port:
#   esptool-default  esptool --before default-reset, 4 attempts: UnixTight 0.05, 0.55, Classic 0.05, 0.55
#   esptool NAME K   esptool's reset classes (UnixTight, USBJTAGSerial, Classic, HardReset) run K of
#                    esptool_resets.py, which marks each itself
#   blerig NAME      each line `NAME<TAB>COMMAND` of OUT/blerig-resets.tsv (blerig reset with each preset, and its
#                    1200-baud touch, which leaves the board in its bootloader)
#   console          OUT/blerig-console.cmd, when there: `blerig console` on the board, a typed `status`, then
#   console-touch    a 1200-baud touch by another process (touch_held_port.py): the board re-enumerates under
#                    the console, which must follow it; `status` again on the new port; SIGINT ends it
#   touch            the 1200-baud touch by stty (stty at 1200 closes the port with HUPCL), timed by port_events.py
# Results go to $1: esptool-default.log/.rc, esptool-resets.log/.rc, blerig-NAME.log/.rc, console.out/.err/.rc,
# console-times.txt (guest uptime at each console step), touch.json, cable.log.
#   usb_serial_session.sh OUT
set -u
out="$1"
here="$(dirname "$0")"
tier="$(dirname "$here")"
venv="$(dirname "$(dirname "$tier")")/.venv-kernel"
uptime_s() { cut -d' ' -f1 /proc/uptime; }

modprobe -a vhci-hcd cdc_acm || exit 10
"$here/usbip_cable.sh" "$out/cable.log" &
cable=$!
trap 'kill $cable 2>/dev/null' EXIT
for _ in $(seq 400); do [ -e /dev/ttyACM0 ] && break; sleep 0.025; done
[ -e /dev/ttyACM0 ] || { echo "no /dev/ttyACM0 10 s after attaching" >&2; cat "$out/cable.log" >&2; exit 11; }
echo "ttyACM0 at $(uptime_s) s of uptime"

exec 3<>/dev/tcp/10.0.2.100/3241 || exit 12
mark() {
    echo "$1" >&3
    read -r -t 20 reply <&3 && [ "$reply" = ok ] || { echo "the board did not take mark $1" >&2; exit 13; }
}

mark esptool-default
timeout 90 "$venv/bin/esptool" --port /dev/ttyACM0 --before default-reset --after hard-reset \
    --connect-attempts 4 chip-id >"$out/esptool-default.log" 2>&1
echo $? >"$out/esptool-default.rc"

# esptool's own reset classes, each several times: the references for blerig's presets
timeout 120 "$venv/bin/python" "$here/esptool_resets.py" --port /dev/ttyACM0 --marks 10.0.2.100:3241 \
    --repeat "${ESPTOOL_REPEAT:-3}" >"$out/esptool-resets.log" 2>&1
echo $? >"$out/esptool-resets.rc"

if [ -s "$out/blerig-resets.tsv" ]; then
    while IFS=$'\t' read -r name command; do
        mark "blerig $name"
        timeout 60 bash -c "$command" >"$out/blerig-$name.log" 2>&1 </dev/null
        echo $? >"$out/blerig-$name.rc"
    done <"$out/blerig-resets.tsv"
fi

# waits up to $3 seconds for file $1 to have $2 lines matching the pattern $4
wait_lines() {
    local file="$1" count="$2" limit="$3" pattern="$4"
    for _ in $(seq $((limit * 20))); do
        [ "$(grep -c -- "$pattern" "$file" 2>/dev/null)" -ge "$count" ] && return 0
        sleep 0.05
    done
    echo "$file: fewer than $count lines with '$pattern' after $limit s" >>"$out/console-times.txt"
    return 1
}

if [ -s "$out/blerig-console.cmd" ]; then
    mark console
    mkfifo /run/console.in
    exec 5<>/run/console.in
    bash -c "$(cat "$out/blerig-console.cmd")" <&5 >"$out/console.out" 2>"$out/console.err" &
    console=$!
    stamp() { echo "$1 $(uptime_s)" >>"$out/console-times.txt"; }
    stamp start
    if wait_lines "$out/console.err" 1 15 "reading lines to type"; then
        stamp open
        echo status >&5
        wait_lines "$out/console.out" 1 10 "status: mode=" && stamp answered
        mark console-touch
        stamp touch
        python3 "$here/touch_held_port.py" /dev/ttyACM0 2>>"$out/console-times.txt"
        wait_lines "$out/console.err" 1 10 "waiting for it to come back" && stamp gone
        wait_lines "$out/console.err" 1 20 "serial port back as" && stamp back
        echo status >&5
        wait_lines "$out/console.out" 2 10 "status: mode=" && stamp answered-again
    fi
    kill -INT "$console" 2>/dev/null
    wait "$console"
    echo $? >"$out/console.rc"
    exec 5>&-
fi

mark touch
python3 "$here/port_events.py" --path /dev/ttyACM0 --off "stty -F /dev/ttyACM0 1200 hupcl" --back '/dev/ttyACM*' \
    --timeout 15 >"$out/touch.json"
echo $? >"$out/touch.rc"
mark end
