import XCTest

final class TiltboardSimulatorTestsPlaceholder: XCTestCase {
    func testTargetBuilds() { XCTAssertTrue(true) }
}
