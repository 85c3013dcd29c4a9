import Tiltboard

// Opens a board file (this simulated one tilts still, then shakes; a real board's file works the
// same), runs its loop for 10 s at most, prints tilt and marker twice a second, stops on a shake.
let board = try BoardSession.open(boardFile: CommandLine.arguments.dropFirst().first ?? "Boards/simulated-wake.json")
let loop = board.makeLoop()
let r = { (value: Double) in (value * 100).rounded() / 100 }
let running = loop.start(for: .seconds(10), observers: [LoopObserver(sample: { out, tick in
    if tick.index % 50 == 0 {
        print("tilt \(r(out.tilt.pitchDeg))° \(r(out.tilt.rollDeg))°, marker \(r(out.control.x)) \(r(out.control.y))")
    }
    if let shake = out.shakeEvent, shake.phase == .started { print("shake at \(shake.t) s"); loop.stop() }
})])
try running.wait()
board.close()
