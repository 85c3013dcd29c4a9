import XCTest
import Foundation
@testable import Tiltboard
import TiltboardCommands

final class JSONLineWriterTests: XCTestCase {
    private func text(_ w: JSONLineWriter) -> String { String(decoding: w.bytes, as: UTF8.self) }

    func testNestedObjectAndNumbers() {
        var w = JSONLineWriter()
        w.beginObject()
        w.number("t", 1.25)
        w.beginObject("tilt")
        w.number("pitchDeg", -12.34567, fractionDigits: 2)
        w.number("rollDeg", 0)
        w.endObject()
        w.vector("accel", 0.000004, -1, 1.5)
        w.bool("shake", true)
        w.integer("n", -42)
        w.endObject()
        w.newline()
        XCTAssertEqual(text(w), "{\"t\":1.25,\"tilt\":{\"pitchDeg\":-12.35,\"rollDeg\":0},\"accel\":[0,-1,1.5],\"shake\":true,\"n\":-42}\n")
    }

    func testOutputParsesAsJSONAndRoundTripsValues() throws {
        var w = JSONLineWriter()
        for value in [0.1, -0.05, 123.456789, -0.0000049, 1e-9, 999999.5] {
            w.reset()
            w.beginObject()
            w.number("v", value, fractionDigits: 6)
            w.endObject()
            let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String: Double])
            XCTAssertEqual(try XCTUnwrap(obj["v"]), value, accuracy: 5e-7, "\(value) → \(text(w))")
        }
    }

    func testNonFiniteBecomesNull() {
        var w = JSONLineWriter()
        w.beginObject()
        w.number("a", .nan)
        w.number("b", .infinity)
        w.endObject()
        XCTAssertEqual(text(w), "{\"a\":null,\"b\":null}")
    }

    /// Negative zero is written as 0; a finite value too large for fixed point stays a number
    /// (it used to become null); integers and booleans reach their extremes.
    func testExtremesStayNumbers() throws {
        var w = JSONLineWriter()
        w.beginObject()
        w.number("negZero", -0.0)
        w.number("tinyNegative", -Double.leastNonzeroMagnitude)
        w.number("largest", .greatestFiniteMagnitude)
        w.number("smallest", -.greatestFiniteMagnitude)
        w.number("edge", 1.8e15, fractionDigits: 4)
        w.integer("intMax", .max)
        w.integer("intMin", .min)
        w.bool("yes", true)
        w.bool("no", false)
        w.endObject()
        XCTAssertEqual(text(w), "{\"negZero\":0,\"tinyNegative\":0,\"largest\":1.7976931348623157e+308,"
                       + "\"smallest\":-1.7976931348623157e+308,\"edge\":1800000000000000.0,"
                       + "\"intMax\":9223372036854775807,\"intMin\":-9223372036854775808,\"yes\":true,\"no\":false}")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String: Any])
        XCTAssertEqual(object["largest"] as? Double, .greatestFiniteMagnitude)
    }

    func testResetKeepsCapacity() {
        var w = JSONLineWriter(capacity: 256)
        w.beginObject(); w.number("x", 1); w.endObject()
        let capacity = w.bytes.capacity
        w.reset()
        XCTAssertTrue(w.bytes.isEmpty)
        XCTAssertEqual(w.bytes.capacity, capacity)
    }

    /// A run line says how many lines were dropped before it, once there are any.
    func testRunLinesCarryTheDropCountOnceThereIsOne() throws {
        var line = JSONLineWriter()
        line.writeRunLine(PipelineOutput(t: 1.5), haptic: false)
        XCTAssertFalse(String(decoding: line.bytes, as: UTF8.self).contains("dropped"))
        line.writeRunLine(PipelineOutput(t: 1.5), haptic: true, dropped: 604)
        let text = String(decoding: line.bytes, as: UTF8.self)
        XCTAssertTrue(text.hasSuffix(#""haptic":true,"dropped":604}"# + "\n"), text)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.bytes)) as? [String: Any])
        XCTAssertEqual(object["dropped"] as? Int, 604)
    }
}
