import BLECore

/// The radio a board model advertises on: the farm's ``VirtualAir``, shared by every board of the farm, or a
/// controller of the board's own reached over HCI (see ``HostedBoard``). Connections come the other way: the radio
/// hands each new one to the board as a ``PeripheralBearer``.
///
/// The board calls these on its simulation's thread only.
public protocol BoardRadio: AnyObject {
    /// The advertising interval of a board whose settings name none.
    var defaultAdvertisingInterval: Duration { get }

    /// The board at `address` advertises `set` from now on (a new set, new data in it), or stops advertising when
    /// `set` is nil: it is connected, off, booting, or silent.
    func setAdvertising(_ set: AdvertisingState?, of address: DeviceAddress)
}
