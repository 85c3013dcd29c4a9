import ArgumentParser
import Tiltboard
import TiltboardDrivers
import TiltboardLinux

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the tilt controller: sensor → calibration → tilt → marker, with haptic feedback on a shake.",
        discussion: """
        Samples the sensor at a fixed rate on a dedicated thread. Each sample goes through the \
        calibration profile and mount, the tilt estimator and the neutral pose, then moves a marker \
        in the −1…1 square; a shake plays the board's shake effect on the motor. Above 400 Hz (or \
        with --fifo) the chip's FIFO is drained each tick so no sample is lost.

        Without --json, a status line about 10 times a second. With --json, one object per sample \
        (or per --output-rate): {"t":s,"tilt":{"pitchDeg":…,"rollDeg":…,"trusted":bool},"control":{"x":…,"y":…,\
        "vx":…,"vy":…,"headingDeg":…},"shake":bool,"haptic":bool}. --udp sends the same objects as datagrams. \
        In real time a reader that falls behind costs the oldest lines (counted in "dropped"), never a tick; \
        with --fast a simulated board runs on a virtual clock, the loop waits for the reader, and every \
        line is written, the same on every run.

        --wake-on-motion (needs the board's "interrupt" section) stops sampling after 2 s of \
        stillness and sleeps on the sensor's interrupt line until the chip reports motion; each \
        sleep and wake is noted on stderr.

        A failing bus is ridden out: a failed read is retried within the tick; while the sensor \
        does not answer, the loop keeps its schedule with the motor off and no output, noting \
        `sensor lost at … s`; when it answers it is checked, and a chip that reset (a brown-out) is \
        configured again: `sensor back at … s (reconfigured)`. After --give-up-after seconds \
        without a sample it exits 74. The totals line counts bus errors, outages and reconfigurations.

        Several boards (--board once per player, in player order) run in one loop: one schedule at \
        their common rate (--rate, or the same rateHz in their board files), each board read in \
        turn at every tick, so their samples are taken together and their bus transactions never \
        interleave. Each has its own profile (--profile once per --board, or each board's default), \
        calibration, shake sensitivity and motor with its cap: a shake buzzes only its own board. \
        Each JSON line starts with "player":N (1 for the first board), each status line with \
        `player N`, and each note on stderr with `player N:`. A board that fails is ridden out \
        alone while the others play on; one that gives up ends alone, and the command then exits \
        with its error. --wake-on-motion needs a single board.

        Ctrl-C (SIGINT) or SIGTERM stops cleanly: motor off, sensor asleep, loop statistics on stderr, exit 0.
        Without --board, the built-in simulated board plays the demo script (tilt left, right, forward, back, shake).
        """
    )

    @OptionGroup var boards: PlayerBoardOptions

    @OptionGroup var job: RunJob

    @OptionGroup var speed: FastOption

    func validate() throws {
        if speed.fast, job.realtime { throw ValidationError("--fast runs on a virtual clock: --realtime does not apply") }
    }

    func run() throws {
        if boards.several {
            try job.runTogether(boards, fast: speed.fast)
        } else {
            try job.run(boards.options(), fast: speed.fast)
        }
    }
}

