/// A GPIO line requested as an input with rising-edge events, e.g. the sensor's INT pin.
///
/// Implemented by libgpiod (`TiltboardLinux`) and by the simulated chips' interrupt pins.
public protocol GPIOInputLine: AnyObject, Sendable {
    /// Names the line in messages: `pinctrl-bcm2711 line 4 (GPIO4)`.
    var name: String { get }
    /// Blocks up to `timeoutNanoseconds` for a rising edge and consumes it. Returns false on
    /// timeout (or when a signal cut the wait short), so a caller can check for a stop request.
    /// Edges that arrived since the previous wait are queued, not lost.
    func waitForEdge(timeoutNanoseconds: Int64) throws -> Bool
    /// Gives the line back. Safe to call more than once.
    func release()
}
