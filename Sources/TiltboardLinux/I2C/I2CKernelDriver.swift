#if canImport(Glibc)
import Glibc
#endif
import TiltboardCore
import TiltboardDrivers

/// A kernel driver bound to an I²C device, as sysfs shows it: the facts, not the fix.
package struct I2CDriverBinding: Sendable, Equatable {
    /// The driver's name, e.g. `st-accel-i2c`, `inv-mpu6050-i2c`, `adxl345_i2c`.
    package var driver: String
    /// The device's sysfs name, e.g. `1-0068` (what the driver's `unbind` file takes).
    package var device: String
    /// The device's `name` attribute (the device-tree compatible without its vendor, or what
    /// `new_device` was given), e.g. `mpu6050`, `lis3dh`; nil when unreadable.
    package var deviceName: String?
    /// The bus device path the program was given, e.g. `/dev/i2c-1`.
    package var bus: String
    /// The 7-bit address.
    package var address: UInt8

    package init(driver: String, device: String, deviceName: String?, bus: String, address: UInt8) {
        self.driver = driver; self.device = device; self.deviceName = deviceName
        self.bus = bus; self.address = address
    }
}

/// The sensor's address is claimed by a kernel driver (a device-tree overlay such as
/// `i2c-sensor,mpu6050`, or `new_device`). i2c-dev would refuse SMBus transfers to it
/// (`I2C_SLAVE` returns EBUSY) but let `I2C_RDWR` through, so both would configure one chip.
/// It carries the binding; the program that shows it words it.
package struct KernelDriverBoundError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The driver, the device and where it is.
    package var binding: I2CDriverBinding

    /// The device at `binding` is claimed by its driver.
    package init(binding: I2CDriverBinding) { self.binding = binding }

    /// The driver and the address, for a log; a program words it for people.
    package var description: String {
        "KernelDriverBoundError(driver: \(binding.driver), address: \(binding.address.hex), bus: \(binding.bus))"
    }
}

/// Which kernel driver, if any, is bound to an I²C address: read from sysfs, so it works the
/// same whether a device-tree overlay declared the device or `new_device` did.
package enum I2CKernelDriver {
    /// Where sysfs is mounted.
    package static let defaultSysfsRoot = "/sys"

    /// The sysfs name of the client at `address` on adapter `adapter`: `"%d-%04x"` of the adapter
    /// number and the address (Linux drivers/i2c/i2c-core-base.c, `i2c_dev_set_name`; 7-bit
    /// clients carry no flag offset there). Devices named by ACPI or board info (`i2c-NAME`)
    /// are not found this way; a Raspberry Pi's device tree does not name them so.
    package static func sysfsName(adapter: Int, address: UInt8) -> String {
        let hex = String(address, radix: 16)
        return "\(adapter)-" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The adapter number of a bus device: `/dev/i2c-N`, or what a symlink to one resolves to.
    package static func adapterNumber(of bus: String) -> Int? {
        func number(_ path: String) -> Int? {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            guard name.hasPrefix("i2c-") else { return nil }
            return Int(name.dropFirst(4))
        }
        if let n = number(bus) { return n }
        guard let resolved = realpath(bus, nil) else { return nil }
        defer { free(resolved) }
        return number(String(cString: resolved))
    }

    /// The driver bound to `address` on `bus`, nil when there is no such device in sysfs or no
    /// driver is bound to it (the `driver` symlink of `<sysfs>/bus/i2c/devices/<n>-00<aa>`).
    package static func binding(bus: String, address: UInt8, sysfsRoot: String = defaultSysfsRoot) -> I2CDriverBinding? {
        guard let adapter = adapterNumber(of: bus) else { return nil }
        let device = sysfsName(adapter: adapter, address: address)
        let folder = sysfsRoot + "/bus/i2c/devices/" + device
        guard let target = readLink(folder + "/driver"),
              let driver = target.split(separator: "/").last.map(String.init), !driver.isEmpty else { return nil }
        let name = readSmallText(folder + "/name")?.split(whereSeparator: \.isWhitespace).first.map(String.init)
        return I2CDriverBinding(driver: driver, device: device, deviceName: name, bus: bus, address: address)
    }

    /// Throws `KernelDriverBoundError` when a kernel driver owns `address` on `bus`.
    package static func requireNoDriver(bus: String, address: UInt8, sysfsRoot: String = defaultSysfsRoot) throws {
        if let binding = binding(bus: bus, address: address, sysfsRoot: sysfsRoot) {
            throw KernelDriverBoundError(binding: binding)
        }
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A small sysfs attribute's text (its first 256 bytes), nil when unreadable or empty.
    static func readSmallText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }
}
