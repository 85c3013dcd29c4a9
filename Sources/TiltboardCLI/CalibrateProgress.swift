import Tiltboard
import TiltboardLinux

/// Progress of a capture on stderr: a bar redrawn in place on a terminal, a line at each
/// quarter otherwise (logs and pipes get a few lines, not hundreds of carriage returns).
struct CalibrateProgress {
    let isTTY = RawTerminal.isTerminal(2)
    private var label = ""
    private var shown = -1
    private var barVisible = false

    /// Starts a new bar named `label` at 0 %.
    mutating func begin(_ label: String) {
        self.label = label
        shown = -1
        update(0)
    }

    /// Shows `fraction` (0…1) of the current capture.
    mutating func update(_ fraction: Double) {
        let percent = Int((Swift.min(1, Swift.max(0, fraction)) * 100).rounded(.down))
        if isTTY {
            guard percent != shown else { return }
            shown = percent
            let width = 30
            let filled = percent * width / 100
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            Console.error("\r\u{1B}[K\(label) [\(bar)] \(percent) %")
            barVisible = true
        } else {
            let quarter = percent / 25
            guard quarter != shown else { return }
            shown = quarter
            Console.note("\(label): \(quarter * 25) %")
        }
    }

    /// Prints a message line without tearing the bar; the bar is redrawn on the next update.
    mutating func message(_ text: String, warning: Bool = false) {
        clearBar()
        if warning { Console.warn(text) } else { Console.note(text) }
        if isTTY { shown = -1 }
    }

    /// Ends the bar's line so that what follows starts on a fresh one.
    mutating func finish() {
        if isTTY && barVisible { Console.error("\n") }
        barVisible = false
    }

    private mutating func clearBar() {
        if isTTY && barVisible {
            Console.error("\r\u{1B}[K")
            barVisible = false
        }
    }
}

/// Waits for Enter on stdin before a capture. Returns at once when stdin is at end of file (not a
/// terminal, nothing to read), and returns false when a stop signal arrives first.
func waitForEnter(prompt: String) -> Bool {
    Console.note(prompt)
    if RawTerminal.isTerminal(0) { Console.error("press Enter to start (or Ctrl-C to cancel) ") }
    while !SignalWatcher.shared.stopRequested {
        // In the background a read of the terminal fails (EIO) rather than stopping the process.
        SignalWatcher.shared.waitForForeground(of: 0)
        switch RawTerminal.readByte(from: 0, timeoutMilliseconds: 100) {
        case .nothingYet: continue
        // End of file, or no usable stdin: scripts and services start at once, nobody can press Enter.
        case .endOfInput: return true
        case let .byte(byte): if byte == UInt8(ascii: "\n") { return true }
        }
    }
    return false
}
