"""HCI packets encoded by Bumble, for blerig's codec tests: one JSON object per line, {"name": ..., "hex": ...}.

The names are the ones HCIBumbleVectorTests.swift builds with blerig's own encoders; the parameters here and
there must match. Run with the interop venv's python; it reads nothing and prints to stdout.
"""

import json

from bumble.hci import (
    Address,
    HCI_Command_Complete_Event,
    HCI_Command_Status_Event,
    HCI_Disconnect_Command,
    HCI_Disconnection_Complete_Event,
    HCI_LE_Connection_Complete_Event,
    HCI_LE_Connection_Update_Command,
    HCI_LE_Create_Connection_Cancel_Command,
    HCI_LE_Create_Connection_Command,
    HCI_LE_Data_Length_Change_Event,
    HCI_LE_Extended_Create_Connection_Command,
    HCI_LE_PHY_Update_Complete_Event,
    HCI_LE_Set_Advertising_Data_Command,
    HCI_LE_Set_Advertising_Enable_Command,
    HCI_LE_Set_Advertising_Parameters_Command,
    HCI_LE_Set_Data_Length_Command,
    HCI_LE_Set_Event_Mask_Command,
    HCI_LE_Set_Extended_Scan_Enable_Command,
    HCI_LE_Set_Extended_Scan_Parameters_Command,
    HCI_LE_Set_PHY_Command,
    HCI_LE_Set_Random_Address_Command,
    HCI_LE_Set_Scan_Enable_Command,
    HCI_LE_Set_Scan_Parameters_Command,
    HCI_LE_Set_Scan_Response_Data_Command,
    HCI_Number_Of_Completed_Packets_Event,
    HCI_Reset_Command,
    HCI_Set_Event_Mask_Command,
)

PEER = Address("C0:AA:BB:CC:DD:EE", Address.RANDOM_DEVICE_ADDRESS)
RANDOM = Address("C1:22:33:44:55:66", Address.RANDOM_DEVICE_ADDRESS)

packets = {
    "reset": HCI_Reset_Command(),
    "setEventMask": HCI_Set_Event_Mask_Command(event_mask=(0x2000800002008890).to_bytes(8, "little")),
    "leSetEventMask": HCI_LE_Set_Event_Mask_Command(le_event_mask=(0x1A7F).to_bytes(8, "little")),
    "leSetRandomAddress": HCI_LE_Set_Random_Address_Command(random_address=RANDOM),
    "leSetAdvertisingParameters": HCI_LE_Set_Advertising_Parameters_Command(
        advertising_interval_min=160,
        advertising_interval_max=160,
        advertising_type=0,
        own_address_type=1,
        peer_address_type=0,
        peer_address=Address("00:00:00:00:00:00"),
        advertising_channel_map=7,
        advertising_filter_policy=0,
    ),
    "leSetAdvertisingData": HCI_LE_Set_Advertising_Data_Command(advertising_data=bytes([2, 1, 6, 3, 9, 0x41, 0x42])),
    "leSetScanResponseData": HCI_LE_Set_Scan_Response_Data_Command(scan_response_data=bytes([3, 9, 0x41, 0x42])),
    "leSetAdvertisingEnable": HCI_LE_Set_Advertising_Enable_Command(advertising_enable=1),
    "leSetScanParameters": HCI_LE_Set_Scan_Parameters_Command(
        le_scan_type=1, le_scan_interval=16, le_scan_window=16, own_address_type=1, scanning_filter_policy=0
    ),
    "leSetScanEnable": HCI_LE_Set_Scan_Enable_Command(le_scan_enable=1, filter_duplicates=0),
    "leCreateConnection": HCI_LE_Create_Connection_Command(
        le_scan_interval=16,
        le_scan_window=16,
        initiator_filter_policy=0,
        peer_address_type=1,
        peer_address=PEER,
        own_address_type=1,
        connection_interval_min=12,
        connection_interval_max=12,
        max_latency=0,
        supervision_timeout=400,
        min_ce_length=0,
        max_ce_length=0,
    ),
    "leCreateConnectionCancel": HCI_LE_Create_Connection_Cancel_Command(),
    "leExtendedCreateConnection": HCI_LE_Extended_Create_Connection_Command(
        initiator_filter_policy=0,
        own_address_type=1,
        peer_address_type=1,
        peer_address=PEER,
        initiating_phys=1,
        scan_intervals=[16],
        scan_windows=[16],
        connection_interval_mins=[12],
        connection_interval_maxs=[12],
        max_latencies=[0],
        supervision_timeouts=[400],
        min_ce_lengths=[0],
        max_ce_lengths=[0],
    ),
    "leSetExtendedScanParameters": HCI_LE_Set_Extended_Scan_Parameters_Command(
        own_address_type=1,
        scanning_filter_policy=0,
        scanning_phys=1,
        scan_types=[1],
        scan_intervals=[16],
        scan_windows=[16],
    ),
    "leSetExtendedScanEnable": HCI_LE_Set_Extended_Scan_Enable_Command(
        enable=1, filter_duplicates=0, duration=0, period=0
    ),
    "leConnectionUpdate": HCI_LE_Connection_Update_Command(
        connection_handle=0x40,
        connection_interval_min=24,
        connection_interval_max=40,
        max_latency=1,
        supervision_timeout=500,
        min_ce_length=0,
        max_ce_length=0,
    ),
    "leSetDataLength": HCI_LE_Set_Data_Length_Command(connection_handle=0x40, tx_octets=251, tx_time=2120),
    "leSetPHY": HCI_LE_Set_PHY_Command(connection_handle=0x40, all_phys=0, tx_phys=2, rx_phys=3, phy_options=0),
    "disconnect": HCI_Disconnect_Command(connection_handle=0x40, reason=0x13),
    # Events, to decode.
    "commandComplete": HCI_Command_Complete_Event(
        num_hci_command_packets=1, command_opcode=0x0C03, return_parameters=bytes([0])
    ),
    "commandStatus": HCI_Command_Status_Event(status=0x0C, num_hci_command_packets=1, command_opcode=0x200D),
    "disconnectionComplete": HCI_Disconnection_Complete_Event(status=0, connection_handle=0x40, reason=0x08),
    "numberOfCompletedPackets": HCI_Number_Of_Completed_Packets_Event(
        connection_handles=[0x40, 0x41], num_completed_packets=[2, 1]
    ),
    "leConnectionComplete": HCI_LE_Connection_Complete_Event(
        status=0,
        connection_handle=0x40,
        role=0,
        peer_address_type=1,
        peer_address=PEER,
        connection_interval=12,
        peripheral_latency=0,
        supervision_timeout=400,
        central_clock_accuracy=0,
    ),
    "leDataLengthChange": HCI_LE_Data_Length_Change_Event(
        connection_handle=0x40, max_tx_octets=251, max_tx_time=2120, max_rx_octets=27, max_rx_time=328
    ),
    "lePHYUpdateComplete": HCI_LE_PHY_Update_Complete_Event(status=0, connection_handle=0x40, tx_phy=2, rx_phy=2),
}

for name, packet in packets.items():
    print(json.dumps({"name": name, "hex": bytes(packet).hex()}))
