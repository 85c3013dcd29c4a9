import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardLinux

/// The screen thread's side of the monitor: turns the loop's snapshots into frames, measures the
/// sample rate, and writes a frame only when it changed (cheap over SSH).
struct MonitorScreenState {
    let board: String
    var neutral: NeutralPose
    var note: String?
    private var lastFrame: [UInt8] = []
    private var lastSize: TerminalSize?
    private var rateWindow: (time: UInt64, samples: UInt64)?
    private var rateHz: Double?
    /// One linear-acceleration peak per frame, oldest first, at most `historyLength`.
    private var linearHistory: [Double] = []
    static let historyLength = 400

    init(board: String, neutral: NeutralPose) {
        self.board = board; self.neutral = neutral
    }

    /// The next `draw` paints the whole screen (after the terminal was taken back).
    mutating func redrawAll() {
        lastSize = nil
        lastFrame = []
    }

    mutating func draw(on terminal: RawTerminal, link: MonitorLink, loop: TiltLoop, clock: MonotonicClock,
                       motorOn: Bool? = nil) {
        let s = link.takeSnapshot()
        linearHistory.append(s.linearPeakG)
        if linearHistory.count > Self.historyLength { linearHistory.removeFirst(linearHistory.count - Self.historyLength) }
        let now = clock.nowNanoseconds()
        if let w = rateWindow {
            if now &- w.time >= Nanoseconds.perSecond {
                rateHz = Double(s.samples &- w.samples) / Nanoseconds.seconds(from: w.time, to: now)
                rateWindow = (now, s.samples)
            }
        } else {
            rateWindow = (now, s.samples)
        }
        let stats = loop.scheduler.statistics
        let size = terminal.size() ?? TerminalSize(columns: 80, rows: 24)
        var bytes: [UInt8] = []
        if size != lastSize {
            // A resize leaves stale cells outside the new layout: clear once, not every frame.
            bytes += Array("\u{1B}[2J".utf8)
            lastSize = size
            lastFrame = []
        }
        var view = MonitorView(boardName: board, rateHz: rateHz,
                               latenessP99Ms: stats.ticks > 0 ? Double(stats.latenessP99Nanoseconds) / 1e6 : nil,
                               pitchDeg: s.pitchDeg, rollDeg: s.rollDeg, x: s.x, y: s.y,
                               neutralTiltDeg: neutral.tiltDeg, neutralClamped: neutral.clamped, shakes: s.shakes,
                               flash: s.shaking || s.t - s.lastShakeStart < MonitorCommand.flashSeconds, note: note)
        view.linearG = linearHistory
        view.thresholdG = s.thresholdG
        view.motorOn = motorOn
        let frame = MonitorScreen(columns: size.columns, rows: size.rows).frame(view)
        guard frame != lastFrame else { return }
        lastFrame = frame
        terminal.write(bytes + frame)
    }
}
