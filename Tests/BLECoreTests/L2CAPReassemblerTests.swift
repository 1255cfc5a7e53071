import Testing

@testable import BLECore

@Suite("L2CAP reassembly")
struct L2CAPReassemblerTests {
    static let frames = [
        L2CAP.BasicFrame.att([0x02, 0xF7, 0x00]),
        L2CAP.BasicFrame(channel: .securityManager, payload: []),
        L2CAP.BasicFrame.att([0x1B, 0x2A, 0x00] + [UInt8](0..<60)),
        L2CAP.BasicFrame(channel: .leSignaling, payload: [0x12, 0x01, 0x08, 0x00, 0x06, 0x00, 0x0C, 0x00]),
    ]

    @Test(arguments: [1, 2, 3, 5, 27, 1_000])
    func reassemblesFramesFragmentedAtAnySize(maximumSize: Int) throws {
        var reassembler = L2CAP.Reassembler()
        var received: [L2CAP.BasicFrame] = []
        for frame in Self.frames {
            for fragment in frame.fragments(maximumSize: maximumSize) {
                #expect(received.count == Self.frames.firstIndex(of: frame)!)
                if let complete = try reassembler.push(fragment) { received.append(complete) }
            }
            #expect(!reassembler.hasPartialFrame)
        }
        #expect(received == Self.frames)
    }

    @Test func dripFedOneBytePerFragmentYieldsTheFrameOnTheLastByte() throws {
        var reassembler = L2CAP.Reassembler()
        let frame = L2CAP.BasicFrame.att([0x0A, 0x03, 0x00])
        let bytes = frame.encoded
        for (index, byte) in bytes.enumerated() {
            let result = try reassembler.push(L2CAP.Fragment(index == 0 ? .start : .continuation, [byte]))
            #expect((result != nil) == (index == bytes.count - 1))
            if let result { #expect(result == frame) }
        }
    }

    @Test func coalescedFrameInOneFragmentCompletesAtOnce() throws {
        var reassembler = L2CAP.Reassembler()
        let frame = L2CAP.BasicFrame.att([0x0B] + [UInt8](repeating: 7, count: 22))
        #expect(try reassembler.push(L2CAP.Fragment(.start, frame.encoded)) == frame)
        #expect(!reassembler.hasPartialFrame)
    }

    @Test func emptyStartFragmentWaitsForTheHeader() throws {
        var reassembler = L2CAP.Reassembler()
        #expect(try reassembler.push(L2CAP.Fragment(.start, [])) == nil)
        #expect(reassembler.hasPartialFrame)
        #expect(try reassembler.push(L2CAP.Fragment(.continuation, [0x00, 0x00, 0x04, 0x00])) == .att([]))
    }

    @Test func continuationWithoutStartThrows() throws {
        var reassembler = L2CAP.Reassembler()
        #expect(throws: L2CAP.ReassemblyError.continuationWithoutStart(length: 2)) {
            try reassembler.push(L2CAP.Fragment(.continuation, [0x01, 0x02]))
        }
        // A complete frame followed by a stray continuation: the frame is delivered, the continuation rejected.
        #expect(try reassembler.push(L2CAP.Fragment(.start, [0x01, 0x00, 0x04, 0x00, 0x1E])) == .att([0x1E]))
        #expect(throws: L2CAP.ReassemblyError.continuationWithoutStart(length: 1)) {
            try reassembler.push(L2CAP.Fragment(.continuation, [0x00]))
        }
    }

    @Test func startWhileAFrameIsIncompleteThrowsAndDropsBoth() throws {
        var reassembler = L2CAP.Reassembler()
        #expect(try reassembler.push(L2CAP.Fragment(.start, [0x05, 0x00, 0x04, 0x00, 0x0A])) == nil)
        #expect(throws: L2CAP.ReassemblyError.startWhileIncomplete(received: 5, expected: 9)) {
            try reassembler.push(L2CAP.Fragment(.start, [0x01, 0x00, 0x04, 0x00, 0x1E]))
        }
        #expect(!reassembler.hasPartialFrame)
        #expect(try reassembler.push(L2CAP.Fragment(.start, [0x01, 0x00, 0x04, 0x00, 0x1E])) == .att([0x1E]))
    }

    @Test func startWhileTheHeaderIsIncompleteReportsAnUnknownLength() throws {
        var reassembler = L2CAP.Reassembler()
        #expect(try reassembler.push(L2CAP.Fragment(.start, [0x05, 0x00])) == nil)
        #expect(throws: L2CAP.ReassemblyError.startWhileIncomplete(received: 2, expected: nil)) {
            try reassembler.push(L2CAP.Fragment(.start, [0x00, 0x00, 0x04, 0x00]))
        }
    }

    @Test func lengthOverrunThrowsAndDropsTheFrame() throws {
        var reassembler = L2CAP.Reassembler()
        #expect(throws: L2CAP.ReassemblyError.lengthOverrun(expected: 5, received: 6)) {
            try reassembler.push(L2CAP.Fragment(.start, [0x01, 0x00, 0x04, 0x00, 0x1E, 0x1F]))
        }
        #expect(!reassembler.hasPartialFrame)
        #expect(try reassembler.push(L2CAP.Fragment(.start, [0x03, 0x00, 0x04, 0x00, 0x0A])) == nil)
        #expect(throws: L2CAP.ReassemblyError.lengthOverrun(expected: 7, received: 8)) {
            try reassembler.push(L2CAP.Fragment(.continuation, [0x01, 0x00, 0x99]))
        }
        #expect(throws: L2CAP.ReassemblyError.continuationWithoutStart(length: 1)) {
            try reassembler.push(L2CAP.Fragment(.continuation, [0x00]))
        }
    }

    @Test func resetDropsAPartialFrame() throws {
        var reassembler = L2CAP.Reassembler()
        _ = try reassembler.push(L2CAP.Fragment(.start, [0x05, 0x00, 0x04]))
        reassembler.reset()
        #expect(!reassembler.hasPartialFrame)
        #expect(throws: L2CAP.ReassemblyError.continuationWithoutStart(length: 1)) {
            try reassembler.push(L2CAP.Fragment(.continuation, [0x00]))
        }
    }

    @Test func errorsSayWhatHappened() {
        #expect(
            L2CAP.ReassemblyError.startWhileIncomplete(received: 5, expected: 9).description
                == "L2CAP reassembly: a start fragment arrived while a frame was incomplete (5 of 9 bytes); the "
                + "partial frame was dropped")
    }
}
