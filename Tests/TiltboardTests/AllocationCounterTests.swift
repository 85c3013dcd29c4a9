import XCTest
import CAllocationCounter

final class AllocationCounterTests: XCTestCase {
    func testCountsHeapAllocations() {
        let before = tiltboard_allocation_count()
        var arrays: [[Int]] = []
        arrays.reserveCapacity(10)
        for i in 0..<10 { arrays.append([Int](repeating: i, count: 100 + i)) }
        let after = tiltboard_allocation_count()
        XCTAssertGreaterThanOrEqual(after - before, 10)
        XCTAssertEqual(arrays.count, 10)
    }

    func testThreadCountSeesOnlyThisThread() {
        let before = tiltboard_thread_allocation_count()
        let box = [1, 2, 3].map { $0 * 2 }
        XCTAssertGreaterThanOrEqual(tiltboard_thread_allocation_count() - before, 1)
        XCTAssertEqual(box, [2, 4, 6])
    }

    func testArithmeticDoesNotAllocate() {
        var x = 0.0
        let before = tiltboard_thread_allocation_count()
        for i in 0..<1000 { x += Double(i).squareRoot() }
        let after = tiltboard_thread_allocation_count()
        XCTAssertEqual(after - before, 0)
        XCTAssertGreaterThan(x, 0)
    }
}
