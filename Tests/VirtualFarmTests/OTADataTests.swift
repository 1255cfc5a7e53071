import BLECore
import DeviceProfiles
import Testing

@testable import VirtualFarm

/// `otadata` as bytes in two sectors, and how NOR writes tear: the bootloader's choice survives any torn sector.
@Suite("otadata and torn flash writes")
struct OTADataTests {
    typealias Entry = OTAData.Entry

    @Test("blank otadata boots bank A; switching writes ota_seq for the bank into the sector without the active entry")
    func switching() {
        var otadata = OTAData()
        #expect(otadata.active == nil)
        #expect(otadata.selectedBank == .a)
        let (sector, bytes) = otadata.switching(to: .b)
        #expect(sector == 0)
        #expect(Entry(decoding: bytes) == Entry(seq: 2, state: .new))
        otadata.sectors[sector] = bytes
        #expect(otadata.selectedBank == .b)
        let back = otadata.switching(to: .a)
        #expect(back.sector == 1)
        #expect(Entry(decoding: back.bytes) == Entry(seq: 3, state: .new))
    }

    @Test("an aborted or invalid newest entry sends the bootloader to the other bank, even with no other entry")
    func refusedEntries() {
        for state in [OTAData.State.aborted, .invalid] {
            var otadata = OTAData()
            otadata.sectors[0] = Entry(seq: 2, state: state).encoded
            #expect(otadata.active == nil)
            #expect(otadata.selectedBank == .a, "\(state)")
            otadata.sectors[1] = Entry(seq: 3, state: state).encoded  // bank A refused, B's entry is older and refused
            #expect(otadata.selectedBank == .b, "\(state)")
        }
    }

    @Test("a sector torn at any point of its rewrite never decodes as a third entry: old, new or nothing", arguments: 0..<40)
    func tornSector(step: Int) {
        let old = Entry(seq: 2, state: .pendingVerify).encoded
        let new = Entry(seq: 2, state: .valid).encoded
        var random = SeededRandom(seed: UInt64(step))
        let fraction = Double(step) / 40
        let torn = FlashTear.torn(old: old, new: new, fraction: fraction, eraseShare: 0.99, random: &random)
        let decoded = Entry(decoding: torn)
        #expect(decoded == nil || decoded == Entry(decoding: old) || decoded == Entry(decoding: new))
    }

    @Test("a torn page program leaves the part before the cut programmed and the part after it erased")
    func tornProgram() {
        let new = [UInt8](repeating: 0x00, count: 1_000)
        let old = [UInt8](repeating: 0xFF, count: 1_000)
        var random = SeededRandom(seed: 3)
        let torn = FlashTear.torn(old: old, new: new, fraction: 0.5, eraseShare: 0, random: &random)
        #expect(torn[0..<500].allSatisfy { $0 == 0x00 })
        #expect(torn[(500 + FlashTear.unstableCells)...].allSatisfy { $0 == 0xFF })
        #expect(torn != old && torn != new)
    }

    @Test("the factory bank passes the bootloader's image check; one flipped bit fails it")
    func imageCheck() {
        var banks = FlashBanks(factory: FirmwareVersion(1, 4, 2))
        #expect(banks.bootableImage(in: .a)?.version == FirmwareVersion(1, 4, 2))
        #expect(banks.bootableImage(in: .b) == nil)
        var byte = banks.read(.bank(.a), 100..<101)
        byte[0] ^= 0x04
        banks.store(byte, in: .bank(.a), at: 100)
        #expect(banks.bootableImage(in: .a) == nil)
    }
}
