#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Another program run to its end: `systemctl`, or this program again under another user.
package enum Subprocess {
    /// A running child.
    package struct Child: Sendable {
        package let pid: pid_t

        /// Waits for the child's end: its exit status, or 128 + the signal that ended it.
        package func wait() -> Int32 {
            var status: Int32 = 0
            guard retryingEINTR({ waitpid(pid, &status, 0) }) >= 0 else { return 127 }
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }

        /// Sends `signal` to the child.
        package func send(_ signal: Int32) { _ = kill(pid, signal) }
    }

    /// Starts `arguments[0]` (looked up in PATH unless it holds a slash) with `arguments` as its
    /// argv and `environment` as its environment (the process's own when nil). The child starts
    /// with every signal at its default action and none blocked, whatever this process set up.
    /// `quiet`: its stdout and stderr go to /dev/null. Returns nil when it cannot be started.
    package static func start(_ arguments: [String], environment: [String: String]? = nil, quiet: Bool = false) -> Child? {
        guard !arguments.isEmpty else { return nil }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let pairs = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        let envp = pairs.map { $0.map { strdup($0) } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid = pid_t()
        let rc = envp.map { posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, $0) }
            ?? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        return rc == 0 ? Child(pid: pid) : nil
    }

    /// Runs `arguments` to its end: its exit status (128 + signal when killed), or nil when it
    /// cannot be started (not installed).
    package static func run(_ arguments: [String], environment: [String: String]? = nil, quiet: Bool = false) -> Int32? {
        start(arguments, environment: environment, quiet: quiet)?.wait()
    }

    /// The absolute path of this program's executable (/proc/self/exe), nil if unreadable.
    package static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The owner (uid, gid) of `path`, nil when it does not exist.
    package static func owner(of path: String) -> (uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_uid, info.st_gid)
    }

    /// The name of user `uid` in the password database, nil when it has no entry there.
    package static func userName(of uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// Where `name` is found on the PATH (or `name` itself when it holds a slash), nil when it is
    /// not there as an executable file.
    package static func executablePath(of name: String, path: String? = nil) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let folders = (path ?? getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin").split(separator: ":")
        for folder in folders where !folder.isEmpty {
            let candidate = folder + "/" + name
            var st = stat()
            if stat(candidate, &st) == 0, st.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The effective user id of this process.
    package static var effectiveUser: uid_t { geteuid() }
}
