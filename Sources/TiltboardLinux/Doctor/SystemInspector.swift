#if canImport(Glibc)
import Glibc
#endif
import TiltboardDrivers

/// Reads what `tiltboard doctor` needs to know about this machine: device nodes, kernel modules,
/// the device tree, udev rules, groups and limits. Every path is taken below `root`, so tests
/// point it at a staged folder (a fake /dev, /proc/device-tree, /sys and /etc); "" is the real system.
package struct SystemInspector: Sendable {
    /// Prefix of every path read; "" for this machine.
    package var root: String

    package init(root: String = "") { self.root = root }

    /// `root + path`.
    package func path(_ path: String) -> String { root + path }

    package func exists(_ p: String) -> Bool { access(path(p), F_OK) == 0 }

    /// A small text file's contents, or nil.
    package func text(_ p: String) -> String? {
        guard let bytes = bytes(p) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func bytes(_ p: String) -> [UInt8]? {
        let fd = open(path(p), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while out.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { buffer in retryingEINTR { read(fd, buffer.baseAddress, buffer.count) } }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    // MARK: - I²C

    /// The adapter number of `/dev/i2c-N`, nil for any other path.
    package static func busNumber(_ device: String) -> Int? {
        guard let slash = device.lastIndex(of: "/") else { return nil }
        let name = device[device.index(after: slash)...]
        guard name.hasPrefix("i2c-") else { return nil }
        return Int(name.dropFirst(4))
    }

    /// `/dev/i2c-N` nodes present, in numeric order (paths without the root prefix).
    package func i2cDevices() -> [String] {
        LinuxI2CBus.availableBuses(in: path("/dev")).map { String($0.dropFirst(root.count)) }
    }

    /// The kernel has adapter N (whether or not i2c-dev gives it a /dev node).
    package func adapterPresent(_ n: Int) -> Bool {
        exists("/sys/bus/i2c/devices/i2c-\(n)") || exists("/sys/class/i2c-adapter/i2c-\(n)")
    }

    /// The kernel driver bound to `address` on the bus device `device` (`/dev/i2c-N`), read
    /// from `/sys` below the root; nil when none is.
    package func i2cDriverBinding(bus device: String, address: UInt8) -> I2CDriverBinding? {
        guard let n = Self.busNumber(device) else { return nil }
        guard var binding = I2CKernelDriver.binding(bus: "/dev/i2c-\(n)", address: address, sysfsRoot: path("/sys")) else {
            return nil
        }
        binding.bus = device
        return binding
    }

    /// The i2c-dev module (or built-in driver) is there.
    package var i2cDevLoaded: Bool { exists("/sys/module/i2c_dev") || exists("/sys/class/i2c-dev") }

    /// Where the Raspberry Pi firmware's config.txt is, and whether it turns the ARM I²C bus on
    /// (`dtparam=i2c_arm=on`, or `dtparam=i2c=on`, outside a comment); nil when there is no config.txt.
    package func bootConfigEnablesI2C() -> (file: String, enabled: Bool)? {
        for file in ["/boot/firmware/config.txt", "/boot/config.txt"] {
            guard let text = text(file) else { continue }
            let enabled = text.split(whereSeparator: \.isNewline).contains { raw in
                let line = raw.prefix { $0 != "#" }.trimmingSpaces
                guard line.hasPrefix("dtparam=") else { return false }
                return line.dropFirst(8).split(separator: ",").contains {
                    ["i2c_arm=on", "i2c=on", "i2c_arm", "i2c"].contains($0.trimmingSpaces)
                }
            }
            return (file, enabled)
        }
        return nil
    }

    /// The bus clock of adapter N from the device tree, in Hz, and the file it came from: the
    /// adapter's `of_node` (sysfs), else the `/proc/device-tree/aliases/i2cN` node. A big-endian
    /// u32 (devicetree specification §2.2.4); nil when neither says.
    package func busClockHz(_ n: Int) -> (hz: Int, file: String)? {
        var candidates = ["/sys/bus/i2c/devices/i2c-\(n)/of_node/clock-frequency",
                          "/sys/class/i2c-adapter/i2c-\(n)/of_node/clock-frequency"]
        if let alias = text("/proc/device-tree/aliases/i2c\(n)") {
            let node = alias.prefix { $0 != "\0" && !$0.isNewline }
            if node.hasPrefix("/") { candidates.append("/proc/device-tree\(node)/clock-frequency") }
        }
        for file in candidates {
            guard let b = bytes(file), b.count == 4 else { continue }
            return (b.reduce(0) { $0 << 8 | Int($1) }, file)
        }
        return nil
    }

    // MARK: - Access

    /// Why this process cannot open a device node for reading and writing.
    package struct OpenFailure: Sendable, Equatable {
        package var errno: Int32
        /// The kernel's reason (strerror).
        package var reason: String
        /// EACCES or EPERM: a matter of groups and udev rules, not of the node.
        package var isPermission: Bool { errno == EACCES || errno == EPERM }
    }

    /// Nil when this process can open `p` for reading and writing.
    package func openFailure(_ p: String) -> OpenFailure? {
        let fd = open(path(p), O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        if fd < 0 {
            let e = errno
            return OpenFailure(errno: e, reason: String(cString: strerror(e)))
        }
        close(fd)
        return nil
    }

    /// Who may use a device node: its group's name (from the staged /etc/group) and whether
    /// this user belongs to it in /etc/group and in this login.
    package struct Access: Sendable, Equatable {
        package var group: String
        package var userInGroup: Bool
        package var processHasGroup: Bool
    }

    package func deviceAccess(of p: String) -> Access? {
        var st = stat()
        guard stat(path(p), &st) == 0 else { return nil }
        let gid = st.st_gid
        let groups = parseGroups()
        let name = groups.first { $0.gid == gid }?.name ?? "\(gid)"
        let user = currentUserName()
        let listed = groups.contains { $0.gid == gid && user != nil && $0.members.contains(user!) }
            || primaryGroup() == gid
        var ids = [gid_t](repeating: 0, count: 256)
        let n = getgroups(Int32(ids.count), &ids)
        let has = getegid() == gid || (n > 0 && ids[0..<Int(n)].contains(gid))
        return Access(group: name, userInGroup: listed, processHasGroup: has)
    }

    /// Where the package's udev rule is installed, if it is.
    package func udevRule(named name: String = "60-tiltboard.rules") -> String? {
        ["/etc/udev/rules.d/", "/usr/lib/udev/rules.d/", "/lib/udev/rules.d/"].map { $0 + name }.first { exists($0) }
    }

    private func parseGroups() -> [(name: String, gid: gid_t, members: [String])] {
        (text("/etc/group") ?? "").split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ":", omittingEmptySubsequences: false)
            guard f.count >= 4, let gid = gid_t(f[2]) else { return nil }
            return (String(f[0]), gid, f[3].split(separator: ",").map(String.init))
        }
    }

    private func passwdEntry() -> [Substring]? {
        let uid = getuid()
        return (text("/etc/passwd") ?? "").split(whereSeparator: \.isNewline)
            .map { $0.split(separator: ":", omittingEmptySubsequences: false) }
            .first { $0.count >= 4 && uid_t($0[2]) == uid }
    }

    private func currentUserName() -> String? { passwdEntry().map { String($0[0]) } }
    private func primaryGroup() -> gid_t? { passwdEntry().flatMap { gid_t($0[3]) } }

    // MARK: - GPIO

    /// A GPIO line as `doctor` reports it.
    package struct LineState: Sendable, Equatable {
        /// `pinctrl-bcm2835 line 17 (GPIO17)`.
        package var name: String
        package var used: Bool
        package var consumer: String?

        package init(name: String, used: Bool, consumer: String?) {
            self.name = name; self.used = used; self.consumer = consumer
        }
    }

    /// Finds the line the board file names (chip by label, name or path, under `root`/dev) and
    /// says whether someone holds it. Throws the `GPIOError` the other commands would.
    package func gpioLine(chip: String, line: GPIOLineID) throws -> LineState {
        let spec = chip.hasPrefix("/") ? path(chip) : chip
        let found = try GPIOLineFinder.find(chip: spec, line: line, directory: path("/dev"))
        switch Gpiod.lineInfo(path: found.info.path, offset: found.offset) {
        case let .success(info):
            return LineState(name: found.displayName, used: info.used, consumer: info.consumer)
        case let .failure(error):
            throw GPIOError.io(.readLine(found.offset), found.info.path, error)
        }
    }

    /// The failure of a line someone else holds, for the commands to word.
    package static func busyError(_ line: LineState) -> GPIOError {
        GPIOError.lineBusy(line.name, consumer: line.consumer)
    }

    // MARK: - Realtime

    /// Whether a program that asks for real-time scheduling can have SCHED_FIFO and locked
    /// memory: root, or RLIMIT_RTPRIO > 0, and the memlock limit.
    package struct RealtimeLimits: Sendable, Equatable {
        package var isRoot: Bool
        package var rtprio: UInt64
        /// nil: unlimited.
        package var memlockBytes: UInt64?
        package var allowed: Bool { isRoot || rtprio > 0 }

        package init(isRoot: Bool, rtprio: UInt64, memlockBytes: UInt64?) {
            self.isRoot = isRoot; self.rtprio = rtprio; self.memlockBytes = memlockBytes
        }
    }

    package static func realtimeLimits() -> RealtimeLimits {
        var rt = rlimit(), mem = rlimit()
        getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &rt)
        getrlimit(__rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue), &mem)
        return RealtimeLimits(isRoot: geteuid() == 0, rtprio: UInt64(rt.rlim_cur),
                              memlockBytes: mem.rlim_cur == rlim_t.max ? nil : UInt64(mem.rlim_cur))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return s
    }
}
