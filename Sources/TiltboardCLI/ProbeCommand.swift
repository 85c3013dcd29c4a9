import ArgumentParser
import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Find \(ChipRegistry.partNames("and")) chips on an I²C bus.",
        discussion: """
        Asks \(ChipRegistry.all.map { "\($0.addresses.map { $0.hex }.joined(separator: " and ")) (\($0.partName), \($0.addressPinName) low/high)" }.joined(separator: " and ")) \
        who they are; --all asks every address from 0x08 to 0x77. `--bus simulated` probes the \
        simulator (\(ChipRegistry.oneOfEach.map { "an \($0.chip.partName) at \($0.address.hex)" }.joined(separator: " and "))). \
        Where a chip that comes with other devices is found (the Sense HAT's LSM9DS1), those are \
        listed as expected at their addresses and never read. Exits 69 when nothing answers.

        --all-buses asks the sensors' own addresses on every I²C bus the kernel lists (sysfs), \
        instead of --bus: each bus under its adapter's name, a multiplexer's channel (the kernel's \
        `i2c-<parent>-mux (chan_id N)`) named with its parent bus. --write-boards writes a board \
        file for each chip found into a folder (<chip>-<bus>-<address>.json; a multiplexer \
        channel's own /dev/i2c-N is its bus), keeping any file already there.
        """
    )

    // Optional, its default in the help: so that --bus given with --all-buses can be refused.
    @Option(name: .customLong("bus"), help: "The I²C bus device, or `simulated`. (default: /dev/i2c-1)")
    var chosenBus: String?
    var bus: String { chosenBus ?? "/dev/i2c-1" }

    @Flag(help: "Probe every address 0x08–0x77, not just the sensors' own.")
    var all = false

    @Flag(help: "One JSON object per device found.")
    var json = false

    @Flag(name: .customLong("all-buses"), help: "Every I²C bus the kernel lists instead of --bus, the sensors' own addresses on each.")
    var allBuses = false

    @Option(name: .customLong("write-boards"), help: ArgumentHelp("Write a board file for each chip found into this folder (existing files are kept).",
                                                                 valueName: "folder"))
    var writeBoards: String?

    func validate() throws {
        if allBuses && all { throw ValidationError("--all-buses asks the sensors' own addresses; --all goes with one --bus") }
        if allBuses && chosenBus != nil { throw ValidationError("--all-buses asks every bus; give it or --bus, not both") }
    }

    func run() throws {
        if allBuses { return try runAllBuses() }
        let addresses: [UInt8] = all ? Array(0x08...0x77) : ChipRegistry.addresses
        // The sensors' own addresses first: a chip found there names the devices that come
        // with it, and --all then leaves those addresses alone.
        let ordered = ChipRegistry.addresses.filter(addresses.contains) + addresses.filter { !ChipRegistry.addresses.contains($0) }
        // An address a kernel driver owns is not asked (that would configure its chip behind
        // the driver's back); it is reported as the other commands report it, and exits 69.
        let owned = CommandBoard.kernelDrivers(onBus: bus, addresses: addresses)
        let free = ordered.filter { address in !owned.contains { $0.address == address } }
        // As with the other commands, an owned address is named even when the bus cannot be
        // opened (i2c-dev not loaded, no permission): that is the first thing to fix.
        let i2c: I2CBus?
        do { i2c = try CommandBoard.probeBus(bus) } catch {
            if owned.isEmpty { throw error }
            i2c = nil
        }
        var found: [ProbeResult] = []
        var companions: [CompanionDevice] = []
        if let i2c {
            let sensors = free.filter(ChipRegistry.addresses.contains)
            found = try ChipKind.probe(bus: i2c, addresses: sensors)
            companions = ChipRegistry.companions(of: found.compactMap(\.chip))
                .filter { c in !found.contains { $0.address == c.address } }
            let rest = free.filter { a in !sensors.contains(a) && !companions.contains { $0.address == a } }
            found += try ChipKind.probe(bus: i2c, addresses: rest)
            if all { found.sort { $0.address < $1.address } }
        }
        guard !found.isEmpty || !owned.isEmpty else {
            throw CLIError(message: "no device answered on \(bus) at \(addresses.count > 4 ? "0x08–0x77" : addresses.map(\.hex).joined(separator: ", ")): check the wiring (SDA, SCL, 3V3, GND) and that the sensor has power", category: .unavailable)
        }
        var out = JSONLineWriter()
        for device in found {
            if json {
                out.reset()
                out.write(probed: device)
                Console.out(out.bytes)
            } else {
                let id = device.chipID.map { " (ID \($0.hex))" } ?? ""
                Console.out("\(device.address.hex)  \(device.part)\(id)\n")
            }
        }
        for companion in companions {
            if json {
                out.reset()
                out.beginObject()
                out.plainString("address", companion.address.hex)
                out.plainString("part", companion.name)
                out.plainString("note", "expected on this board; not accessed")
                out.endObject()
                out.newline()
                Console.out(out.bytes)
            } else {
                Console.out("\(companion.address.hex)  \(companion.name) (expected; not accessed)\n")
            }
        }
        if let writeBoards {
            try Self.writeBoardFiles(found.compactMap { d in d.chip.map { (d, $0, bus, nil) } }, into: writeBoards)
        }
        // One error line per owned address; the last ends the command.
        for binding in owned.dropLast() {
            Console.error("tiltboard: error: \(Advice.message(for: KernelDriverBoundError(binding: binding)))\n")
        }
        if let last = owned.last { throw KernelDriverBoundError(binding: last) }
    }
}

extension ProbeCommand {
    /// One chip found by `--all-buses`, as `--json` prints it (docs/schema/probe-line.schema.json).
    struct BusLine: Encodable {
        var address: String
        var chip: String
        var part: String
        var chipID: String?
        var bus: String
        var adapter: String
        var muxParent: String?
        var muxChannel: Int?
    }

    private func runAllBuses() throws {
        let adapters = I2CAdapters.list(sysfsRoot: CommandBoard.sysfsRoot)
        guard !adapters.isEmpty else {
            throw CLIError(message: "no I²C bus found (\(CommandBoard.sysfsRoot)/class/i2c-dev lists none): enable I²C (sudo raspi-config → Interface Options → I2C) or load i2c-dev (sudo modprobe i2c-dev)",
                           category: .unavailable)
        }
        let reports = BusDiscovery.probe(adapters, open: { try CommandBoard.probeBus($0) },
                                         owned: { CommandBoard.kernelDrivers(onBus: $0, addresses: $1) },
                                         describe: { describe($0) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for r in reports {
            if json {
                for d in r.found {
                    let line = BusLine(address: d.address.hex, chip: d.chip?.rawValue ?? "", part: d.part, chipID: d.chipID?.hex,
                                       bus: r.device, adapter: r.name, muxParent: r.mux.map { "/dev/i2c-\($0.parent)" },
                                       muxChannel: r.mux?.channel)
                    Console.out(Array(try encoder.encode(line)) + [0x0A])
                }
                continue
            }
            var head = r.device + (r.name.isEmpty ? "" : "  \(r.name)")
            if let mux = r.mux { head += ": channel \(mux.channel) of the multiplexer on /dev/i2c-\(mux.parent)" }
            Console.out(head + "\n")
            if let failure = r.failure { Console.out("  not probed: \(failure)\n") }
            for d in r.found {
                Console.out("  \(d.address.hex)  \(d.part)\(d.chipID.map { " (ID \($0.hex))" } ?? "")\n")
            }
            for b in r.owned { Console.out("  \(b.address.hex)  owned by the kernel driver \(b.driver): not asked\n") }
            if r.failure == nil && r.found.isEmpty && r.owned.isEmpty { Console.out("  no supported chip\n") }
        }
        if let writeBoards {
            try Self.writeBoardFiles(reports.flatMap { r in r.found.compactMap { d in d.chip.map { (d, $0, r.device, r.mux) } } },
                                     into: writeBoards)
        }
        guard reports.contains(where: { !$0.found.isEmpty }) else {
            throw CLIError(message: "no supported chip answered on \(reports.map(\.device).joined(separator: ", ")): check the wiring (SDA, SCL, 3V3, GND) and that the sensor has power",
                           category: .unavailable)
        }
    }

    /// Writes a board file (`BusDiscovery.boardFile`) for each chip into `folder`, never over a
    /// file already there (that one is kept, with a note); each file written is noted on stderr.
    static func writeBoardFiles(_ chips: [(ProbeResult, ChipKind, String, I2CAdapterInfo.MuxChannel?)], into folder: String) throws {
        for (device, chip, bus, mux) in chips {
            let (name, text) = BusDiscovery.boardFile(for: device, chip: chip, bus: bus, mux: mux)
            let path = (folder.hasSuffix("/") ? String(folder.dropLast()) : folder) + "/" + name
            let file: OutputFile
            do {
                file = try OutputFile.open(path: path, overwrite: false)
            } catch let error as OutputFileError where error.kind == .overwriteNotAsked || error.kind == .exists {
                Console.note("kept \(path): it exists already (not overwritten)")
                continue
            }
            try file.write(Array(text.utf8))
            try file.close()
            Console.note("wrote \(path)")
        }
    }
}

extension JSONLineWriter {
    /// `{"address":"0x68","chip":…,"part":…,"chipID":…}` and a newline
    /// (docs/schema/probe-line.schema.json).
    mutating func write(probed device: ProbeResult) {
        beginObject()
        plainString("address", device.address.hex)
        if let chip = device.chip { plainString("chip", chip.rawValue) }
        plainString("part", device.part)
        if let id = device.chipID { plainString("chipID", id.hex) }
        endObject()
        newline()
    }
}
