#!/usr/bin/env python3
"""Bumble as a reference central against a peripheral (blerig's esp-point, or peripheral.py): scan for the
target, connect, exchange MTU, discover everything, read every readable characteristic, subscribe to
everything that notifies or indicates, then write and read as asked (in order), listen, and report.

    .venv-interop/bin/python central.py --hci tcp:127.0.0.1:PORT --target NAME_OR_ADDRESS
        [--mtu 247] [--scan-timeout 10] [--listen 0.5] [--keep 50] [--address A]
        [--write UUID=HEX | --write-command UUID=HEX | --read UUID | --pause SECONDS
         | --answer-challenge UUID=KEYHEX]...

Prints `READY {json}` once its host is up and scanning, then exactly one `RESULT {json}` line and exits 0, or
one `ERROR {"stage": ..., "error": ...}` line and exits 1. Logs go to stderr. Exits when stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import logging
import secrets
import struct
import sys
import time
from typing import Any

from peer_common import add_common_arguments, emit, open_hci, setup_logging, watch_lifeline

from bumble import att, crypto, gatt, hci
from bumble.core import AdvertisingData, UUID
from bumble.device import Advertisement, Device, Peer
from bumble.gatt import Characteristic
from bumble.profiles.gatt_service import GenericAttributeProfileService

log = logging.getLogger("central")


class Failure(Exception):
    def __init__(self, stage: str, error: str) -> None:
        super().__init__(error)
        self.stage = stage


async def discovered_database_hash(peer: Peer) -> str:
    """The Database Hash (Core Vol 3 Part G §7.3) of the table as discovered, computed by Bumble's own GATT
    service (`GenericAttributeProfileService.get_attribute_data` and `crypto.aes_cmac`), least significant octet
    first as a server sends it. The attributes are rebuilt from discovery: service declarations from the services,
    characteristic declarations from properties, value handle (the declaration is the handle before it) and UUID,
    descriptors by handle and type; Extended Properties values are read. Includes are not discovered: a table with
    include declarations would hash differently."""
    attributes: list[att.Attribute] = []

    def add(handle: int, kind: UUID, value: bytes) -> None:
        attribute = att.Attribute(kind, att.Attribute.Permissions.READABLE, value)
        attribute.handle = handle
        attributes.append(attribute)

    for service in peer.services:
        primary = getattr(service, "primary", True)
        kind = gatt.GATT_PRIMARY_SERVICE_ATTRIBUTE_TYPE if primary else gatt.GATT_SECONDARY_SERVICE_ATTRIBUTE_TYPE
        add(service.handle, kind, service.uuid.to_bytes())
        for characteristic in service.characteristics:
            declaration = struct.pack("<BH", int(characteristic.properties), characteristic.handle)
            add(characteristic.handle - 1, gatt.GATT_CHARACTERISTIC_ATTRIBUTE_TYPE, declaration + characteristic.uuid.to_bytes())
            for descriptor in characteristic.descriptors:
                value = b""
                if descriptor.type == gatt.GATT_CHARACTERISTIC_EXTENDED_PROPERTIES_DESCRIPTOR:
                    value = bytes(await descriptor.read_value())
                add(descriptor.handle, descriptor.type, value)
    attributes.sort(key=lambda attribute: attribute.handle)
    message = b"".join(GenericAttributeProfileService.get_attribute_data(attribute) for attribute in attributes)
    return crypto.aes_cmac(m=message, k=bytes(16))[::-1].hex()


def static_address() -> str:
    raw = bytearray(secrets.token_bytes(6))
    raw[0] |= 0xC0
    return ":".join(f"{byte:02X}" for byte in raw)


def advertised_name(advertisement: Advertisement) -> str | None:
    for kind in (AdvertisingData.COMPLETE_LOCAL_NAME, AdvertisingData.SHORTENED_LOCAL_NAME):
        value = advertisement.data.get(kind)
        if value:
            return value if isinstance(value, str) else bytes(value).decode(errors="replace")
    return None


def uuid_text(uuid: UUID) -> str:
    """`2a00` for a 16-bit UUID, `e5b1f001-7c3a-4f0e-9d2b-5a1c3e7f9b20` for a 128-bit one."""
    text = uuid.to_hex_str().lower()
    if len(text) == 32:
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
    return text


def properties(characteristic: Any) -> list[str]:
    return [flag.name for flag in Characteristic.Properties if characteristic.properties & flag and flag.name]


class Action(argparse.Action):
    """--write UUID=HEX, --write-command UUID=HEX, --read UUID, --pause SECONDS and --answer-challenge
    UUID=KEYHEX, kept in the order given."""

    OPS = {
        "--write": "write",
        "--write-command": "write_command",
        "--read": "read",
        "--pause": "pause",
        "--answer-challenge": "answer_challenge",
    }

    def __call__(self, parser: Any, namespace: Any, text: Any, option: Any = None) -> None:
        op = self.OPS[str(option)]
        try:
            if op == "pause":
                action: dict[str, Any] = {"op": op, "uuid": None, "seconds": float(text)}
            else:
                target, _, value = str(text).partition("=")
                action = {"op": op, "uuid": uuid_text(UUID(target))}
                if op != "read":
                    action["value"] = bytes.fromhex(value)
        except ValueError as error:
            parser.error(f"{option} {text!r}: {error}")
        namespace.actions = [*namespace.actions, action]


def challenge_answer(key: bytes, challenge: bytes) -> bytes:
    """The esp-point's Auth answer: the first 16 bytes of HMAC-SHA256(key, challenge)."""
    return hmac.new(key, challenge, hashlib.sha256).digest()[:16]


async def scan(device: Device, target: str, timeout: float) -> tuple[hci.Address, str | None]:
    found: asyncio.Future[tuple[hci.Address, str | None]] = asyncio.get_running_loop().create_future()
    names: dict[str, str] = {}
    wanted = target.upper()

    def on_advertisement(advertisement: Advertisement) -> None:
        address = advertisement.address.to_string(False).upper()
        name = advertised_name(advertisement)
        if name:
            names[address] = name
        if found.done() or not advertisement.is_connectable and not advertisement.is_scan_response:
            return
        if address == wanted or names.get(address) == target:
            found.set_result((advertisement.address, names.get(address)))

    device.on("advertisement", on_advertisement)
    await device.start_scanning(active=True, filter_duplicates=False)
    try:
        return await asyncio.wait_for(found, timeout)
    except asyncio.TimeoutError:
        heard = ", ".join(f"{address} {name!r}" for address, name in names.items()) or "nothing with a name"
        raise Failure("scan", f"{target!r} not seen within {timeout} s (heard: {heard})") from None
    finally:
        device.remove_listener("advertisement", on_advertisement)
        await device.stop_scanning()


async def run(arguments: argparse.Namespace, device: Device) -> dict[str, Any]:
    timings: dict[str, float] = {}
    began = time.monotonic()

    def mark(stage: str) -> None:
        timings[stage] = round((time.monotonic() - began) * 1000, 1)

    address, name = await scan(device, arguments.target, arguments.scan_timeout)
    mark("scan_ms")
    try:
        connection = await device.connect(address, timeout=arguments.scan_timeout)
    except Exception as error:  # Bumble raises several kinds
        raise Failure("connect", f"connecting to {address}: {error!r}") from error
    mark("connect_ms")
    disconnected: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    connection.on("disconnection", lambda reason: disconnected.done() or disconnected.set_result(reason))

    peer = Peer(connection)
    try:
        mtu = await peer.request_mtu(arguments.mtu)
        mark("mtu_ms")
        await peer.discover_all()
        mark("discover_ms")
    except Exception as error:
        raise Failure("discover", repr(error)) from error

    database_hash = await discovered_database_hash(peer)

    services: list[dict[str, Any]] = []
    by_uuid: dict[str, Any] = {}
    pushed: dict[int, list[bytes]] = {}
    for service in peer.services:
        entries = []
        for characteristic in service.characteristics:
            by_uuid[uuid_text(characteristic.uuid)] = characteristic
            entry: dict[str, Any] = {
                "uuid": uuid_text(characteristic.uuid),
                "handle": characteristic.handle,
                "properties": properties(characteristic),
                "descriptors": [
                    {"uuid": uuid_text(descriptor.type), "handle": descriptor.handle}
                    for descriptor in characteristic.descriptors
                ],
            }
            if characteristic.properties & Characteristic.Properties.READ:
                try:
                    entry["value"] = (await characteristic.read_value()).hex()
                except att.ATT_Error as error:
                    entry["error"] = error.error_code
            entries.append(entry)
        services.append({"uuid": uuid_text(service.uuid), "characteristics": entries})
    mark("read_ms")

    for service in peer.services:
        for characteristic in service.characteristics:
            if characteristic.properties & (Characteristic.Properties.NOTIFY | Characteristic.Properties.INDICATE):
                values = pushed.setdefault(characteristic.handle, [])
                try:
                    await peer.subscribe(characteristic, lambda value, values=values: values.append(bytes(value)))
                except att.ATT_Error as error:
                    log.warning("subscribing to %s failed: %s", characteristic.uuid, error)
    mark("subscribed_ms")

    done: list[dict[str, Any]] = []
    for action in arguments.actions:
        record: dict[str, Any] = {"op": action["op"], "uuid": action["uuid"]}
        if action["op"] == "pause":
            # Notifications keep arriving meanwhile; a link the peripheral ends ends the pause.
            try:
                await asyncio.wait_for(asyncio.shield(disconnected), action["seconds"])
            except asyncio.TimeoutError:
                pass
            done.append(record)
            continue
        characteristic = by_uuid.get(action["uuid"])
        if characteristic is None:
            raise Failure(action["op"], f"no characteristic {action['uuid']}")
        try:
            if action["op"] == "read":
                record["value"] = (await characteristic.read_value()).hex()
            elif action["op"] == "answer_challenge":
                challenge = bytes(await characteristic.read_value())
                record["value"] = challenge.hex()
                await characteristic.write_value(challenge_answer(action["value"], challenge), with_response=True)
            else:
                await characteristic.write_value(action["value"], with_response=action["op"] == "write")
        except att.ATT_Error as error:
            record["error"] = error.error_code
        done.append(record)
    mark("actions_ms")

    reason = None
    try:
        reason = await asyncio.wait_for(asyncio.shield(disconnected), arguments.listen)
    except asyncio.TimeoutError:
        pass
    for service in services:
        for entry in service["characteristics"]:
            if entry["handle"] in pushed:
                values = pushed[entry["handle"]]
                entry["notifications"] = [value.hex() for value in values[: arguments.keep]]
                entry["notification_count"] = len(values)
    if reason is None:
        await connection.disconnect()
    mark("done_ms")
    return {
        "target": {"address": address.to_string(False), "name": name},
        "mtu": mtu,
        "services": services,
        "database_hash_bumble": database_hash,
        "notifications": sum(len(values) for values in pushed.values()),
        "actions": done,
        "disconnect_reason": reason,
        "timings": timings,
    }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(parser)
    parser.add_argument("--target", required=True, help="the peripheral's advertised name or address")
    parser.add_argument("--address", help="own random static address (default: a fresh random one)")
    parser.add_argument("--mtu", type=int, default=247, help="ATT MTU to ask for")
    parser.add_argument("--scan-timeout", type=float, default=10.0, help="seconds to find and connect the target")
    parser.add_argument("--listen", type=float, default=0.5, help="seconds to collect notifications at the end")
    parser.add_argument("--keep", type=int, default=50, help="notification values to report per characteristic")
    parser.set_defaults(actions=[])
    parser.add_argument("--write", action=Action, metavar="UUID=HEX", help="write with response, after subscribing")
    parser.add_argument("--write-command", action=Action, metavar="UUID=HEX", help="write without response")
    parser.add_argument("--read", action=Action, metavar="UUID", help="read again, in order with the writes")
    parser.add_argument(
        "--pause", action=Action, metavar="SECONDS", help="wait, collecting notifications, before the next action"
    )
    parser.add_argument(
        "--answer-challenge",
        action=Action,
        metavar="UUID=KEYHEX",
        help="read a challenge from UUID and write back the first 16 bytes of HMAC-SHA256(KEY, challenge)",
    )
    arguments = parser.parse_args()
    setup_logging("central")
    watch_lifeline(not arguments.no_lifeline)

    try:
        transport = await open_hci(arguments.hci)
    except Exception as error:
        emit("ERROR", {"stage": "hci", "error": f"cannot open {arguments.hci}: {error!r}"})
        return 1
    async with transport:
        address = arguments.address or static_address()
        device = Device.with_hci("Bumble-Central", hci.Address(address), transport.source, transport.sink)
        try:
            await device.power_on()
        except Exception as error:
            emit("ERROR", {"stage": "hci", "error": f"powering on over {arguments.hci}: {error!r}"})
            return 1
        emit("READY", {"address": address, "hci": arguments.hci, "target": arguments.target})
        try:
            result = await run(arguments, device)
        except Failure as failure:
            emit("ERROR", {"stage": failure.stage, "error": str(failure)})
            return 1
        emit("RESULT", result)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main()))
    except KeyboardInterrupt:
        sys.exit(130)
