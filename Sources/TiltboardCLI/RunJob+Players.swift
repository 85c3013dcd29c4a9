import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// Several boards opened together, in player order: one clock, each with its own profile,
/// calibration, shake sensitivity and motor.
struct PlayerBoards {
    let sessions: [BoardSession]
    let motors: [Motor?]

    /// `player N`, as every line about one board of several starts.
    static func label(_ index: Int) -> String { "player \(index + 1)" }

    /// Opens every `--board` (at `rate`, or each board's own) on one clock: the virtual one with
    /// `fast` (simulated boards only), else the one `CommandClock` gives the first real board, or
    /// the first board when all are simulated. The motors announce their changes with their player.
    static func open(_ options: PlayerBoardOptions, rate: Double?, fifo: Bool, fast: Bool) throws -> PlayerBoards {
        let boards = try options.board.map { try BoardDescription.load(path: $0) }
        let clock = try CommandClock.clock(for: boards.first(where: { !$0.isSimulated }) ?? boards[0], fast: fast)
        var sessions: [BoardSession] = []
        var motors: [Motor?] = []
        do {
            for (i, board) in boards.enumerated() {
                let rateHz = rate ?? board.sensor.rateHz
                let useFIFO = fifo || board.sensor.fifo || rateHz > RunPlan.fifoAboveHz
                let chosen = options.options(player: i)
                let session = try CommandBoard.open(board, clock: clock, profilePath: chosen.profile, useProfile: !chosen.ignoreProfile,
                                                    rateHz: rateHz, fifo: useFIFO)
                sessions.append(session)
                motors.append(try Motor.open(session, announceChanges: true, label: label(i)))
            }
        } catch {
            for session in sessions.reversed() { session.close() }
            throw error
        }
        return PlayerBoards(sessions: sessions, motors: motors)
    }

    /// Closes every board, the last player's first.
    func close() {
        for session in sessions.reversed() { session.close() }
    }

    /// `player N: running …` and the profile's note, for each board.
    func announce(duration: Double?, ignoreProfile: Bool) {
        let until = RunPlan.describeDuration(duration)
        for (i, session) in sessions.enumerated() {
            let label = Self.label(i)
            let part = session.board.name.contains(session.sensor.identity.part) ? "" : " (\(session.sensor.identity.part))"
            Console.note("\(label): running \(session.board.name)\(part) at \(RunPlan.describeRate(session)) \(until), shake sensitivity \(ProfileShake.describe(session.shakeSettings))")
            if session.profile == nil {
                Console.note("\(label): " + (ignoreProfile ? "calibration profile ignored" : "no calibration profile at \(session.profilePath): raw sensor values (see `tiltboard calibrate`)"))
            }
            if motors[i] == nil { Console.note("\(label): the board has no motor: shakes are shown but not felt") }
        }
    }

    /// After the run: each board's totals, then the first board that failed as the error (the
    /// others' failures as warnings before it).
    func finish(_ group: TiltLoopGroup, _ running: RunningLoopGroup) throws {
        var failures: [(Int, Error)] = []
        for (i, member) in running.members.enumerated() {
            RunPlan.noteTotals(group.members[i], motor: motors[i], label: Self.label(i))
            do { try member.wait() } catch { failures.append((i, error)) }
        }
        for (i, error) in failures.dropFirst() { Console.warn("\(Self.label(i)): \(Advice.message(for: error))") }
        if let (i, error) = failures.first { throw PlayerError(player: i + 1, error: error) }
    }
}

/// What ended one player's board, as the command's error: its line starts `player N: `, and its
/// exit status is the error's.
struct PlayerError: CategorizedError {
    var player: Int
    var error: Error
    var category: ErrorCategory { (error as? CategorizedError)?.category ?? .internalFailure }
    var description: String { "player \(player): \(Advice.message(for: error))" }
}

extension RunJob {
    /// The job over several boards (`--board` more than once) in one loop: one schedule, each
    /// board read in player order at every tick, its own output lines (`"player":N` first), its
    /// own motor and, with --gamepad, its own gamepad ("NAME 1", "NAME 2", … created in player
    /// order). A board that fails is ridden out alone; one that gives up ends alone while the
    /// others play on, and the command then exits with its error.
    func runTogether(_ options: PlayerBoardOptions, hooks: Hooks = Hooks(), fast: Bool = false) throws {
        try SignalWatcher.shared.start()
        let boards = try PlayerBoards.open(options, rate: rate.hz, fifo: fifo, fast: fast)
        defer { boards.close() }
        let sessions = boards.sessions
        let sender = try udp.map { try UDPSender(destination: $0) }
        let axes = pad.axes(deadZoneDeg: controller.deadZone, responseExponent: controller.response)
        let links = try gamepad ? GamepadLink.players(options: pad, axes: axes, sessions: sessions, engines: boards.motors.map { $0?.engine })
            : []
        let loops = try sessions.indices.map { i in
            try RunPlan.makeLoop(sessions[i], haptics: boards.motors[i]?.engine, controller: controller.settings, realtime: realtime,
                                 bus: bus, wake: wake, label: PlayerBoards.label(i))
        }
        let group = try TiltLoopGroup(loops)
        boards.announce(duration: duration.seconds, ignoreProfile: options.ignoreProfile)
        if let sender { Console.note("sending JSON datagrams to \(sender.destination)") }
        for link in links { Console.note("gamepad \"\(link.name)\" created") }
        let added = try hooks.preparedPlayers(sessions, boards.motors, loops)

        let clock = sessions[0].clock
        var states: [RunOutputState] = []
        for i in sessions.indices {
            states.append(RunOutputState(json: json, statusLine: hooks.statusLine, interval: outputRate.map { 1 / $0 } ?? (json ? 0 : 0.1),
                                         sender: sender, engine: boards.motors[i]?.engine,
                                         whenFull: CommandClock.isReal(clock) ? .dropOldest : .wait,
                                         settle: CommandClock.settle(clock), player: i + 1, sharing: states.first))
        }
        let observers = sessions.indices.map { i in
            let state = states[i], loop = loops[i]
            let pad = links.isEmpty ? [] : [links[i].observer(loop: loop)]
            return pad + [LoopObserver(sample: { out, _ in state.emit(out) })] + (added.indices.contains(i) ? added[i] : [])
        }
        let running = group.start(for: RunPlan.span(duration.seconds), observers: observers)
        let writers = states[0].writers
        SignalWatcher.shared.onStop { _ in
            running.stop()
            for writer in writers { writer.stopWaiting() }
        }
        let note = running.wait()
        for motor in boards.motors { motor?.shutdown() }
        states[0].finish()
        if let note { Console.note(note) } else if realtime { Console.note("the loop ran with SCHED_FIFO priority and locked memory") }
        try boards.finish(group, running)
        states[0].report()
        for link in links { try link.finish() }
    }
}
