import ArgumentParser
import Foundation
import Synchronization
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardLinux

/// `tiltboard monitor`: the live calibration screen.
struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Live terminal screen: the tilt marker, pitch/roll, loop rate; set the neutral pose.",
        discussion: """
        Draws the controlled marker in a frame that fills the terminal (at least 80×24), with pitch, \
        roll, x/y, the neutral tilt and the loop's rate; the frame flashes when a shake starts (and \
        the board's motor plays its shake effect). Keys: c takes the current pose (the mean of the \
        last half second) as neutral and saves it in the profile; z resets the neutral pose to \
        level and saves that; q, Esc or Ctrl-C quits; Ctrl-Z suspends (motor off, terminal \
        restored; the screen comes back on `fg`). The terminal is restored on every exit.

        Without --board the built-in simulated board plays the "demo" script, so the marker moves \
        by itself. Exits 64 when stdin/stdout is not a terminal or the terminal is smaller than 80×24.
        """
    )

    @OptionGroup var boardOptions: BoardOptions

    /// Screen refresh period: 25 frames per second, plenty for a marker and cheap over SSH.
    static let framePeriodMilliseconds: Int32 = 40
    /// How long the shake flash lasts, seconds of loop time.
    static let flashSeconds = 0.3
    /// The neutral pose averages this much of the most recent motion, seconds.
    static let captureSeconds = 0.5

    func run() throws {
        try SignalWatcher.shared.start()
        let terminal: RawTerminal
        do {
            terminal = try RawTerminal(input: 0, output: 1)
        } catch let error as TerminalError {
            throw CLIError(message: "monitor draws a live screen and needs a terminal on stdin and stdout (\(describe(error))); for piped output use `tiltboard read`",
                           category: .invalidRequest)
        }
        let size = terminal.size() ?? TerminalSize(columns: 80, rows: 24)
        guard MonitorScreen(columns: size.columns, rows: size.rows).fits else {
            throw CLIError(message: MonitorScreen(columns: size.columns, rows: size.rows).tooSmallMessage, category: .invalidRequest)
        }

        let session = try CommandBoard.open(boardOptions.loadBoard(defaultScript: "demo"), options: boardOptions)
        defer { session.close() }
        let clock = session.clock
        // Warnings on stderr would scribble over the screen: the summary line counts the cap's trips.
        let motor = try Motor.open(session, announceChanges: false, warnOnTrip: false)
        let loop = try RunPlan.makeLoop(session, haptics: motor?.engine)

        // Started in the background, it waits to be brought to the foreground, as the terminal would make it.
        SignalWatcher.shared.waitForForeground(of: terminal.input)
        try terminal.enter()
        defer { terminal.restore() }
        SignalWatcher.shared.onStop { _ in terminal.restore() }
        // Ctrl-Z: the shell gets its terminal back before the process stops; the loop below takes it again.
        SignalWatcher.shared.onSuspend { terminal.restore() }

        let link = MonitorLink()
        let side = MonitorLoopSide(link: link, rateHz: session.sensor.actualRateHz, captureSeconds: Self.captureSeconds,
                                   neutralSource: { mean, chain in session.neutralSource(boardMeanG: mean, chain: chain, maxTiltDeg: 30) })
        var screen = MonitorScreenState(board: session.board.name, neutral: session.profile?.neutralPose(mount: session.board.mount) ?? .level)
        do {
            try ProfileStore.checkWritable(path: session.profilePath)
        } catch {
            screen.note = "c and z will apply but not save: \(exitStatus(for: error)?.message ?? "\(describe(error))")"
        }
        var running: RunningLoop?
        defer {
            running?.stop()
            _ = try? running?.wait()
        }
        // Keys are taken and the frame drawn on the board's clock, so a virtual clock paces the
        // screen with the loop instead of either racing past the other: the loop starts, and
        // the first frame waits for its first sample, while this thread holds the clock.
        let frames = FixedRateScheduler(rateHz: 1000 / Double(Self.framePeriodMilliseconds), clock: clock)
        try clock.takingPart {
            let started = loop.start(observers: [LoopObserver(sample: { out, _ in side.handle(out, loop: loop) })])
            running = started
            // Registered after a stop was requested, it runs at once.
            SignalWatcher.shared.onStop { _ in started.stop() }
            started.waitForFirstSample()
            try frames.run(shouldStop: { SignalWatcher.shared.stopRequested || started.isFinished }) { _ in
                if !terminal.isActive {
                    // Continued after a stop: once in the foreground, raw mode and a full frame again.
                    SignalWatcher.shared.waitForForeground(of: terminal.input)
                    if SignalWatcher.shared.stopRequested { return frames.stop() }
                    try terminal.enter()
                    screen.redrawAll()
                }
                var quit = false
                for key in try terminal.readKeys(timeoutMilliseconds: 0) {
                    switch key {
                    case .character(UInt8(ascii: "c")), .character(UInt8(ascii: "C")):
                        side.capture(on: loop)
                        screen.note = "capturing the neutral pose…"
                    case .character(UInt8(ascii: "z")), .character(UInt8(ascii: "Z")):
                        side.level(on: loop)
                        screen.neutral = .level
                        do {
                            try session.zeroNeutral(applying: false)
                            screen.note = "neutral zeroed (level) and saved to \(session.profilePath)"
                        } catch {
                            screen.note = "neutral set to level but not saved: \(exitStatus(for: error)?.message ?? "\(describe(error))")"
                        }
                    case .character(UInt8(ascii: "q")), .character(UInt8(ascii: "Q")), .escape, .interrupt, .endOfInput:
                        quit = true
                    case .character(0x1A):
                        // Ctrl-Z arrives as a byte in raw mode: stop as the key would outside it.
                        SignalWatcher.shared.suspend()
                    default:
                        break
                    }
                }
                if let captured = link.takeCaptured() {
                    // File I/O stays on this thread; the loop thread already applied the pose.
                    let pose = captured.pose
                    screen.neutral = pose
                    do {
                        try session.saveNeutral(pose, capture: captured.summary, applying: false)
                        screen.note = "neutral saved to \(session.profilePath) (tilt \(String(format: "%.1f", pose.tiltDeg))°\(pose.clamped ? ", clamped" : ""))"
                    } catch {
                        screen.note = "neutral applied but not saved: \(exitStatus(for: error)?.message ?? "\(describe(error))")"
                    }
                }
                if quit { return frames.stop() }
                screen.draw(on: terminal, link: link, loop: loop, clock: clock, motorOn: motor.map { $0.engine.isActive })
            }
        }
        running?.stop()
        let ended = Result { try running?.wait() }
        terminal.restore()
        Console.note("monitor: \(link.snapshot.samples) samples; \(loop.scheduler.statistics); \(Motor.tripsSummary(motor))")
        _ = try ended.get()
    }
}
