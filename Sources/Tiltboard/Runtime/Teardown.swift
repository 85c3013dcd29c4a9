import Foundation

/// What undoes an opened board's acquisitions, as the kernel's managed device resources do for a
/// driver's probe (Documentation/driver-api/driver-model/devres.rst; drivers/base/devres.c,
/// `devm_add_action`, `devres_release_all`): each step that acquires something registers what
/// gives it back, and `run()` gives everything back once, newest first.
package final class Teardown: @unchecked Sendable {
    private let lock = NSLock()
    // Held while the actions run, so a second `run()` returns only when everything is undone; a
    // recursive lock so an action that closes its own owner again does not wait on itself.
    private let running = NSRecursiveLock()
    private var actions: [() -> Void] = []
    private var done = false

    package init() {}

    /// Registers `action` to run before everything registered earlier. After `run()` there is
    /// nothing left to wait for: `action` runs at once (as `devm_add_action_or_reset` undoes
    /// what it could not register).
    package func add(_ action: @escaping () -> Void) {
        lock.lock()
        if done {
            lock.unlock()
            action()
            return
        }
        actions.append(action)
        lock.unlock()
    }

    /// Runs every registered action once, newest first; later calls, from any thread, do nothing
    /// more (they return once the first call has finished).
    package func run() {
        running.lock()
        defer { running.unlock() }
        lock.lock()
        let taken = actions
        actions = []
        done = true
        lock.unlock()
        for action in taken.reversed() { action() }
    }

    /// True once `run()` has started.
    package var hasRun: Bool {
        lock.lock()
        defer { lock.unlock() }
        return done
    }
}
