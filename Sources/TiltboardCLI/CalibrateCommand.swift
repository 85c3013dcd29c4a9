import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// `tiltboard calibrate`: the neutral pose (default), its reset (`--zero`) or the six-face
/// sensor calibration (`--sensor`), saved in the board's profile.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure the neutral pose, or the sensor's offsets and scales, and save them in the board's profile.",
        discussion: """
        Neutral pose (default): hold the board the way you want to play and keep it still; after \
        Enter (or at once with --yes, or when stdin is at end of file) the board must stay still for \
        --duration seconds. Movement restarts the capture; after --timeout seconds it gives up. The \
        rotation from the measured gravity direction to level is stored; a pose steeper than \
        --max-tilt is only compensated up to --max-tilt. The profile's sensor calibration is kept \
        and applied to the capture.

        --sensor: lay the board on each of its six faces in turn (any order) and keep it still on each; \
        faces are recognised automatically, a repeated or unclear one is reported and skipped. Offset \
        and scale per axis (and the gyro bias on the \(ChipRegistry.partNames("and") { $0.gyroscope != nil })) are fitted and saved; --write-chip also \
        programs the offsets into the chip's own offset registers, and every later session programs \
        them again. On a simulated board the built-in six-faces motion is played (about 30 s).

        --zero: reset the stored neutral pose to level.

        --service (as root): calibrate the board of the installed service, the one in \
        /etc/tiltboard/tiltboard.conf, into the profile the service reads \
        (/var/lib/tiltboard/profiles/), as the service's user. A running tiltboard or \
        tiltboard-serve service is stopped for the capture and started again afterwards. Combines \
        with --sensor, --zero and the other options; not with --board or --profile.

        --instance NAME (with --service): the board of the tiltboard@NAME (or tiltboard-serve@NAME) \
        service instead, the one in /etc/tiltboard/NAME.conf; only that instance is stopped and \
        started again.

        --ignore-profile: capture the neutral pose without applying the stored sensor calibration \
        (the calibration stays in the file).

        A corrupt or truncated profile is replaced (the old file stays in <profile>.bak); a \
        profile for another board or from a newer tiltboard is left alone (exit 65).

        Exit codes: 0 saved (or interrupted: nothing saved), 64 usage, 65 invalid board or profile \
        file, 69 device unavailable, 74 I/O error, 75 the board was not still long enough within \
        --timeout or the fit was poor (try again), 77 permission denied.
        """
    )

    @OptionGroup var boardOptions: BoardOptions

    @Flag(name: .long, help: "Start at once instead of waiting for Enter (scripts, services).")
    var yes = false

    @Option(name: .long, help: ArgumentHelp("Seconds the board must be still (default: 2, or 1.5 per face with --sensor).",
                                            valueName: "s"))
    var duration: Double?

    @Option(name: .long, help: ArgumentHelp("Give up after this many seconds without a still capture (per face with --sensor).",
                                            valueName: "s"))
    var timeout: Double = 30

    @Option(name: .long, help: ArgumentHelp("Steepest neutral pose compensated, in degrees.", valueName: "deg"))
    var maxTilt: Double = 30

    @Flag(name: .long, help: "Reset the neutral pose to level.")
    var zero = false

    @Flag(name: .long, help: "Calibrate the sensor's offsets and scales on its six faces.")
    var sensor = false

    @Flag(name: .long, help: "With --sensor: also program the offsets into the chip's offset registers.")
    var writeChip = false

    @Flag(name: .long, help: "Calibrate the installed service's board into the profile it reads (as root; a running service is stopped and started again).")
    var service = false

    @Option(name: .long, help: ArgumentHelp("With --service: the instance of tiltboard@.service (or tiltboard-serve@.service) whose board to calibrate, set in /etc/tiltboard/<name>.conf.",
                                            valueName: "name"))
    var instance: String?

    /// Where `--service` finds /etc/tiltboard and /var/lib/tiltboard: `/`, or a folder standing for it.
    @Option(name: .long, help: .hidden)
    var serviceRoot: String = ""

    func validate() throws {
        if let duration, !(duration > 0 && duration <= 600) {
            throw ValidationError("--duration must be more than 0 and at most 600 seconds, got \(duration)")
        }
        guard timeout > 0 && timeout <= 3600 else {
            throw ValidationError("--timeout must be more than 0 and at most 3600 seconds, got \(timeout)")
        }
        if let duration, duration >= timeout {
            throw ValidationError("--duration (\(duration) s) must be shorter than --timeout (\(timeout) s)")
        }
        guard maxTilt >= 0 && maxTilt <= 90 else {
            throw ValidationError("--max-tilt must be 0…90 degrees, got \(maxTilt)")
        }
        if zero && sensor { throw ValidationError("--zero and --sensor cannot be combined: run them one after the other") }
        if writeChip && !sensor { throw ValidationError("--write-chip only goes with --sensor") }
        if let instance {
            guard service else { throw ValidationError("--instance only goes with --service") }
            guard ServiceCalibration.isInstanceName(instance) else {
                throw ValidationError("--instance must be a service instance's name: 1…64 letters, digits, '-', '_' or '.', starting with a letter or a digit, got \(clipped(instance))")
            }
        }
        if service && (boardOptions.board != nil || boardOptions.profile != nil) {
            throw ValidationError("--service calibrates the board in /etc/tiltboard/\(instance ?? "tiltboard").conf into the service's profile: drop --board and --profile")
        }
    }

    func run() throws {
        if service {
            let status = try ServiceCalibration(root: serviceRoot, instance: instance, arguments: serviceArguments()).run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        try SignalWatcher.shared.start()
        var board = try boardOptions.loadBoard(defaultScript: sensor ? "six-faces" : "flat")
        if sensor && board.isSimulated && board.simulation?.script != "six-faces" {
            // The simulator has no hands: it plays the six orientations itself.
            var simulation = board.simulation ?? BoardDescription.SimulationSection()
            simulation.script = "six-faces"
            simulation.trace = nil
            board.simulation = simulation
            if boardOptions.board != nil { Console.note("simulated board: playing the built-in \"six-faces\" motion") }
        }
        // Opened without its profile: a sensor calibration needs the chip's reset offsets, and a
        // corrupt profile must not stop its own replacement.
        let session = try CommandBoard.open(board, profilePath: boardOptions.profile, useProfile: false, fifo: false)
        defer { session.close() }
        if writeChip && session.sensor.chipVariant.accelOffsets == nil {
            throw CLIError(message: "--write-chip: the \(session.sensor.identity.part) has no offset registers; calibrate with --sensor alone, the profile applies the offsets",
                           category: .invalidRequest)
        }
        let (existing, replacing) = try session.profileForEditing()
        if let replacing {
            Console.note("the profile at \(session.profilePath) cannot be used (\(ErrorWording.profileDetail(replacing))); it will be replaced, the old file is kept as \(session.profilePath).bak")
        }
        // Now, not after the capture: a result that cannot be saved is a person's time lost.
        try ProfileStore.checkWritable(path: session.profilePath)

        do {
            if zero {
                try session.zeroNeutral()
                Console.out("neutral pose reset to level in \(session.profilePath)\n")
            } else if sensor {
                try calibrateSensor(session)
            } else {
                if !boardOptions.ignoreProfile { try session.apply(profile: existing) }
                try calibrateNeutral(session)
            }
        } catch is CalibrationStopped {
            Console.note(describe(CalibrationStopped()))
        }
    }

    /// This command's arguments for the calibration `--service` runs as the service's user.
    private func serviceArguments() -> [String] {
        var rest = Array(CommandLine.arguments.drop { $0 != commandName }.dropFirst())
        var i = 0
        while i < rest.count {
            if rest[i] == "--service" {
                rest.remove(at: i)
            } else if rest[i] == "--service-root" || rest[i] == "--instance" {
                rest.removeSubrange(i..<min(i + 2, rest.count))
            } else if rest[i].hasPrefix("--service-root=") || rest[i].hasPrefix("--instance=") {
                rest.remove(at: i)
            } else {
                i += 1
            }
        }
        return rest
    }

    private var commandName: String { Self.configuration.commandName ?? "calibrate" }

    private var shouldStop: () -> Bool { { SignalWatcher.shared.stopRequested } }

    private func calibrateNeutral(_ session: BoardSession) throws {
        if !yes && !waitForEnter(prompt: "hold the board the way you want to play and keep it still") {
            throw CalibrationStopped()
        }
        let settings = NeutralCapture.Settings(duration: .seconds(duration ?? 2), timeout: .seconds(timeout), maxTiltDeg: maxTilt)
        var progress = CalibrateProgress()
        var lastRestartNote: UInt64?
        var unreported = 0
        progress.begin("capturing the neutral pose")
        let result: NeutralCalibrationResult
        do {
            result = try NeutralCalibration(settings: settings).run(on: session, shouldStop: shouldStop) { event in
                switch event {
                case let .progress(p): progress.update(p)
                case let .restarted(why):
                    // A moving board restarts every few samples; one line a second says enough.
                    unreported += 1
                    let now = session.clock.nowNanoseconds()
                    if lastRestartNote.map({ now &- $0 >= Nanoseconds.perSecond }) ?? true {
                        let times = unreported > 1 ? " (\(unreported) restarts)" : ""
                        progress.message("\(describe(why)); starting the capture again\(times)")
                        lastRestartNote = now
                        unreported = 0
                    }
                case let .sensorLost(why):
                    progress.message("sensor lost, waiting for it (the capture starts again when it is back): \(describe(why.error))", warning: true)
                case let .sensorBack(reconfigured):
                    progress.message("sensor back\(reconfigured ? " (the chip had reset: configured again)" : ""); starting the capture again")
                default: break
                }
            }
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        let pose = result.pose
        if pose.clamped {
            Console.warn("the board was held \(fixed(pose.tiltDeg, 1).trimmed)° from level, beyond --max-tilt \(fixed(maxTilt, 1).trimmed)°: "
                         + "only \(fixed(maxTilt, 1).trimmed)° is compensated, the rest reads as tilt (hold it closer to level, or raise --max-tilt)")
        }
        try session.saveNeutral(pose, capture: result.capture)
        Console.out(CalibrateReport.neutral(result, path: session.profilePath))
    }

    private func calibrateSensor(_ session: BoardSession) throws {
        let prompt = session.board.isSimulated
            ? "the simulated board turns through its six faces by itself"
            : "lay the board on each of its six faces in turn and keep it still on each (any order)"
        if !yes && !waitForEnter(prompt: prompt) { throw CalibrationStopped() }
        var procedure = SixFaceProcedure(timeout: timeout)
        if let duration { procedure.duration = duration }
        var progress = CalibrateProgress()
        var captured = 0
        progress.begin("face 1/6")
        let result: SensorCalibrationResult
        do {
            result = try procedure.run(on: session, shouldStop: shouldStop) { event in
                switch event {
                case let .progress(p): progress.update(p)
                case .restarted: progress.update(0)
                case let .faceCaptured(face, remaining):
                    captured += 1
                    let next = remaining.isEmpty ? "" : "; next: one of " + remaining.map(\.rawValue).joined(separator: " ")
                    progress.message("captured \(face.rawValue) up (\(captured)/6)\(next)")
                    if !remaining.isEmpty { progress.begin("face \(captured + 1)/6") }
                case let .faceRejected(why):
                    progress.message("\(describe(why)); carrying on", warning: true)
                case let .sensorLost(why):
                    progress.message("sensor lost, waiting for it (this face starts again when it is back): \(describe(why.error))", warning: true)
                case let .sensorBack(reconfigured):
                    progress.message("sensor back\(reconfigured ? " (the chip had reset: configured again)" : "")")
                }
            }
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        try session.saveSensorCalibration(result, writeToChip: writeChip)
        Console.out(CalibrateReport.sensor(result, writtenToChip: writeChip, path: session.profilePath))
    }
}

extension String {
    /// Without the padding `fixed` adds for columns.
    var trimmed: String { String(drop { $0 == " " }) }
}
