import TiltboardCore
import TiltboardDrivers

extension BoardSession {
    /// Reads raw sensor-frame samples at the sensor's rate (draining the FIFO when it is on)
    /// until `body` returns true or `shouldStop` does. Times are seconds since the call.
    /// Throws `CalibrationStopped` when stopped, and whatever `body` or the sensor throws.
    /// The first `discardSeconds` of samples are dropped: they may predate a configuration or
    /// offset write that has only just taken effect.
    func sampleRaw(discardSeconds: Double = 0.1, shouldStop: () -> Bool, _ body: (Sample) throws -> Bool) throws {
        let rate = sensor.actualRateHz > 0 ? sensor.actualRateHz : board.sensor.rateHz
        let scheduler = FixedRateScheduler(rateHz: rate, clock: clock)
        let start = clock.nowNanoseconds()
        var finished = false
        var stopped = false
        var failure: Error?
        try scheduler.run(shouldStop: {
            if finished || failure != nil { return true }
            if shouldStop() { stopped = true; return true }
            return false
        }) { tick in
            let t = Double(tick.wakeTime &- start) / 1e9
            if sensor.configuration.useFIFO {
                try sensor.drainFIFO(at: t) { raw in
                    guard !finished, failure == nil, raw.t >= discardSeconds else { return }
                    do { finished = try body(raw) } catch { failure = error }
                }
            } else if t >= discardSeconds {
                finished = try body(try sensor.read(at: t))
            }
        }
        if let failure { throw failure }
        if stopped && !finished { throw CalibrationStopped() }
    }
}
