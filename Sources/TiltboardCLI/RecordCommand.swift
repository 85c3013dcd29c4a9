import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardDrivers
import TiltboardLinux

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record calibrated samples to a CSV trace the simulator can replay.",
        discussion: """
        Writes `t,ax,ay,az,gx,gy,gz` (\(ChipRegistry.partNames("and") { $0.gyroscope != nil })) or `t,ax,ay,az` \
        (\(ChipRegistry.partNames("and") { $0.gyroscope == nil })): seconds since the start, \
        acceleration in g and rotation rate in °/s, in the board frame after the mount and the \
        calibration profile. Replay it with a board file whose simulation section names it: \
        {"sensor": {"bus": "simulated", …}, "simulation": {"trace": "FILE.csv"}}; with --fast, `run`, \
        `shake`, `read` and `record` replay it as fast as the machine allows, the same on every run.

        The file is written as the recording goes (in blocks of about 4 KB, and completely on a \
        clean stop), so a killed recording keeps all but its last moments. An existing file is \
        refused (exit 73) unless --force is given; with it, the file is emptied and written in place \
        (through a symlink, keeping its mode), so a kill leaves a partial recording, never a missing \
        file. A character device or a FIFO (/dev/stdout, a pipe to another program) is written \
        through (a pipe whose reader goes away ends the recording, exit 0); a folder, socket or block \
        device is refused (exit 73), and so is a file another program is recording into.
        """
    )

    @Option(help: ArgumentHelp("The CSV file to write.", valueName: "file.csv"))
    var out: String

    @OptionGroup var boardOptions: BoardOptions

    @OptionGroup var duration: DurationOption

    @OptionGroup var rate: RateOption

    @Flag(help: "Overwrite the file if it exists.")
    var force = false

    @OptionGroup(title: "Bus failures") var bus: BusOptions

    @OptionGroup var speed: FastOption

    func validate() throws {
    }

    func run() throws {
        try SignalWatcher.shared.start()
        let session = try RunPlan.openSession(boardOptions, rate: rate.hz, fifo: false, defaultScript: "demo", fast: speed.fast)
        defer { session.close() }
        let file: OutputFile
        do {
            file = try OutputFile.open(path: out, overwrite: force,
                                       waitingForReader: { Console.note("\(out) is a FIFO: waiting for a program to read it") },
                                       shouldStop: { SignalWatcher.shared.stopRequested })
        } catch let error as OutputFileError where error.kind == .interrupted {
            Console.note(describe(error))
            return
        }
        let writer = try TraceCSVWriter(file: file, includesGyro: session.board.sensor.chip.details.gyroscope != nil)
        let loop = try RunPlan.makeLoop(session, haptics: nil, bus: bus)
        let until = RunPlan.describeDuration(duration.seconds)
        Console.note("recording \(session.board.name) at \(RunPlan.describeRate(session)) to \(out) \(until)")

        let failure = RecordFailure()
        let running = loop.start(for: RunPlan.span(duration.seconds), observers: [LoopObserver(sample: { sample, _ in
            guard failure.error == nil else { return }
            do { try writer.append(t: sample.t, accel: sample.accel, gyro: sample.gyro) } catch {
                failure.error = error
                loop.stop()
            }
        })])
        SignalWatcher.shared.onStop { _ in running.stop() }
        let ran = Result { try running.wait() }
        // A sensor given up on still leaves what was recorded before it.
        if case .failure = ran { try? writer.close() }
        let note = try ran.get()
        if let note { Console.note(note) }
        // A pipe's reader that went away (`--out /dev/stdout | head`) ends the recording cleanly.
        if let error = failure.error as? TraceFileError, error.readerWentAway { return }
        if let error = failure.error { throw error }
        do { try writer.close() } catch let error as TraceFileError where error.readerWentAway { return }
        Console.note("recorded \(writer.samples) samples to \(out); loop: \(loop.scheduler.statistics.description); \(loop.busStatistics)")
    }
}

/// The first write failure, carried out of the loop thread.
private final class RecordFailure {
    var error: Error?
}
