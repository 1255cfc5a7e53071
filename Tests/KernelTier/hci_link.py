#!/usr/bin/env python3
"""Host side of the guest's hci_vhci: one Bumble link (the air) with two software controllers on it.

- The guest's controller answers on a Unix socket that qemu's virtio-serial port connects to; the guest's
  vhci_bridge.py carries its H4 packets to /dev/vhci, so the guest kernel's hci0 is this controller.
- Peers' controllers answer on a TCP port: each connection gets a controller of its own on the same link (public
  address F0:00:00:00:01:NN), where a served board (blerig's board model on its own HCI host) or any other host
  connects; several boards are several connections.

    hci_link.py --guest-socket /path/hci.sock [--guest-address F0:00:00:00:00:01]

Three fixes to Bumble 0.0.236 make it behave like a real air and a real controller: LE data from the address the
connection was made with, scan responses that carry the scan response data, and the LE Enhanced Connection Complete
event where the host unmasked it.

Prints `READY {"peer_hci": "tcp:127.0.0.1:PORT", ...}` once both listen; exits when stdin closes (the test
holds it). Run with the interop venv's Python (Bumble 0.0.236).
"""
import argparse
import asyncio
import dataclasses
import json
import logging
import os
import socket
import sys

from bumble import core, hci
from bumble.controller import Controller
from bumble.link import LocalLink
from bumble.transport import open_transport
from bumble.transport.common import StreamPacketSink, StreamPacketSource


class ConnectionAddressLink(LocalLink):
    """Bumble 0.0.236's LocalLink sends LE data from the sender's random address even when the connection was
    made from its public one (as the kernel's host does), so the receiver finds no connection for it and drops
    every ACL packet. This link sends from whichever of the sender's addresses the receiver is connected to."""

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport != core.PhysicalTransport.LE:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        destination = self.find_le_controller(destination_address)
        if destination is None:
            return None
        candidates = [sender_controller.random_address, sender_controller.public_address]
        source = next((a for a in candidates if a in destination.le_connections), candidates[0])
        asyncio.get_running_loop().call_soon(lambda: destination.on_link_acl_data(source, transport, data))
        return None


class SpecController(Controller):
    """Bumble 0.0.236's controller where it departs from the spec in ways a host sees:
    - it answers an active scan with a scan response that carries the advertiser's advertising data again, never
      its scan response data, so a name sent in the scan response (the esp-point's) never reaches the scanning
      host: this controller puts the advertiser's scan response data in its place;
    - it sends LE Connection Complete where the host asked for LE Enhanced Connection Complete (``enhanced``)."""

    def send_hci_packet(self, packet):
        if isinstance(packet, hci.HCI_LE_Connection_Complete_Event):
            packet = self.enhanced(packet)
        if isinstance(packet, hci.HCI_LE_Advertising_Report_Event):
            scan_response = hci.HCI_LE_Advertising_Report_Event.EventType.SCAN_RSP
            packet = hci.HCI_LE_Advertising_Report_Event([self.answered(r, scan_response) for r in packet.reports])
        elif isinstance(packet, hci.HCI_LE_Extended_Advertising_Report_Event):
            scan_response = hci.HCI_LE_Extended_Advertising_Report_Event.EventType.SCAN_RESPONSE
            packet = hci.HCI_LE_Extended_Advertising_Report_Event(
                [self.answered(r, scan_response) for r in packet.reports])
        super().send_hci_packet(packet)

    # LE Set Event Mask bit 9: LE Enhanced Connection Complete (Core 5.x, Vol 4, Part E, 7.8.1).
    ENHANCED_CONNECTION_COMPLETE = 1 << 9

    def enhanced(self, event):
        """Bumble 0.0.236 sends LE Connection Complete even when the host unmasked LE Enhanced Connection Complete,
        which the spec says replaces it. Linux 6.1 (ext-adv or LL-privacy controllers) waits for the enhanced event
        after LE Create Connection: on the legacy one it sets the link up, yet its connect command times out 4 s
        later, it sends LE Create Connection Cancel, and it did not disconnect that link in the 35 s that followed
        (mgmt Disconnect and the last socket closing sent no HCI Disconnect): the board stayed connected and silent."""
        if not self.le_event_mask & self.ENHANCED_CONNECTION_COMPLETE:
            return event
        none = hci.Address("00:00:00:00:00:00")
        return hci.HCI_LE_Enhanced_Connection_Complete_Event(
            status=event.status, connection_handle=event.connection_handle, role=event.role,
            peer_address_type=event.peer_address_type, peer_address=event.peer_address,
            local_resolvable_private_address=none, peer_resolvable_private_address=none,
            connection_interval=event.connection_interval, peripheral_latency=event.peripheral_latency,
            supervision_timeout=event.supervision_timeout, central_clock_accuracy=event.central_clock_accuracy)

    def answered(self, report, scan_response):
        if report.event_type != scan_response:
            return report
        advertiser = self.link.find_le_controller(report.address)
        if advertiser is None:
            return report
        data = advertiser.le_legacy_advertiser.scan_response_data
        if not data:
            data = next((bytes(s.scan_response_data) for s in advertiser.advertising_sets.values()
                         if s.scan_response_data), b"")
        return dataclasses.replace(report, data=bytes(data))


class PeerControllers:
    """One controller on the link per TCP connection, gone from the link when its connection ends."""

    def __init__(self, link):
        self.link = link
        self.count = 0

    def protocol(self):
        peers = self

        class Connection(StreamPacketSource):
            def connection_made(self, transport):
                peers.count += 1
                address = f"F0:00:00:00:01:{peers.count:02X}"
                self.controller = SpecController(f"peer-{peers.count}", host_source=self,
                                                 host_sink=StreamPacketSink(transport), link=peers.link,
                                                 public_address=address)

            def connection_lost(self, error):
                controller = getattr(self, "controller", None)
                if controller is not None and controller in peers.link.controllers:
                    peers.link.remove_controller(controller)

        return Connection()


async def run(args):
    link = ConnectionAddressLink()
    if os.path.exists(args.guest_socket):
        os.unlink(args.guest_socket)
    guest = await open_transport(f"unix-server:{args.guest_socket}")
    SpecController("guest", host_source=guest.source, host_sink=guest.sink, link=link,
                           public_address=args.guest_address)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    peers = PeerControllers(link)
    await asyncio.get_running_loop().create_server(peers.protocol, sock=listener)
    ready = {"peer_hci": f"tcp:127.0.0.1:{port}", "guest_socket": args.guest_socket,
             "guest_address": args.guest_address}
    sys.stdout.write(f"READY {json.dumps(ready, sort_keys=True)}\n")
    sys.stdout.flush()
    # The test holds stdin: end-of-file means it is gone.
    loop = asyncio.get_running_loop()
    closed = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: closed.done() or (os.read(sys.stdin.fileno(), 4096) or
                                                                  closed.set_result(None)))
    await closed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guest-socket", required=True)
    parser.add_argument("--guest-address", default="F0:00:00:00:00:01",
                        help="the public address of the guest's controller (the kernel's hci0)")
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("BUMBLE_LOGLEVEL", "WARNING").upper(),
                        format="%(asctime)s.%(msecs)03d hci_link %(levelname)s %(name)s: %(message)s",
                        datefmt="%H:%M:%S")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
