#if canImport(Glibc)
import Glibc
#endif

/// One I²C adapter as sysfs lists it: its number (its bus device is `/dev/i2c-N`), its name,
/// and, for a multiplexer's channel, the parent bus and the channel.
package struct I2CAdapterInfo: Sendable, Equatable {
    /// The adapter number N.
    package var number: Int
    /// The adapter's `name` attribute (`bcm2835 (i2c@7e804000)`, `i2c-1-mux (chan_id 0)`); "" when unreadable.
    package var name: String
    /// Set for a multiplexer's channel, from its name (`I2CAdapters.muxChannel(adapterName:)`).
    package var mux: MuxChannel?

    /// A multiplexer channel: the adapter number of the bus the multiplexer sits on, and the channel.
    package struct MuxChannel: Sendable, Equatable {
        package var parent: Int
        package var channel: Int
        package init(parent: Int, channel: Int) { self.parent = parent; self.channel = channel }
    }

    package init(number: Int, name: String) {
        self.number = number; self.name = name
        mux = I2CAdapters.muxChannel(adapterName: name)
    }

    /// The bus device, `/dev/i2c-N`.
    package var device: String { "/dev/i2c-\(number)" }
}

/// The I²C adapters the kernel has, from sysfs.
package enum I2CAdapters {
    /// Every adapter with an i2c-dev node (`<sysfs>/class/i2c-dev/i2c-N`, one per `/dev/i2c-N`),
    /// else every adapter on the I²C bus type (`<sysfs>/bus/i2c/devices/i2c-N`), in numeric
    /// order, each with its name: `name` of `class/i2c-dev/i2c-N`, else of `bus/i2c/devices/i2c-N`,
    /// else of `class/i2c-adapter/i2c-N` (i2c-tools' `i2cdetect -l` reads the same places).
    package static func list(sysfsRoot: String) -> [I2CAdapterInfo] {
        var numbers = LinuxI2CBus.busNumbers(in: sysfsRoot + "/class/i2c-dev")
        if numbers.isEmpty { numbers = LinuxI2CBus.busNumbers(in: sysfsRoot + "/bus/i2c/devices") }
        return numbers.map { n in
            let folders = ["/class/i2c-dev/i2c-\(n)", "/bus/i2c/devices/i2c-\(n)", "/class/i2c-adapter/i2c-\(n)"]
            let name = folders.lazy.compactMap { readLine(sysfsRoot + $0 + "/name") }.first ?? ""
            return I2CAdapterInfo(number: n, name: name)
        }
    }

    /// The parent adapter and channel of a multiplexer channel's adapter, from the name the
    /// kernel gives it: `i2c-<parent>-mux (chan_id <channel>)` (Linux drivers/i2c/i2c-mux.c,
    /// `i2c_mux_add_adapter`, which drivers/i2c/muxes/i2c-mux-pca954x.c calls for each channel of
    /// a PCA9548 and its kin); nil for any other name.
    package static func muxChannel(adapterName name: String) -> I2CAdapterInfo.MuxChannel? {
        guard name.hasPrefix("i2c-") else { return nil }
        let rest = name.dropFirst(4)
        guard let dash = rest.firstIndex(of: "-"), let parent = Int(rest[..<dash]) else { return nil }
        let tail = rest[dash...]
        let marker = "-mux (chan_id "
        guard tail.hasPrefix(marker), tail.hasSuffix(")") else { return nil }
        guard let channel = Int(tail.dropFirst(marker.count).dropLast()) else { return nil }
        return I2CAdapterInfo.MuxChannel(parent: parent, channel: channel)
    }

    /// The first line of a small sysfs attribute, nil when unreadable or empty.
    private static func readLine(_ path: String) -> String? {
        guard let line = I2CKernelDriver.readSmallText(path)?.split(separator: "\n", omittingEmptySubsequences: false).first,
              !line.isEmpty else { return nil }
        return String(line)
    }
}
