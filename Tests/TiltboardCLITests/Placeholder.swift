import XCTest

final class TiltboardCLITestsPlaceholder: XCTestCase {
    func testTargetBuilds() { XCTAssertTrue(true) }
}
