import XCTest

final class TiltboardTestsPlaceholder: XCTestCase {
    func testTargetBuilds() { XCTAssertTrue(true) }
}
