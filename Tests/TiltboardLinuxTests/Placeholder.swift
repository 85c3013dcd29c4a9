import XCTest

final class TiltboardLinuxTestsPlaceholder: XCTestCase {
    func testTargetBuilds() { XCTAssertTrue(true) }
}
