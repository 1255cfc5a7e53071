import BLECore

/// Walks a peripheral's whole GATT table on an open connection: primary services, their characteristics, their
/// descriptors, and the value of every attribute that may be read.
///
/// It never reads what is not readable: a characteristic value only when the characteristic has the Read
/// property. Descriptors have no properties a client can see, so each one is read, and a refusal (Read Not
/// Permitted, Insufficient Authentication, ...) is recorded as that descriptor's result. Any ATT error is an answer
/// and stays in place in the table; a failure that leaves the bearer unusable (the link lost, a transaction timed
/// out, a malformed response) or the task being cancelled ends the walk, with what was found so far kept.
public enum GATTWalker {
    /// Walks the table on `connection`, which the caller opened and closes. Never throws: how far it got is in
    /// ``GATTTable/stopped``.
    public static func walk(_ connection: any GATTConnection) async -> GATTTable {
        var table = GATTTable()
        do throws(GATTTable.Stop) {
            let services = try await attempt("discovering primary services") { () async throws(GATTError) in
                try await connection.discoverPrimaryServices(nil)
            }
            switch services {
            case let .failure(code):
                throw GATTTable.Stop(
                    during: "discovering primary services",
                    error: .att(code, request: .readByGroupTypeRequest, handle: 1))
            case let .success(services):
                for service in services {
                    table.services.append(GATTTable.Service(uuid: service.uuid, handles: service.handles))
                    try await walk(service, on: connection, into: &table.services[table.services.count - 1])
                }
            }
        } catch {
            table.stopped = error
        }
        return table
    }

    private static func walk(
        _ service: GATT.Service, on connection: any GATTConnection, into entry: inout GATTTable.Service
    ) async throws(GATTTable.Stop) {
        let found = try await attempt("discovering the characteristics of service \(service.uuid)") {
            () async throws(GATTError) in try await connection.discoverCharacteristics(of: service)
        }
        let characteristics: [GATT.Characteristic]
        switch found {
        case let .failure(code):
            entry.discoveryError = code
            return
        case let .success(list): characteristics = list
        }
        for characteristic in characteristics {
            entry.characteristics.append(
                GATTTable.Characteristic(
                    uuid: characteristic.uuid, properties: characteristic.properties,
                    declarationHandle: characteristic.declarationHandle, valueHandle: characteristic.valueHandle))
            try await walk(
                characteristic, on: connection, into: &entry.characteristics[entry.characteristics.count - 1])
        }
    }

    private static func walk(
        _ characteristic: GATT.Characteristic, on connection: any GATTConnection,
        into entry: inout GATTTable.Characteristic
    ) async throws(GATTTable.Stop) {
        if characteristic.properties.contains(.read) {
            entry.value = try await read(
                characteristic.valueHandle, "reading characteristic \(characteristic.uuid)", on: connection)
        }
        guard characteristic.descriptorHandles != nil else { return }
        let found = try await attempt("discovering the descriptors of characteristic \(characteristic.uuid)") {
            () async throws(GATTError) in try await connection.discoverDescriptors(of: characteristic)
        }
        switch found {
        case let .failure(code):
            entry.discoveryError = code
        case let .success(descriptors):
            for descriptor in descriptors {
                let value = try await read(
                    descriptor.handle, "reading descriptor \(descriptor.uuid) of \(characteristic.uuid)", on: connection
                )
                entry.descriptors.append(
                    GATTTable.Descriptor(uuid: descriptor.uuid, handle: descriptor.handle, value: value))
            }
        }
    }

    private static func read(
        _ handle: UInt16, _ during: String, on connection: any GATTConnection
    ) async throws(GATTTable.Stop) -> GATTTable.ReadResult {
        switch try await attempt(during, { () async throws(GATTError) in try await connection.read(handle) }) {
        case let .success(value): .value(value)
        case let .failure(code): .error(code)
        }
    }

    /// Runs one GATT operation: its value, or the ATT error the server answered with. Anything else stops the walk.
    private static func attempt<T>(
        _ during: String, _ operation: () async throws(GATTError) -> T
    ) async throws(GATTTable.Stop) -> Result<T, ATT.ErrorCode> {
        guard !Task.isCancelled else { throw GATTTable.Stop(during: during, error: nil) }
        do {
            return .success(try await operation())
        } catch {
            if Task.isCancelled { throw GATTTable.Stop(during: during, error: nil) }
            if case let .att(code, _, _) = error { return .failure(code) }
            throw GATTTable.Stop(during: during, error: error)
        }
    }
}
