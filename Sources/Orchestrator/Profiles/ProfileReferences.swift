import BLECore
import DeviceProfiles

/// Checks that what a profile file's behaviour names is in its table, with the properties it needs, and required
/// (the central relies on it): ready subscriptions, the periodic notification, command writes and the
/// notifications they expect.
struct ProfileReferences {
    let profile: DataProfile
    let diagnostics: RigDiagnostics

    /// A characteristic the central subscribes to: notify or indicate.
    mutating func subscribable(_ uuid: BluetoothUUID, at location: SourceLocation, role: String) {
        guard let found = present(uuid, at: location, role: role) else { return }
        if found.properties.isDisjoint(with: [.notify, .indicate]) {
            diagnostics.record(
                .invalidValue, "\(role) \(uuid) must have the notify or indicate property", at: location)
        }
    }

    /// A command: its characteristic takes the write, and its expected notification can be subscribed.
    mutating func writable(_ command: DataProfile.Command, at location: SourceLocation) {
        let role = "write \(RigWording.quoted(command.name))"
        if let found = present(command.characteristic, at: location, role: role) {
            let needed: GATT.CharacteristicProperties = command.withoutResponse ? .writeWithoutResponse : .write
            if !found.properties.contains(needed) {
                diagnostics.record(
                    .invalidValue,
                    "\(role): \(command.characteristic) lacks the "
                        + "\(command.withoutResponse ? "write-without-response" : "write") property", at: location)
            }
        }
        if let expected = command.expect.notification {
            subscribable(expected.characteristic, at: location, role: "the notification \(role) expects on")
        }
    }

    private func present(_ uuid: BluetoothUUID, at location: SourceLocation, role: String) -> DataProfile.Characteristic? {
        guard let (service, characteristic) = profile.characteristic(uuid) else {
            diagnostics.record(.invalidValue, "\(role) \(uuid) is not a characteristic of 'services'", at: location)
            return nil
        }
        let serviceRequired = profile.services.first { $0.uuid == service }?.required ?? false
        if !characteristic.required || !serviceRequired {
            diagnostics.record(
                .invalidValue, "\(role) \(uuid) must be required (it and its service), as the central relies on it",
                at: location)
        }
        return characteristic
    }
}
