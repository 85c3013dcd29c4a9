/// Linux's I²C fault codes (the kernel's Documentation/i2c/fault-codes.rst) and the kind each
/// means: one table for the Linux bus, which turns a failed call's errno into a kind, and for the
/// simulator, which fails the way that bus does, so one fault reads and exits the same on both.
package enum I2CFaultCodes {
    /// errno, its kind and the kernel's text (strerror), in the order the simulator picks from:
    /// the first entry of a kind is the errno a simulated fault of that kind carries.
    package static let table: [(errno: Int32, kind: I2CError.Kind, text: String)] = [
        (2, .noSuchBus, "No such file or directory"),              // ENOENT
        (13, .permissionDenied, "Permission denied"),              // EACCES
        (1, .permissionDenied, "Operation not permitted"),         // EPERM
        (6, .noAcknowledgeAddress, "No such device or address"),   // ENXIO: an SMBus adapter's NACK of the address
        (19, .noAcknowledgeAddress, "No such device"),             // ENODEV
        // EREMOTEIO: an I²C adapter's NACK, of the address or of a data byte alike (bcm2835, the
        // Raspberry Pi's controller, reports both so): nothing tells them apart.
        (121, .noAcknowledgeAddress, "Remote I/O error"),
        (5, .bus, "Input/output error"),                           // EIO
        (16, .bus, "Device or resource busy"),                     // EBUSY
        (11, .arbitrationLost, "Resource temporarily unavailable"), // EAGAIN
        (110, .timeout, "Connection timed out"),                   // ETIMEDOUT
        (95, .unsupported, "Operation not supported"),             // EOPNOTSUPP
    ]

    /// The kind of a failed call's errno; `.other` for one the table does not hold.
    package static func kind(errno: Int32) -> I2CError.Kind {
        table.first { $0.errno == errno }?.kind ?? .other
    }

    /// The errno and text a bus reports for a fault of `kind`; a NACK during the data phase is
    /// reported as EREMOTEIO (which reads back as `.noAcknowledgeAddress`). Nil for `.other`.
    package static func errno(for kind: I2CError.Kind) -> (errno: Int32, text: String)? {
        if kind == .noAcknowledgeData { return (121, "Remote I/O error") }
        return table.first { $0.kind == kind }.map { ($0.errno, $0.text) }
    }
}
