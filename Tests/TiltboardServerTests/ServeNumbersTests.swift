import Foundation
import XCTest
@testable import Tiltboard
import TiltboardCore
@testable import TiltboardServer

/// A number the API sends is a number whatever its value: `GET /api/state` used to answer
/// `"shakes":false`, `"loop":{"missedTicks":false,…}` and `"control":{"vx":false,…}` for zeros,
/// and `"thresholdG":true` after `{"thresholdG": 1}`, which Swift's Codable (like Go, serde and
/// every schema validator) refuses. Checked here by the exact text and by strict decoding.
final class ServeNumbersTests: XCTestCase {
    /// What a Swift client decodes `GET /api/profile` into.
    struct StoredProfile: Decodable { var path: String; var profile: CalibrationProfile? }

    func testZerosAndOnesStayNumbersInEveryAnswer() async throws {
        let board = try await ServedBoard(self)
        try board.runLoop(seconds: 0.5)
        let state = try board.request("GET", "/api/state")
        XCTAssertEqual(state.status, 200)
        for piece in [#""shakes":0,"#, #""missedTicks":0,"#, #""vx":0,"#, #""vy":0,"#, #""linearG":0,"#, #""raw":{"pitchDeg":0,"rollDeg":0}"#] {
            XCTAssertTrue(state.text.contains(piece), "\(piece) not in \(state.text)")
        }
        XCTAssertFalse(state.text.contains(":false,\"vy\""), state.text)
        let fields = try ServeJSON.StateFields(stateFrame: state.body)
        XCTAssertEqual(fields.shakes, 0)
        XCTAssertEqual(fields.loop.samples, 51)
        XCTAssertEqual(fields.control.vx, .init(0))

        let shake = try board.request("POST", "/api/shake", body: #"{"thresholdG": 1}"#)
        XCTAssertEqual(shake.status, 200, shake.text)
        XCTAssertTrue(shake.text.hasSuffix(#""thresholdG":1}"#), shake.text)
        XCTAssertTrue(shake.text.contains(#""levels":["gentle","normal","firm"],"thresholdG":1}"#), shake.text)
        try board.runLoop(seconds: 0.1)
        let after = try board.request("GET", "/api/state")
        XCTAssertTrue(after.text.contains(#""levels":["gentle","normal","firm"],"thresholdG":1}"#), after.text)
        XCTAssertTrue(after.text.contains(#""thresholdG":1,"#), after.text)
        XCTAssertEqual(try ServeJSON.StateFields(stateFrame: after.body).thresholdG, .init(1))

        // The profile as stored, with its integer and its 0s and 1s, decodes as the profile.
        let zero = try board.request("POST", "/api/zero", body: "{}")
        XCTAssertEqual(zero.status, 200, zero.text)
        XCTAssertTrue(zero.text.contains(#""calibrated":true,"#) && zero.text.contains(#""neutralTiltDeg":0,"#), zero.text)
        let profile = try board.request("GET", "/api/profile")
        let stored = try JSONDecoder().decode(StoredProfile.self, from: Data(profile.body))
        XCTAssertEqual(stored.profile, try ProfileStore.load(path: board.session.profilePath, expectedBoard: nil))
        XCTAssertEqual(stored.profile?.shake?.thresholdG, 1)
        XCTAssertTrue(profile.text.contains(#""rotation":{"w":1,"x":0,"y":0,"z":0}"#), profile.text)
        await board.close()
    }
}
