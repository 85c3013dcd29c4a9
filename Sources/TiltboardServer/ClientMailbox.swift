import Foundation
import Synchronization

/// What one WebSocket client has yet to be sent: the newest state frame only (a newer one replaces
/// it, and the replaced one is counted as dropped) and a short queue of events and control frames
/// (bounded: the oldest goes when it is full). So a client that reads slowly, or not at all, costs
/// a fixed amount of memory and never holds up the others.
package final class ClientMailbox: Sendable {
    /// Events held for a client at most; more means it is not reading.
    package static let maxQueued = 64

    private struct State {
        var state: (json: [UInt8], framed: Data)?
        var queued: [[UInt8]] = []
        var dropped: UInt64 = 0
        var closing: [UInt8]?
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let box = Mutex(State())

    package init() {}

    /// Frames replaced before they were sent.
    package var dropped: UInt64 { box.withLock { $0.dropped } }

    /// A new state: its JSON text and the same as a WebSocket frame, made once for every client;
    /// replaces one not yet sent.
    package func offerState(_ json: [UInt8], framed: Data) {
        wake { s in
            if s.state != nil { s.dropped &+= 1 }
            s.state = (json, framed)
        }
    }

    /// A whole frame (an event, a pong), sent in order before the next state.
    package func offerQueued(_ bytes: [UInt8]) {
        wake { s in
            if s.queued.count >= Self.maxQueued { s.queued.removeFirst(); s.dropped &+= 1 }
            s.queued.append(bytes)
        }
    }

    /// Ends the stream: `farewell` is the last thing sent.
    package func close(farewell: [UInt8]) {
        wake { s in s.closing = farewell }
    }

    private func wake(_ change: (inout State) -> Void) {
        let waiter = box.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.closed else { return nil }
            change(&s)
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// What to send next: queued items first, then the state (with the dropped count so far);
    /// nil once closed. Waits while there is nothing; a cancelled task gets nil.
    package enum Next: Sendable, Equatable {
        case queued([UInt8])
        case state([UInt8], dropped: UInt64, framed: Data)
        case farewell([UInt8])
    }

    package func next() async -> Next? {
        while true {
            if Task.isCancelled { return nil }
            let ready = box.withLock { s -> Next?? in
                if s.closed { return .some(nil) }
                if !s.queued.isEmpty { return .some(.queued(s.queued.removeFirst())) }
                if let state = s.state { s.state = nil; return .some(.state(state.json, dropped: s.dropped, framed: state.framed)) }
                if let farewell = s.closing { s.closed = true; return .some(.farewell(farewell)) }
                return .none
            }
            if let ready { return ready }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let resumeNow = box.withLock { s -> Bool in
                        if s.state != nil || !s.queued.isEmpty || s.closing != nil || s.closed { return true }
                        s.waiter = c
                        return false
                    }
                    if resumeNow { c.resume() }
                }
            } onCancel: {
                let waiter = box.withLock { s -> CheckedContinuation<Void, Never>? in
                    s.closed = true
                    defer { s.waiter = nil }
                    return s.waiter
                }
                waiter?.resume()
            }
        }
    }
}
