import ArgumentParser
import Tiltboard

/// `--board`, `--profile`, `--ignore-profile`: shared by every command that samples the sensor.
struct BoardOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Board file (JSON, see Boards/).",
                                            discussion: "Omit it to use the built-in simulated MPU-6050 board.",
                                            valueName: "file"))
    var board: String?

    @Option(name: .long, help: ArgumentHelp("Calibration profile (default: $XDG_CONFIG_HOME/tiltboard/profiles/<board>.json; $STATE_DIRECTORY/profiles/<board>.json in a systemd service).",
                                            valueName: "path"))
    var profile: String?

    @Flag(name: .long, help: "Do not apply the calibration profile.")
    var ignoreProfile = false

    /// The board file, or the built-in simulated board playing `script` (announced on stderr).
    func loadBoard(defaultScript: String = "flat") throws -> BoardDescription {
        if let board { return try BoardDescription.load(path: board) }
        Console.note("no --board given: using the built-in simulated MPU-6050 board (script \"\(defaultScript)\")")
        return BoardDescription.builtInSimulated(script: defaultScript)
    }
}

/// Checks a `--duration`: positive, and short enough to count in nanoseconds without overflow.
func validateDuration(_ duration: Double?) throws {
    if let duration, !(duration > 0 && duration <= maxDurationSeconds) {
        throw ValidationError("--duration must be more than 0 and at most \(Int(maxDurationSeconds)) seconds (omit it to run until interrupted), got \(duration)")
    }
}

/// Longest `--duration`: about 115 days.
let maxDurationSeconds = 1e7

/// Checks shared by commands that take `--rate`.
func validateRate(_ rate: Double?, name: String = "--rate") throws {
    if let rate, !(rate > 0 && rate <= 8000) {
        throw ValidationError("\(name) must be between 0 and 8000 Hz, got \(rate)")
    }
}
