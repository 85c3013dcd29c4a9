#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Descriptors 0, 1 and 2 as the program found them.
///
/// A program started with one of them closed (`>&-`) would hand that number to the next file it
/// opens, and its output or messages would land in that file. `reopenClosed()` puts `/dev/null`
/// on each closed one before anything else is opened, and remembers which they were, so a
/// command whose output was meant for one of them can refuse to run instead of writing nowhere.
package enum StandardDescriptors {
    private static let closed = Mutex<Set<Int32>>([])

    /// Reopens each closed standard descriptor on `/dev/null` and remembers which they were;
    /// call it first thing in `main`.
    package static func reopenClosed() {
        var found: Set<Int32> = []
        for n: Int32 in 0...2 where fcntl(n, F_GETFD) < 0 && errno == EBADF {
            // open returns the lowest free number, which is n: the lower ones are open by now.
            let fd = open("/dev/null", n == 0 ? O_RDONLY : O_WRONLY)
            if fd >= 0 && fd != n {
                _ = dup2(fd, n)
                close(fd)
            }
            found.insert(n)
        }
        closed.withLock { $0.formUnion(found) }
    }

    /// The standard descriptors that were closed when `reopenClosed()` ran.
    package static var closedAtStart: Set<Int32> { closed.withLock { $0 } }
}
