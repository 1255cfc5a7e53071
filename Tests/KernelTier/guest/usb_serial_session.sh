#!/bin/bash
# The USB serial session, in the guest: attaches the host's USB/IP CDC-ACM board (cdc_acm_board.py) and drives
# its reset lines, marking each phase in the board's log (on the host's clock) through its marks port:
#   esptool-default  esptool --before default-reset, 4 attempts: UnixTight 0.05, 0.55, Classic 0.05, 0.55
#   esptool-usb      esptool --before usb-reset, 1 attempt: USBJTAGSerialReset
#   blerig PRESET    `blerig reset` with each preset, when the binary has the command (BLERIG_RESET=1)
#   touch            the 1200-baud touch (stty at 1200 closes the port with HUPCL), timed by port_events.py
# Results go to $1: esptool-*.log and .rc, blerig-*.log and .rc, touch.json, cable.log.
#   usb_serial_session.sh OUT   (env: BLERIG_RESET=1 and BLERIG_RESET_COMMAND="blerig reset … BOARD" to run blerig)
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

mark esptool-usb
timeout 60 "$venv/bin/esptool" --port /dev/ttyACM0 --before usb-reset --after hard-reset \
    --connect-attempts 1 chip-id >"$out/esptool-usb.log" 2>&1
echo $? >"$out/esptool-usb.rc"

if [ "${BLERIG_RESET:-0}" = 1 ]; then
    for preset in esp32-unix-tight esp32-classic esp32-usb-jtag hard-reset; do
        mark "blerig $preset"
        # shellcheck disable=SC2086 # the prefix is words on purpose
        timeout 60 $BLERIG_RESET_COMMAND --sequence "$preset" >"$out/blerig-$preset.log" 2>&1
        echo $? >"$out/blerig-$preset.rc"
    done
fi

mark touch
python3 "$here/port_events.py" --path /dev/ttyACM0 --off "stty -F /dev/ttyACM0 1200 hupcl" --back '/dev/ttyACM*' \
    --timeout 15 >"$out/touch.json"
echo $? >"$out/touch.rc"
mark end
