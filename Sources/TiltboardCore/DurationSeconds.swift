extension Duration {
    /// This span in seconds, for the maths (which keeps `Double` seconds inside).
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }

    /// This span in milliseconds.
    package var inMilliseconds: Double { inSeconds * 1000 }
}
