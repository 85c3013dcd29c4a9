import TiltboardCore
import TiltboardDrivers

extension BoardSession {
    /// Reads raw sensor-frame samples at the sensor's rate (draining the FIFO when it is on)
    /// until `body` returns true or `shouldStop` does. Times are seconds since the call.
    /// Throws `CalibrationStopped` when stopped, and whatever `body` or the sensor throws.
    /// The first `discardSeconds` of samples are dropped: they may predate a configuration or
    /// offset write that has only just taken effect.
    package func sampleRaw(discardSeconds: Double = 0.1, shouldStop: () -> Bool,
                   events: (CalibrationEvent) -> Void = { _ in }, _ body: (Sample) throws -> Bool) throws {
        let rate = sensor.actualRateHz > 0 ? sensor.actualRateHz : board.sensor.rateHz
        let scheduler = FixedRateScheduler(rateHz: rate, clock: clock)
        // The loop's own way through bus trouble: retries, a lost sensor waited for, a reset chip
        // (a brown-out) noticed and configured again with its offsets; no sample is made up, and
        // the capture restarts after the hole (`StillnessFailure.gap`).
        let link = SensorRecovery(sensor: sensor, clock: clock, restore: { try self.restoreSensor() })
        link.start = clock.nowNanoseconds()
        var finished = false
        var stopped = false
        var failure: Error?
        try scheduler.run(shouldStop: {
            if finished || failure != nil { return true }
            if shouldStop() { stopped = true; return true }
            return false
        }) { tick in
            try link.tick(at: tick.wakeTime, events: { event in
                switch event {
                case let .lost(_, error): events(.sensorLost(UnderlyingError(error)))
                case let .back(_, reconfigured): events(.sensorBack(reconfigured: reconfigured))
                }
            }) { raw in
                guard !finished, failure == nil, raw.t >= discardSeconds else { return }
                do { finished = try body(raw) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        if stopped && !finished { throw CalibrationStopped() }
    }
}
