import Foundation
import TiltboardLinux

/// Where `serve`'s sockets and tasks run: one thread of their own, at a lower priority than the
/// tilt loop (nice 10), instead of the shared concurrency pool. On a machine with few cores the
/// loop's wake-ups then never wait behind the server's work; the server runs whenever the loop
/// sleeps, which is nearly all the time. Tasks opt in with `Task(executorPreference:)`; their child
/// tasks and the actors they call (the socket pool) follow.
package final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    /// The server's thread, started on first use.
    package static let shared = ServerExecutor(name: "tiltboard-serve")

    /// The thread's nice value: below the loop's 0, and raising it needs no privilege.
    package static let nice: Int32 = 10

    private let condition = NSCondition()
    // Under `condition`.
    private var jobs: [UnownedJob] = []

    package init(name: String) {
        Thread { [self] in
            // Named from inside: Foundation's name, set before start, does not always reach the kernel.
            Realtime.nameCallingThread(name)
            work()
        }.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    package func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    private func work() {
        Realtime.lowerCallingThread(nice: Self.nice)
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
