import XCTest

final class TiltboardDriversTestsPlaceholder: XCTestCase {
    func testTargetBuilds() { XCTAssertTrue(true) }
}
