import TiltboardCore

/// What a game sent to the gamepad's force-feedback side, already answered to the kernel.
package enum ForceFeedbackRequest: Sendable, Equatable {
    /// Effect `id` uploaded (new or replaced).
    case upload(id: Int, RumbleEffect)
    /// Effect `id` erased.
    case erase(id: Int)
    /// Effect `id` played `count` times; 0 stops it.
    case play(id: Int, count: Int32)
    /// `FF_GAIN`, 0…0xFFFF.
    case gain(Int32)
}

/// A virtual gamepad games can open: a stick, a button and force feedback.
package protocol GamepadDevice: AnyObject {
    /// Reports the stick and the shake button, then a sync; values outside the stick's range are clamped.
    func report(x: Int32, y: Int32, button: Bool) throws
    /// Handles everything games sent since the last call, without blocking, passing each
    /// force-feedback request to `handle`.
    func pollRequests(_ handle: (ForceFeedbackRequest) -> Void) throws
    /// Removes the device; idempotent.
    func close()
}
