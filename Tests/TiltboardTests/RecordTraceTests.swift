import XCTest
@testable import Tiltboard
import TiltboardCommands
import TiltboardSimulator
import TiltboardCore
import TiltboardLinux

/// A recording replays through the simulator as the samples that were recorded.
final class RecordTraceTests: XCTestCase {
    private func record(script: String, to path: String, seconds: Double) throws -> [PipelineOutput] {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        var board = BoardDescription.builtInSimulated(script: script)
        board.simulation?.noise = false
        let session = try BoardSession(board: board, clock: clock, useProfile: false)
        let writer = try TraceCSVWriter(path: path, includesGyro: true, flushBytes: 512)
        let loop = session.makeLoop(rateHz: 100, haptics: nil)
        nonisolated(unsafe) var outputs: [PipelineOutput] = []
        _ = try loop.start(for: .seconds(seconds), observers: [LoopObserver(sample: { out, _ in
            outputs.append(out)
            try? writer.append(t: out.t, accel: out.accel, gyro: out.gyro)
        })]).wait()
        try writer.close()
        XCTAssertEqual(writer.samples, outputs.count)
        return outputs
    }

    func testRecordingReplaysAsTheSameSamples() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/demo.csv"
        let recorded = try record(script: "demo", to: path, seconds: 3)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("t,ax,ay,az,gx,gy,gz\n"))
        XCTAssertEqual(text.split(separator: "\n").count, recorded.count + 1)
        let trace = try TraceMotion(csv: text)
        XCTAssertEqual(trace.times.count, recorded.count)

        // Replay on a board whose simulation plays the trace, at the same times.
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        var board = BoardDescription.builtInSimulated(script: "flat")
        board.simulation?.script = nil
        board.simulation?.trace = path
        board.simulation?.noise = false
        let session = try BoardSession(board: board, clock: clock, useProfile: false)
        let origin = (session.simulatedDevice as? SimulatedMPU6050)?.motionStartNanoseconds ?? 0
        var worstAccel = 0.0, worstGyro = 0.0
        for (i, out) in recorded.enumerated() where i % 7 == 0 && out.t > 0.05 {
            // The chip's data registers hold the newest sample tick; read just after the trace time.
            clock.set(nanoseconds: origin + Nanoseconds.span(seconds: trace.times[i], rounded: .up) + 1)
            let s = try session.sensor.read(at: out.t)
            worstAccel = max(worstAccel, (s.accel - out.accel).length)
            worstGyro = max(worstGyro, ((s.gyro ?? .zero) - (out.gyro ?? .zero)).length)
        }
        // A few LSB: 1/16384 g and 1/65.5 °/s, plus the 100 Hz sample grid.
        XCTAssertLessThan(worstAccel, 0.01, "accel differs by up to \(worstAccel) g")
        XCTAssertLessThan(worstGyro, 0.5, "gyro differs by up to \(worstGyro) °/s")
        // And the replay really moved (the demo tilts left by 2 s).
        XCTAssertGreaterThan(recorded.map(\.accel.x).max() ?? 0, 0.4)
    }

    func testWriterRefusesToReplaceAFileUnlessAsked() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/t.csv"
        try Data("keep\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try TraceCSVWriter(path: path, includesGyro: false)) { error in
            XCTAssertEqual((error as? OutputFileError)?.kind, .overwriteNotAsked, "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "keep\n")
        let writer = try TraceCSVWriter(path: path, includesGyro: false, overwrite: true)
        try writer.append(t: 0.5, accel: Vector3(0.25, -0.5, 1), gyro: nil)
        try writer.close()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "t,ax,ay,az\n0.5,0.25,-0.5,1\n")
    }

    func testWriterFlushesAsItGoes() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.csv"
        let writer = try TraceCSVWriter(path: path, includesGyro: false, flushBytes: 64)
        for i in 0..<20 { try writer.append(t: Double(i) / 100, accel: .unitZ, gyro: nil) }
        // Not closed: what a killed recording leaves behind.
        let partial = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertGreaterThan(partial.split(separator: "\n").count, 15)
        XCTAssertNoThrow(try TraceMotion(csv: partial))
        try writer.close()
    }
}
