import BLECore
import FuzzSupport

/// The advertising data decoder (`AdvertisingData(decoding:)`, Core 5.4 Vol 3 Part C §11, Supplement Part A): any
/// bytes throw a `DecodingError` inside the input, or decode to structures that encode back to the input's
/// significant part, with only zero padding after it. The accessors a scanner uses never trap on what decoded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAdvertising(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let advertising: AdvertisingData
    do {
        advertising = try AdvertisingData(decoding: bytes)
    } catch {
        checkDecodingError(error, inputCount: bytes.count)
        return 0
    }
    let encoded: [UInt8]
    do {
        encoded = try advertising.encoded(maximumLength: Int.max)
    } catch {
        invariant(false, "\(hex(bytes)) decoded to \(advertising), which does not encode: \(error)")
        return 0
    }
    invariant(
        Array(bytes.prefix(encoded.count)) == encoded && bytes.dropFirst(encoded.count).allSatisfy { $0 == 0 },
        "\(hex(bytes)) decoded to \(advertising), which encodes to \(hex(encoded))")
    invariant(
        advertising.fitsLegacyAdvertising == (encoded.count <= AdvertisingData.legacyMaximumLength),
        "\(advertising): fitsLegacyAdvertising disagrees with its \(encoded.count) encoded bytes")

    // What a scanner reads off a report: none of it may trap, and each accessor finds the first structure it names.
    _ = advertising.flags
    _ = advertising.localName
    _ = advertising.txPowerLevel
    _ = advertising.appearance
    _ = advertising.description
    _ = advertising.serviceUUIDs
    // One pass groups the structures by type, in order; then `structures(of:)` is asked once per type present and
    // must give exactly that group, so every structure is found by its own type (and nothing else is). Asking it
    // once per structure instead cost n² on a long input of many short structures.
    var byType: [ADType: [ADStructure]] = [:]
    var seenCompanies: Set<CompanyIdentifier> = []
    var seenServices: Set<BluetoothUUID> = []
    for structure in advertising.structures {
        _ = structure.description
        byType[structure.type, default: []].append(structure)
        switch structure {
        case let .manufacturerData(company, bytes) where seenCompanies.insert(company).inserted:
            invariant(advertising.manufacturerData(for: company) == bytes, "\(advertising): data of \(company)")
        case let .serviceData(uuid, bytes, _) where seenServices.insert(uuid).inserted:
            invariant(advertising.serviceData(for: uuid) == bytes, "\(advertising): data of \(uuid)")
        default:
            break
        }
    }
    for (type, expected) in byType {
        let found = advertising.structures(of: type)
        invariant(found == expected, "\(advertising): structures(of: \(type)) gave \(found), not \(expected)")
    }
    return 0
}
