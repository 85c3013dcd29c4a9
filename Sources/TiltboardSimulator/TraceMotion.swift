import TiltboardCore

/// Motion replayed from a recorded trace, linearly interpolated, last value held.
///
/// CSV, one sample per line: `t,ax,ay,az` or `t,ax,ay,az,gx,gy,gz` (seconds, g, °/s). An
/// optional header line, blank lines and `#` comments are allowed; `t` must not decrease.
package struct TraceMotion: MotionSource {
    package let times: [Double]
    package let accel: [Vector3]
    package let gyro: [Vector3]
    /// Die temperature reported throughout.
    package var tempC: Double = 25

    /// Parses `csv`; errors give the line number and what to fix. A long trace (a million lines
    /// take seconds) asks `shouldStop` every 10,000 lines and throws `TraceLoadStopped` when it
    /// says so, so Ctrl-C during the load stops at once.
    package init(csv: String, shouldStop: () -> Bool = { false }) throws {
        var times: [Double] = [], accel: [Vector3] = [], gyro: [Vector3] = []
        var lineNumber = 0
        var sawData = false
        // Line by line as it goes (no array of every line first), so a stop is heard at once.
        var rest = Substring(csv)
        while !rest.isEmpty {
            let end = rest.utf8.firstIndex(of: 10) ?? rest.endIndex  // "\n"; a "\r" before it is trimmed
            let rawLine = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.utf8.index(after: end)...]
            lineNumber += 1
            if lineNumber % 10_000 == 0, shouldStop() { throw TraceLoadStopped() }
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { Self.trim($0) }
            if fields.count == 1 && fields[0].isEmpty { continue }
            let numbers = fields.map { Double($0) }
            // A header names its columns: no field a number, each starting with a letter. A first
            // row that is partly numbers is a malformed data row, and reported as one.
            if !sawData && numbers.allSatisfy({ $0 == nil }) && fields.allSatisfy({ $0.first?.isLetter == true }) {
                sawData = true
                continue
            }
            sawData = true
            guard fields.count == 4 || fields.count == 7 else {
                throw MotionScriptError(.traceFieldCount(line: lineNumber, found: fields.count))
            }
            if let bad = numbers.firstIndex(where: { $0 == nil || !$0!.isFinite }) {
                let text = fields[bad].count > 80 ? String(fields[bad].prefix(79)) + "…" : String(fields[bad])
                throw MotionScriptError(.traceNotANumber(line: lineNumber, field: bad + 1, text: text))
            }
            let v = numbers.map { $0! }
            if let previous = times.last, v[0] < previous {
                throw MotionScriptError(.traceTimeBackwards(line: lineNumber, time: v[0], previous: previous))
            }
            times.append(v[0])
            accel.append(Vector3(v[1], v[2], v[3]))
            gyro.append(v.count == 7 ? Vector3(v[4], v[5], v[6]) : .zero)
        }
        guard !times.isEmpty else {
            throw MotionScriptError(.traceEmpty)
        }
        self.times = times; self.accel = accel; self.gyro = gyro
    }

    package var duration: Duration? { durationSeconds.map { MotionScript.span(seconds: $0) } }

    /// The last sample's time, in seconds.
    package var durationSeconds: Double? { times[times.count - 1] }

    package func state(at t: Double) -> PhysicalState {
        let n = times.count
        if !(t > times[0]) { return PhysicalState(accelG: accel[0], gyroDps: gyro[0], tempC: tempC) }
        if t >= times[n - 1] { return PhysicalState(accelG: accel[n - 1], gyroDps: gyro[n - 1], tempC: tempC) }
        // Last index with times[i] <= t.
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= t { lo = mid } else { hi = mid }
        }
        let span = times[hi] - times[lo]
        let w = span > 0 ? (t - times[lo]) / span : 1
        return PhysicalState(accelG: accel[lo] + (accel[hi] - accel[lo]) * w,
                             gyroDps: gyro[lo] + (gyro[hi] - gyro[lo]) * w, tempC: tempC)
    }

    private static func trim(_ s: Substring) -> Substring {
        var s = s
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return s
    }
}

/// Loading a trace was given up because a stop was requested.
package struct TraceLoadStopped: Error, Sendable, CustomStringConvertible {
    /// The stop of a load.
    package init() {}
    /// The kind, for a log; a program words it for people.
    package var description: String { "TraceLoadStopped" }
}
