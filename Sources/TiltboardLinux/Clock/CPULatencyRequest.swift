#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TiltboardCore

/// A CPU wake-up latency request held through the kernel's PM QoS interface: while it is open,
/// the idle governor keeps every CPU out of idle states slower to leave than the request
/// (Documentation/power/pm_qos_interface.rst, "cpu_dma_latency": write an s32 number of
/// microseconds to /dev/cpu_dma_latency; the request lasts until the file is closed). 0 keeps
/// the CPUs in their shallowest state, which `cyclictest` asks for by default (rt-tests,
/// src/cyclictest/cyclictest.c, `set_latency_target`). It costs power: hold it only to measure.
package final class CPULatencyRequest {
    /// The PM QoS device.
    package static let devicePath = "/dev/cpu_dma_latency"
    private var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Asks for wake-ups within `microseconds` until `release()`; the kernel's errno when the
    /// device cannot be opened or written (only root may, by its mode 0600).
    package static func hold(microseconds: Int32 = 0, path: String = devicePath) -> Result<CPULatencyRequest, CPULatencyRefused> {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(CPULatencyRefused(errno: errno)) }
        var value = microseconds
        let written = withUnsafeBytes(of: &value) { write(fd, $0.baseAddress, $0.count) }
        guard written == MemoryLayout<Int32>.size else {
            let code = written < 0 ? errno : EIO
            close(fd)
            return .failure(CPULatencyRefused(errno: code))
        }
        return .success(CPULatencyRequest(descriptor: fd))
    }

    /// Ends the request (closing the device ends it); further calls do nothing.
    package func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

/// Why a `CPULatencyRequest` was not held: the kernel's errno.
package struct CPULatencyRefused: CategorizedError, Sendable, Equatable {
    /// The errno of the open or the write.
    package var errno: Int32
    /// Permission denied (the device is root's), or the device unavailable.
    package var category: ErrorCategory { errno == EACCES || errno == EPERM ? .permissionDenied : .unavailable }
    package var description: String { "CPULatencyRefused(errno: \(errno))" }
}
