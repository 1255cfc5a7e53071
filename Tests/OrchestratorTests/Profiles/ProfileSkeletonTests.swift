import BLECore
import Benches
import DeviceProfiles
import Foundation
import Testing

@testable import Orchestrator

/// `blerig probe --profile-skeleton`: a profile file written from a probed board loads back, and a rig naming it
/// runs the generic suites on the virtual farm.
@Suite("Profile skeletons from a probe")
struct ProfileSkeletonTests {
    @Test("probing a virtual heart-rate monitor writes a skeleton that loads and runs")
    func skeletonFromVirtualBoard() async throws {
        let rig = try RigTesting.temporaryFile(
            Array(
                """
                rig: probe
                radio: virtual
                boards:
                  - {id: hrm-01, profile: hrm, virtual: {address: "A0:9E:1A:00:12:34"}}
                virtual: {seed: 3}
                suites: [discovery]

                """.utf8))
        let skeleton = (rig as NSString).deletingLastPathComponent + "/hrm-skeleton.yaml"
        var tool = ProbeTool(radio: try RadioSpec.parse("virtual:\(rig)").get(), device: "HRM-1234")
        tool.profileSkeleton = skeleton
        var problems: [String] = []
        let status = await tool.run(
            radios: RadioOpener(), control: RunControl(), output: { _ in }, errors: { problems.append($0) })
        #expect(status == .passed, "\(problems)")

        let profile = try ProfileFile.load(contentsOf: skeleton)
        #expect(profile.name == "hrm-1234")
        #expect(profile.advertising.name == DataProfile.NamePattern("HRM-1234"))
        #expect(profile.advertising.serviceUUIDs == [StandardUUID.heartRate, StandardUUID.battery])
        #expect(profile.services.map(\.uuid) == [StandardUUID.heartRate, StandardUUID.battery])
        #expect(
            profile.services[0].characteristics.map(\.uuid) == [
                StandardUUID.heartRateMeasurement, StandardUUID.bodySensorLocation, HeartRateMonitor.alertLevel,
            ])
        #expect(profile.ready == [StandardUUID.heartRateMeasurement, StandardUUID.batteryLevel])
        #expect(profile.periodic?.decoder == .codec(.heartRateMeasurement))
        let alert = try #require(profile.characteristic(HeartRateMonitor.alertLevel)?.characteristic)
        #expect(alert.descriptors == [DataProfile.Descriptor(BluetoothUUID(0x2901), value: Array("Alert light".utf8))])
        // Written as the text it is, for the user to read.
        #expect(try String(contentsOfFile: skeleton, encoding: .utf8).contains(#"{uuid: 2901, value: "Alert light"}"#))

        // The skeleton is a working profile: the virtual farm serves it and the generic suites pass on it.
        let result = try await CampaignTests.run(
            """
            rig: skeleton
            radio: virtual
            boards:
              - {id: s-01, profile: {file: \(skeleton)}}
            virtual: {seed: 3}
            suites: [discovery, {handshake: {connections: 2}}, {notifications: {duration_s: 5}}]
            """)
        #expect(result.result.failingCheckLines() == [])
        #expect(result.result.counts.passed >= 4)
    }

    @Test(
        "a value that reads as text is written as text, anything else as hex; either loads back as the same bytes",
        arguments: [
            (Array("Alert light".utf8), #"value: "Alert light""#), (Array(#"say "hi" \ x"#.utf8), #"value: "say \"hi\" \\ x""#),
            (Array("Température".utf8), #"value: "Température""#), ([0x41], #"bytes: "41""#), (Array("42".utf8), #"bytes: "3432""#),
            ([0x41, 0x42, 0x0A], #"bytes: "41420a""#), ([0xFF, 0x41, 0x42], #"bytes: "ff4142""#),
            (Array("ab\u{2028}cd".utf8), #"bytes: "6162e280a86364""#),
        ] as [([UInt8], String)])
    func valueEntry(bytes: [UInt8], written: String) throws {
        #expect(ProfileSkeleton.valueEntry(bytes) == written)
        // The loader's minimal profile, its one characteristic given the descriptor as the skeleton writes it.
        let plain = "{uuid: 0x2A6E, properties: [read, notify]}"
        #expect(ProfileFileTests.minimal.contains(plain))
        let yaml = ProfileFileTests.minimal.replacingOccurrences(
            of: plain, with: "{uuid: 0x2A6E, properties: [read, notify], descriptors: [{uuid: 0x2901, \(written)}]}")
        let profile = try ProfileFile.parse(yaml: yaml, file: "p.yaml")
        #expect(profile.characteristic(BluetoothUUID(0x2A6E))?.characteristic.descriptors.first?.value == bytes)
    }
}
