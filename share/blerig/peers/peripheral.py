#!/usr/bin/env python3
"""A Bumble GATT server for blerig's central to exercise: every GATT procedure a central uses, counters that
prove what arrived, and commands that make the peripheral notify, indicate, stream or disconnect.

    .venv-interop/bin/python peripheral.py --hci tcp:127.0.0.1:PORT [--name N] [--address A]

Prints `READY {json}` on stdout once advertising (address, name, UUIDs, handles), `EVENT {json}` on
connection, subscription and disconnection, and logs to stderr. Exits when stdin closes. The profile (UUIDs,
value layouts, command bytes, error codes) is in README.md beside this file and in PeerProfile.swift.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import struct
import sys
from typing import Any

from peer_common import add_common_arguments, crc32, emit, open_hci, setup_logging, watch_lifeline

from bumble import att, hci
from bumble.core import AdvertisingData, UUID
from bumble.device import Connection, Device
from bumble.gatt import (
    GATT_CHARACTERISTIC_USER_DESCRIPTION_DESCRIPTOR,
    Characteristic,
    CharacteristicValue,
    Descriptor,
    Service,
)

log = logging.getLogger("peripheral")


def uuid(short: int) -> str:
    """The project's custom base with the interop range 0xF0xx."""
    return f"e5b1{short:04x}-7c3a-4f0e-9d2b-5a1c3e7f9b20"


SERVICE = uuid(0xF000)
SHORT_READ = uuid(0xF001)
LONG_READ = uuid(0xF002)
ECHO = uuid(0xF003)
SINK = uuid(0xF004)
SINK_STATUS = uuid(0xF005)
NOTIFY_SOURCE = uuid(0xF006)
INDICATE_SOURCE = uuid(0xF007)
READ_ONLY = uuid(0xF008)
WRITE_ONLY = uuid(0xF009)
READ_ERROR = uuid(0xF00A)
COMMAND = uuid(0xF00B)
COUNTERS = uuid(0xF00C)

SHORT_READ_VALUE = b"blerig interop"
LONG_READ_VALUE = bytes(i % 251 for i in range(512))
READ_ONLY_VALUE = b"read only"
USER_DESCRIPTION = b"Short read"
MAXIMUM_VALUE = 512
COMPANY = 0xFFFF
MANUFACTURER_DATA = bytes([0x01, 0x00])  # profile version 1, reserved

# Command opcodes (write with response on COMMAND).
NOTIFY, INDICATE, DISCONNECT, STREAM, RESET = 0x01, 0x02, 0x03, 0x04, 0x05
# Application ATT errors.
READ_ERROR_CODE = 0x80  # READ_ERROR always answers this
UNKNOWN_OPCODE = 0x81
BAD_ARGUMENTS = 0x82
NOT_SUBSCRIBED = 0x83
END_OF_STREAM = 0xFFFFFFFF


def notification(sequence: int, size: int) -> bytes:
    """`seq u32` then filler bytes (seq + i) & 0xFF, size bytes in all."""
    return struct.pack("<I", sequence) + bytes((sequence + i) & 0xFF for i in range(size - 4))


class Counters:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.sink_count = 0
        self.sink_bytes = 0
        self.sink_crc = 0
        self.echo_writes = 0
        self.prepare_writes = 0
        self.write_only_writes = 0
        self.refused_reads = 0
        self.refused_writes = 0
        self.indications_confirmed = 0
        self.notifications_sent = 0

    def sink_status(self) -> bytes:
        return struct.pack("<III", self.sink_count, self.sink_bytes, self.sink_crc)

    def encoded(self) -> bytes:
        u16 = lambda value: min(value, 0xFFFF)
        return struct.pack(
            "<HHHHHHI",
            u16(self.echo_writes),
            u16(self.prepare_writes),
            u16(self.write_only_writes),
            u16(self.refused_reads),
            u16(self.refused_writes),
            u16(self.indications_confirmed),
            self.notifications_sent & 0xFFFFFFFF,
        )


class Peripheral:
    def __init__(self, device: Device) -> None:
        self.device = device
        self.counters = Counters()
        self.echo = b""
        self.write_only = b""
        self.tasks: set[asyncio.Task[Any]] = set()

        def fail_read(_: Connection) -> bytes:
            raise att.ATT_Error(error_code=READ_ERROR_CODE)

        self.short_read = Characteristic(
            SHORT_READ,
            Characteristic.Properties.READ,
            Characteristic.READABLE,
            self.value(read=lambda _: SHORT_READ_VALUE),
            descriptors=[
                Descriptor(GATT_CHARACTERISTIC_USER_DESCRIPTION_DESCRIPTOR, Descriptor.READABLE, USER_DESCRIPTION)
            ],
        )
        self.long_read = Characteristic(
            LONG_READ, Characteristic.Properties.READ, Characteristic.READABLE, self.value(read=lambda _: LONG_READ_VALUE)
        )
        self.echo_characteristic = Characteristic(
            ECHO,
            Characteristic.Properties.READ | Characteristic.Properties.WRITE,
            Characteristic.READABLE | Characteristic.WRITEABLE,
            self.value(read=lambda _: self.echo, write=self.on_echo_write),
        )
        self.sink = Characteristic(
            SINK, Characteristic.Properties.WRITE_WITHOUT_RESPONSE, Characteristic.WRITEABLE, self.value(write=self.on_sink)
        )
        self.sink_status = Characteristic(
            SINK_STATUS,
            Characteristic.Properties.READ,
            Characteristic.READABLE,
            self.value(read=lambda _: self.counters.sink_status()),
        )
        self.notify_source = Characteristic(NOTIFY_SOURCE, Characteristic.Properties.NOTIFY, 0, self.value())
        self.indicate_source = Characteristic(INDICATE_SOURCE, Characteristic.Properties.INDICATE, 0, self.value())
        self.read_only = Characteristic(
            READ_ONLY, Characteristic.Properties.READ, Characteristic.READABLE, self.value(read=lambda _: READ_ONLY_VALUE)
        )
        self.write_only_characteristic = Characteristic(
            WRITE_ONLY, Characteristic.Properties.WRITE, Characteristic.WRITEABLE, self.value(write=self.on_write_only)
        )
        self.read_error = Characteristic(
            READ_ERROR, Characteristic.Properties.READ, Characteristic.READABLE, self.value(read=fail_read)
        )
        self.command = Characteristic(
            COMMAND, Characteristic.Properties.WRITE, Characteristic.WRITEABLE, self.value(write=self.on_command)
        )
        self.counters_characteristic = Characteristic(
            COUNTERS,
            Characteristic.Properties.READ,
            Characteristic.READABLE,
            self.value(read=lambda _: self.counters.encoded()),
        )
        self.characteristics = {
            "short_read": self.short_read,
            "long_read": self.long_read,
            "echo": self.echo_characteristic,
            "sink": self.sink,
            "sink_status": self.sink_status,
            "notify_source": self.notify_source,
            "indicate_source": self.indicate_source,
            "read_only": self.read_only,
            "write_only": self.write_only_characteristic,
            "read_error": self.read_error,
            "command": self.command,
            "counters": self.counters_characteristic,
        }
        device.add_service(Service(SERVICE, list(self.characteristics.values())))

        # Count Prepare Write Requests (the long write procedure) before Bumble's server queues them.
        server = device.gatt_server
        prepare = server.on_att_prepare_write_request

        def counting_prepare(bearer: Any, request: Any) -> None:
            self.counters.prepare_writes += 1
            prepare(bearer, request)

        server.on_att_prepare_write_request = counting_prepare

        device.on("connection", self.on_connection)
        for name in ("notify_source", "indicate_source"):
            self.characteristics[name].on(
                "subscription",
                lambda connection, notify, indicate, name=name: emit(
                    "EVENT",
                    {"event": "subscription", "characteristic": name, "notify": notify, "indicate": indicate},
                ),
            )

    def value(self, read: Any = None, write: Any = None) -> CharacteristicValue:
        """A value whose missing side is refused as the spec says (Bumble's server does not check a
        characteristic's properties), and counted: a read of what is not readable, a write of what is not
        writable."""

        def refuse_read(_: Connection) -> bytes:
            self.counters.refused_reads += 1
            raise att.ATT_Error(error_code=att.ATT_READ_NOT_PERMITTED_ERROR)

        def refuse_write(_: Connection, __: bytes) -> None:
            self.counters.refused_writes += 1
            raise att.ATT_Error(error_code=att.ATT_WRITE_NOT_PERMITTED_ERROR)

        return CharacteristicValue(read=read or refuse_read, write=write or refuse_write)

    def handles(self) -> dict[str, int]:
        handles = {name: characteristic.handle for name, characteristic in self.characteristics.items()}
        handles["user_description"] = self.short_read.descriptors[0].handle
        return handles

    # Writes

    def on_echo_write(self, _: Connection, value: bytes) -> None:
        if len(value) > MAXIMUM_VALUE:
            raise att.ATT_Error(error_code=att.ATT_INVALID_ATTRIBUTE_LENGTH_ERROR)
        self.echo = bytes(value)
        self.counters.echo_writes += 1

    def on_write_only(self, _: Connection, value: bytes) -> None:
        self.write_only = bytes(value)
        self.counters.write_only_writes += 1

    def on_sink(self, _: Connection, value: bytes) -> None:
        self.counters.sink_count += 1
        self.counters.sink_bytes += len(value)
        self.counters.sink_crc = crc32(value, self.counters.sink_crc)

    def on_command(self, connection: Connection, value: bytes) -> None:
        if not value:
            raise att.ATT_Error(error_code=BAD_ARGUMENTS)
        opcode, arguments = value[0], value[1:]
        log.info("command %02x %s", opcode, arguments.hex())
        if opcode in (NOTIFY, INDICATE, STREAM):
            if len(arguments) != 4:
                raise att.ATT_Error(error_code=BAD_ARGUMENTS)
            first, size = struct.unpack("<HH", arguments)
            if size < 4 or size > connection.att_mtu - 3:
                raise att.ATT_Error(error_code=BAD_ARGUMENTS)
            source = self.indicate_source if opcode == INDICATE else self.notify_source
            if not self.subscribed(connection, source, 0x02 if opcode == INDICATE else 0x01):
                raise att.ATT_Error(error_code=NOT_SUBSCRIBED)
            work = {NOTIFY: self.notify, INDICATE: self.indicate, STREAM: self.stream}[opcode]
            self.spawn(work(connection, first, size))
        elif opcode == DISCONNECT:
            if arguments:
                raise att.ATT_Error(error_code=BAD_ARGUMENTS)
            self.spawn(self.disconnect(connection))
        elif opcode == RESET:
            self.counters.reset()
            self.echo = b""
            self.write_only = b""
        else:
            raise att.ATT_Error(error_code=UNKNOWN_OPCODE)

    # Pushes

    def subscribed(self, connection: Connection, characteristic: Characteristic, bit: int) -> bool:
        cccd = self.device.gatt_server.subscribers.get(connection, {}).get(characteristic.handle)
        return bool(cccd and cccd[0] & bit)

    async def room(self, connection: Connection) -> bool:
        """Waits while the host's ACL queue holds more than twice what the controller takes at once, so a
        long burst does not pile up in memory; False once the connection is gone."""
        queue = self.device.host.le_acl_packet_queue or self.device.host.acl_packet_queue
        while queue is not None and queue.pending > 2 * queue.max_in_flight:
            if connection.handle not in self.device.connections:
                return False
            flowed = asyncio.get_running_loop().create_future()
            queue.once("flow", lambda *_: flowed.done() or flowed.set_result(None))
            try:
                await asyncio.wait_for(flowed, 0.1)
            except asyncio.TimeoutError:
                pass
        return connection.handle in self.device.connections

    async def notify(self, connection: Connection, count: int, size: int) -> None:
        for sequence in range(count):
            if not await self.room(connection):
                return
            await self.device.notify_subscriber(connection, self.notify_source, notification(sequence, size))
            self.counters.notifications_sent += 1
        log.info("sent %d notifications of %d bytes", count, size)

    async def indicate(self, connection: Connection, count: int, size: int) -> None:
        for sequence in range(count):
            await self.device.indicate_subscriber(connection, self.indicate_source, notification(sequence, size))
            self.counters.indications_confirmed += 1
        log.info("%d indications of %d bytes confirmed", count, size)

    async def stream(self, connection: Connection, duration_ms: int, size: int) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        end = start + duration_ms / 1000
        sequence = 0
        while loop.time() < end:
            if not await self.room(connection):
                return
            await self.device.notify_subscriber(connection, self.notify_source, notification(sequence, size))
            sequence += 1
        await self.device.notify_subscriber(connection, self.notify_source, notification(END_OF_STREAM, size))
        self.counters.notifications_sent += sequence + 1
        elapsed = loop.time() - start
        log.info(
            "stream: %d notifications of %d bytes queued in %.1f ms (%.1f kB/s)",
            sequence,
            size,
            elapsed * 1000,
            sequence * size / elapsed / 1000,
        )

    async def disconnect(self, connection: Connection) -> None:
        # Let the write response reach the controller first, then end the link as a user would.
        await asyncio.sleep(0.005)
        queue = self.device.host.le_acl_packet_queue or self.device.host.acl_packet_queue
        if queue is not None and connection.handle in self.device.connections:
            try:
                await asyncio.wait_for(queue.drain(connection.handle), 1.0)
            except (asyncio.TimeoutError, ValueError):
                pass
        log.info("disconnecting %s (remote user terminated)", connection.peer_address)
        await connection.disconnect(reason=hci.HCI_REMOTE_USER_TERMINATED_CONNECTION_ERROR)

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)

        def done(task: asyncio.Task[Any]) -> None:
            self.tasks.discard(task)
            if not task.cancelled() and task.exception() is not None:
                log.warning("background work failed: %r", task.exception())

        task.add_done_callback(done)

    # Connections

    def on_connection(self, connection: Connection) -> None:
        peer = connection.peer_address.to_string(False)
        log.info("connected to %s", peer)
        emit("EVENT", {"event": "connected", "peer": peer})

        def on_mtu() -> None:
            emit("EVENT", {"event": "mtu", "mtu": connection.att_mtu})

        def on_disconnection(reason: int) -> None:
            log.info("disconnected from %s, reason 0x%02x", peer, reason)
            emit("EVENT", {"event": "disconnected", "peer": peer, "reason": reason})

        connection.on("connection_att_mtu_update", on_mtu)
        connection.on("disconnection", on_disconnection)


def advertising(name: str) -> tuple[bytes, bytes]:
    """Flags, the service UUID and the manufacturer data in the advertisement (27 of 31 bytes); the name in
    the scan response, as the esp-point board does when everything does not fit."""
    data = AdvertisingData(
        [
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS, UUID(SERVICE).to_bytes()),
            (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, struct.pack("<H", COMPANY) + MANUFACTURER_DATA),
        ]
    )
    response = AdvertisingData([(AdvertisingData.COMPLETE_LOCAL_NAME, name.encode())])
    return bytes(data), bytes(response)


def static_address() -> str:
    raw = bytearray(secrets.token_bytes(6))
    raw[0] |= 0xC0
    return ":".join(f"{byte:02X}" for byte in raw)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(parser)
    parser.add_argument("--name", default="Bumble-Interop", help="advertised local name (at most 29 bytes)")
    parser.add_argument("--address", help="random static address (default: a fresh random one)")
    parser.add_argument(
        "--advertising-interval", type=float, default=20.0, help="milliseconds between advertisements (Bumble's default is 1000)"
    )
    arguments = parser.parse_args()
    if len(arguments.name.encode()) > 29:
        parser.error("--name is longer than the 29 bytes a scan response holds")
    setup_logging("peripheral")
    watch_lifeline(not arguments.no_lifeline)

    address = arguments.address or static_address()
    transport = await open_hci(arguments.hci)
    async with transport:
        device = Device.with_hci(arguments.name, hci.Address(address), transport.source, transport.sink)
        peripheral = Peripheral(device)
        await device.power_on()
        device.advertising_data, device.scan_response_data = advertising(arguments.name)
        await device.start_advertising(
            auto_restart=True,
            own_address_type=hci.OwnAddressType.RANDOM,
            advertising_interval_min=arguments.advertising_interval,
            advertising_interval_max=arguments.advertising_interval,
        )
        log.info("advertising as %s (%s)", arguments.name, address)
        emit(
            "READY",
            {
                "address": address,
                "name": arguments.name,
                "hci": arguments.hci,
                "service": SERVICE,
                "handles": peripheral.handles(),
            },
        )
        await asyncio.get_running_loop().create_future()  # until the lifeline ends the process
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main()))
    except KeyboardInterrupt:
        sys.exit(130)
