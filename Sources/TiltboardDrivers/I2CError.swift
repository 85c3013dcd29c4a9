/// A failed I²C transaction, with everything a person needs to fix it.
public struct I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, independent of the platform (after embedded-hal's error kinds).
    public enum Kind: String, Sendable, Equatable {
        /// The bus device does not exist (`ENOENT`).
        case noSuchBus
        /// The bus device exists but this user may not open it (`EACCES`, `EPERM`).
        case permissionDenied
        /// Nothing acknowledged the address (`ENXIO`, `ENODEV`, `EREMOTEIO` on the address).
        case noAcknowledgeAddress
        /// The device stopped acknowledging during the data phase.
        case noAcknowledgeData
        /// Bus error or I/O error (`EIO`, `EBUSY`).
        case bus
        /// Lost arbitration to another master (`EAGAIN`).
        case arbitrationLost
        /// The adapter timed out (`ETIMEDOUT`).
        case timeout
        /// The adapter cannot do the transfer asked of it (`EOPNOTSUPP`).
        case unsupported
        /// Anything else.
        case other
    }

    public var kind: Kind
    /// The bus device path (`/dev/i2c-1`) or `simulated`.
    public var device: String
    /// 7-bit address, when the failure concerns one device.
    public var address: UInt8?
    /// First register of the transaction, when known.
    public var register: UInt8?
    /// The errno the kernel returned, when there was one.
    public var errno: Int32?
    /// The kernel's text for `errno`, or the simulator's reason.
    public var detail: String?

    public init(kind: Kind, device: String, address: UInt8? = nil, register: UInt8? = nil,
                errno: Int32? = nil, detail: String? = nil) {
        self.kind = kind; self.device = device; self.address = address
        self.register = register; self.errno = errno; self.detail = detail
    }

    /// One line: what failed, where, and what to do about it.
    public var description: String {
        var what = "I²C "
        switch kind {
        case .noSuchBus: what += "bus \(device) does not exist"
        case .permissionDenied: what += "bus \(device): permission denied"
        case .noAcknowledgeAddress: what += "no device answers at \(address.map(\.hex) ?? "?") on \(device)"
        case .noAcknowledgeData: what += "device \(address.map(\.hex) ?? "?") on \(device) stopped acknowledging"
        case .bus: what += "bus error on \(device)"
        case .arbitrationLost: what += "arbitration lost on \(device)"
        case .timeout: what += "timeout on \(device)"
        case .unsupported: what += "transfer not supported by the adapter of \(device)"
        case .other: what += "failure on \(device)"
        }
        var context: [String] = []
        if let address, kind != .noAcknowledgeAddress, kind != .noAcknowledgeData { context.append("address \(address.hex)") }
        if let register { context.append("register \(register.hex)") }
        if let errno { context.append("errno \(errno)" + (detail.map { " \($0)" } ?? "")) }
        else if let detail { context.append(detail) }
        if !context.isEmpty { what += " (" + context.joined(separator: ", ") + ")" }
        return what + ": " + hint
    }

    /// The likely fix.
    public var hint: String {
        switch kind {
        case .noSuchBus:
            return "enable I²C (raspi-config → Interface Options → I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt, then reboot) or check the bus number with `ls /dev/i2c-*`"
        case .permissionDenied:
            return "install the udev rule (sudo cp udev/60-tiltboard.rules /etc/udev/rules.d/) and join the i2c group (sudo usermod -aG i2c $USER, then log in again)"
        case .noAcknowledgeAddress, .noAcknowledgeData:
            return "check the wiring (SDA, SCL, 3V3, GND) and the address pin (MPU-6050 AD0: 0x68 low / 0x69 high; ADXL345 ALT ADDRESS: 0x53 low / 0x1D high), then try `tiltboard probe`"
        case .bus, .arbitrationLost, .timeout:
            return "check the wiring and pull-ups, shorten the cable or lower the bus speed (dtparam=i2c_arm_baudrate=100000)"
        case .unsupported:
            return "this adapter lacks the transfer type; please report it with the output of `i2cdetect -F`"
        case .other:
            return "retry; if it persists, check the wiring"
        }
    }
}
