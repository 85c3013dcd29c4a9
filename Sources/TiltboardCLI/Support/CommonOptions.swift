import ArgumentParser

/// `--rate`: the sensor's sample rate for this run, checked by `validateRate`.
struct RateOption: ParsableArguments {
    @Option(name: .customLong("rate"), help: ArgumentHelp("Samples per second (default: the board's rateHz).", valueName: "hz"))
    var hz: Double?

    func validate() throws { try validateRate(hz) }
}

/// `--duration` for `record` and `shake`, checked by `validateDuration`.
struct DurationOption: ParsableArguments {
    @Option(name: .customLong("duration"), help: ArgumentHelp("Stop after this many seconds (default: until interrupted).", valueName: "s"))
    var seconds: Double?

    func validate() throws { try validateDuration(seconds) }
}

/// `--duration` for the commands that run the controller (`run`, `serve`, `gamepad`): the same
/// option as `DurationOption`, its help worded as those commands have always printed it.
struct RunDurationOption: ParsableArguments {
    @Option(name: .customLong("duration"), help: ArgumentHelp("Stop after this many seconds (default: run until interrupted).", valueName: "s"))
    var seconds: Double?

    func validate() throws { try validateDuration(seconds) }
}
