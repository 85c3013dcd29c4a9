import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
#if canImport(Glibc)
import Glibc
#endif

/// `tiltboard haptics`: plays one effect on the board's motor and exits when it ends.
struct HapticsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptics",
        abstract: "Play a vibration effect on the board's motor.",
        discussion: """
        Plays --effect (a preset or pulse:MS; default the board's shake effect) or --pattern (on,off,on,… \
        in milliseconds), then exits. The motor's on-time, summed over gaps shorter than the board's \
        motor.minRestMs (default 500 ms), never exceeds motor.maxOnMs (default 2000 ms): it then \
        rests for motor.minRestMs, with a warning, and the effect resumes. It is switched off and \
        released on exit, on SIGINT/SIGTERM/SIGHUP (a clean stop: exit 0) and on any error. On a \
        simulated board each change of the motor line is printed on stderr.

        Presets: \(HapticEffect.presetNames.joined(separator: ", ")).
        Exit codes: 0 played (or stopped by a signal), 64 bad effect, pattern or flag, 65 bad board \
        file, 69 motor line unavailable, 74 I/O error, 77 permission denied.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Board file (JSON); omit it to use the built-in simulated board.", valueName: "file"))
    var board: String?

    @Option(name: .long, help: ArgumentHelp("A preset (\(HapticEffect.presetNames.joined(separator: ", "))) or pulse:MS (default: the board's shake effect).",
                                            valueName: "name"))
    var effect: String?

    @Option(name: .long, help: ArgumentHelp("On/off times in milliseconds, starting with on: \"200,100,200\".", valueName: "ms,…"))
    var pattern: String?

    @Option(name: .long, help: ArgumentHelp("How many times to play the effect; 0 repeats until interrupted.", valueName: "n"))
    var `repeat` = 1

    @Option(name: .long, help: ArgumentHelp("Motor strength 0…1; below 1 is software PWM.", valueName: "s"))
    var strength = 1.0

    @Option(name: .long, help: ArgumentHelp("PWM carrier frequency for strengths below 1.", valueName: "hz"))
    var carrier = 200.0

    @Flag(name: .long, help: "Only drive the motor line inactive and release it, then exit (a service's stop step).")
    var off = false

    func validate() throws {
        guard `repeat` >= 0, `repeat` <= 10_000 else {
            throw ValidationError("--repeat must be 0 (until interrupted) to 10000, got \(`repeat`)")
        }
        guard strength > 0, strength <= 1 else { throw ValidationError("--strength must be more than 0 and at most 1, got \(strength)") }
        guard carrier >= 10, carrier <= 20_000 else { throw ValidationError("--carrier must be between 10 and 20000 Hz, got \(carrier)") }
        if effect != nil, pattern != nil { throw ValidationError("give --effect or --pattern, not both") }
        if off, effect != nil || pattern != nil { throw ValidationError("--off plays nothing: drop --effect and --pattern") }
    }

    func run() throws {
        try SignalWatcher.shared.start()
        let description = try board.map { try BoardDescription.load(path: $0) } ?? builtInBoard()
        // Checked before anything is opened, so a typo never touches the motor.
        let chosen = try HapticsRequest.effect(name: effect, default: description.motor?.shakeEffect ?? .pulse(ms: 150),
                                              pattern: pattern, repeat: `repeat`, strength: strength)
        let clock = try CommandClock.clock(for: description)
        guard let motorSection = description.motor else {
            if off { Console.note("board \(description.name) has no motor: nothing to switch off"); return }
            throw CLIError(message: "board \(description.name) has no motor: add a \"motor\" section (chip, line) to its board file",
                           category: .unavailable)
        }
        // The motor is opened alone, so it can be tried before the sensor is wired.
        let line = try CommandBoard.backend(for: description, clock: clock).openMotorLine(motorSection)
        if off {
            line.release()
            Console.note("motor off: \(line.name) driven inactive and released")
            return
        }
        let motor = Motor(line: line, clock: clock, cap: motorSection.cap,
                          announceChanges: description.isSimulated, carrierHz: carrier)
        defer { motor.shutdown() }
        motor.engine.play(chosen)
        // The engine times the effect on its own thread; this one only waits for the end or a signal.
        let waiting = LinuxMonotonicClock()
        while motor.engine.isActive, !SignalWatcher.shared.stopRequested {
            waiting.sleep(untilNanoseconds: waiting.nowNanoseconds() &+ 2_000_000)
        }
        let failure = motor.engine.lastError
        motor.shutdown()
        if let failure {
            throw CLIError(message: "the motor line failed: \(describe(failure))", category: .io)
        }
        if let signal = SignalWatcher.shared.signal, OutputFailure.first == nil {
            Console.note("stopped by signal \(signal); motor off")
        }
    }

    private func builtInBoard() -> BoardDescription {
        Console.note("no --board given: using the built-in simulated MPU-6050 board")
        return BoardDescription.builtInSimulated()
    }
}

/// Turns the `haptics` flags into one effect, with errors that list what is allowed.
enum HapticsRequest {
    /// `name` (nil: `defaultEffect`, the board's already parsed shake effect) or `pattern`.
    static func effect(name: String?, default defaultEffect: HapticEffect = .pulse(ms: 150), pattern: String?, repeat count: Int,
                       strength: Double) throws -> HapticEffect {
        let plays: Int? = count == 0 ? nil : count
        do {
            if let pattern {
                return try HapticEffect.pattern(pattern, repeat: plays, strength: strength)
            }
            let base = try name.map { try HapticEffect.parse(name: $0) }?.waveform ?? defaultEffect.waveform
            var timings = base.timingsMs
            // Back to back, pulses would merge into one long on-time: give repeats a gap.
            if count != 1, timings.count % 2 == 1 { timings.append(gapMs) }
            let cycles: Int? = plays.flatMap { p in base.repeatCount.map { $0 * p } }
            let effect = HapticEffect.waveform(HapticWaveform(timingsMs: timings, repeatCount: cycles, strength: strength))
            try effect.validate()
            return effect
        } catch let error as HapticEffectError {
            // The effect parser's own message already lists the presets.
            let hint = pattern == nil ? "" : " (a pattern looks like 200,100,200; or use --effect with one of \(HapticEffect.presetNames.joined(separator: ", ")))"
            throw CLIError(message: describe(error) + hint, category: .invalidRequest)
        }
    }

    /// Off-time put between plays of a single pulse repeated until interrupted, so it is felt as pulses.
    static let gapMs = 100.0
}

