import Foundation
import TiltboardCore
import TiltboardDrivers
import Tiltboard

/// Samples per second through the per-sample path with no sleeping, timed on `clock`.
package enum PipelineThroughput {
    /// Samples of a slow tilt and a shake with a gyro, 1 ms apart, to feed the pipeline
    /// (generated once, outside any measurement).
    package static func syntheticSamples(count: Int = 4096) -> [Sample] {
        (0..<count).map { i in
            let t = Double(i) / 1000
            let angle = 0.5 * sin(t * 2)
            let shake = i % 1024 > 900 ? 1.5 * sin(t * 50) : 0
            return Sample(t: t, accel: Vector3(sin(angle) + shake, 0.1 * sin(t), cos(angle)),
                          gyro: Vector3(cos(t * 2) * 57, 3, -1), tempC: 25)
        }
    }

    /// Runs `samples` through copies of `pipeline` (times shifted so they keep increasing) for at
    /// least `seconds` on `clock`; returns samples per second of `cpuNanoseconds` (the thread's
    /// CPU time, so other busy processes do not count against it), or of `clock` when nil.
    package static func pipelineRate(pipeline: TiltPipeline, samples: [Sample], seconds: Double,
                                    clock: MonotonicClock, cpuNanoseconds: (() -> UInt64)? = nil) -> Double {
        precondition(!samples.isEmpty, "no samples to run")
        var pipeline = pipeline
        var sink = 0.0
        let span = samples[samples.count - 1].t + 0.001
        var processed = 0
        var offset = 0.0
        let cpuStart = cpuNanoseconds?() ?? 0
        let start = clock.nowNanoseconds()
        let end = start &+ Nanoseconds.span(seconds: seconds)
        var now = start
        repeat {
            for s in samples {
                var shifted = s
                shifted.t += offset
                let out = pipeline.process(shifted)
                sink += out.control.x
            }
            processed += samples.count
            offset += span
            now = clock.nowNanoseconds()
        } while now < end
        blackHole(sink)
        let elapsed = cpuNanoseconds.map { $0() &- cpuStart } ?? (now &- start)
        return Double(processed) / Nanoseconds.seconds(elapsed)
    }

    /// Reads the session's sensor and runs each sample through the pipeline as fast as the bus
    /// answers, for at least `seconds`; returns samples per second (of CPU time when given).
    package static func readAndPipelineRate(session: BoardSession, seconds: Double, clock: MonotonicClock,
                                           cpuNanoseconds: (() -> UInt64)? = nil) throws -> Double {
        var pipeline = TiltPipeline(tracker: session.makeTiltTracker(),
                                    shake: ShakeDetector(settings: session.shakeSettings))
        let sensor = session.sensor
        var sink = 0.0
        var processed = 0
        let cpuStart = cpuNanoseconds?() ?? 0
        let start = clock.nowNanoseconds()
        let end = start &+ Nanoseconds.span(seconds: seconds)
        var now = start
        repeat {
            for _ in 0..<256 {
                let raw = try sensor.read(at: Nanoseconds.seconds(from: start, to: now))
                sink += pipeline.process(raw).control.x
            }
            processed += 256
            now = clock.nowNanoseconds()
        } while now < end
        blackHole(sink)
        let elapsed = cpuNanoseconds.map { $0() &- cpuStart } ?? (now &- start)
        return Double(processed) / Nanoseconds.seconds(elapsed)
    }

    /// Keeps the optimiser from dropping the work whose result nobody reads.
    @inline(never) @_optimize(none)
    private static func blackHole(_ value: Double) {}
}
