extension Duration {
    /// This span in seconds, for the maths (which keeps `Double` seconds inside).
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// This span in milliseconds.
    package var inMilliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }

    /// `seconds` rounded to the nanosecond, so that a span given as a `Duration` reads back equal.
    package static func rounded(seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// `milliseconds` rounded to the nanosecond.
    package static func rounded(milliseconds: Double) -> Duration {
        .nanoseconds(Int64((milliseconds * 1e6).rounded()))
    }
}
