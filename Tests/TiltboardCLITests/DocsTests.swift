import Foundation
import TiltboardDrivers
import TiltboardServer
import TiltboardSimulator
import XCTest

/// The README and the pages in docs/ against what they describe: every command's `--help` in
/// docs/commands.md is the binary's own (written there by Tests/docs/generate-command-docs.sh),
/// every command has a section, every relative link leads to a file and heading that exist, and
/// each page's lists (board files, motion scripts, chips, schemas, profile sections, the page's
/// element ids, CI's stages) hold what the code and the tree hold.
final class DocsTests: XCTestCase {
    /// The pages a reader follows links between.
    static let pages = ["README.md", "Boards/README.md"] + ((try? FileManager.default
        .contentsOfDirectory(atPath: packageRoot + "/docs")) ?? []).filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    /// What `tiltboard ARGS --help` prints at 80 columns (as a pipe gets it), as it stands in
    /// docs/commands.md. The generator script writes the same bytes.
    static func helpBlock(_ arguments: [String]) throws -> String {
        let result = try CLIRunner.run(arguments + ["--help"], environment: ["COLUMNS": "80"])
        XCTAssertEqual(result.status, 0, "tiltboard \(arguments.joined(separator: " ")) --help: \(result.stderr)")
        var help = result.stdout
        while help.hasSuffix("\n") { help.removeLast() }
        let command = (["tiltboard"] + arguments).joined(separator: " ")
        return "<details><summary><code>\(command) --help</code></summary>\n\n```text\n\(help)\n```\n\n</details>\n"
    }

    /// The subcommands a `--help` lists under SUBCOMMANDS (hidden ones are not listed).
    static func subcommands(_ arguments: [String]) throws -> [String] {
        let help = try CLIRunner.run(arguments + ["--help"], environment: ["COLUMNS": "80"]).stdout
        guard let start = help.range(of: "\nSUBCOMMANDS:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.dropFirst(2).split(separator: " ").first,
                  name.allSatisfy({ $0.isLowercase || $0 == "-" }) else { return nil }
            return String(name)
        }
    }

    /// Every command and subcommand `tiltboard --help` lists, as argument lists.
    static func allCommands() throws -> [[String]] {
        var commands: [[String]] = []
        for name in try subcommands([]) where name != "help" {
            commands.append([name])
            for sub in try subcommands([name]) where sub != "help" { commands.append([name, sub]) }
        }
        return commands
    }

    /// The `<!-- help: ARGS -->` … `<!-- /help -->` blocks of docs/commands.md, by their arguments.
    static func helpBlocks(in text: String) -> [(arguments: [String], block: String)] {
        var blocks: [(arguments: [String], block: String)] = []
        var rest = text[...]
        while let open = rest.range(of: "<!-- help: "), let close = rest.range(of: " -->\n", range: open.upperBound..<rest.endIndex),
              let end = rest.range(of: "<!-- /help -->", range: close.upperBound..<rest.endIndex) {
            let arguments = rest[open.upperBound..<close.lowerBound].split(separator: " ").map(String.init)
            blocks.append((arguments, String(rest[close.upperBound..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    func testEveryCommandsHelpInTheReferenceIsTheBinarysOwn() throws {
        let text = try String(contentsOfFile: packageRoot + "/docs/commands.md", encoding: .utf8)
        let blocks = Self.helpBlocks(in: text)
        let commands = try Self.allCommands()
        XCTAssertGreaterThanOrEqual(commands.count, 13, "tiltboard --help lists its commands")
        XCTAssertEqual(blocks.map { $0.arguments.joined(separator: " ") }.sorted(),
                       commands.map { $0.joined(separator: " ") }.sorted(),
                       "one help block per command; run `bash Tests/docs/generate-command-docs.sh` after adding one")
        for (arguments, block) in blocks {
            XCTAssertEqual(block, try Self.helpBlock(arguments),
                           "docs/commands.md's help of `\(arguments.joined(separator: " "))` is not the binary's: run `bash Tests/docs/generate-command-docs.sh`")
        }
    }

    func testEveryCommandHasASectionInTheReference() throws {
        let text = try String(contentsOfFile: packageRoot + "/docs/commands.md", encoding: .utf8)
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("## ") }
        for command in try Self.subcommands([]) where command != "help" {
            XCTAssertTrue(headings.contains { $0.contains("`\(command)`") }, "docs/commands.md has no section for `\(command)`")
        }
        // And the README's own table names each of them.
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        for command in try Self.subcommands([]) where command != "help" {
            XCTAssertTrue(readme.contains("| `\(command)` |"), "the README's table of commands has no `\(command)`")
        }
    }

    func testEveryOptionTheReferenceNamesIsOneTheToolHas() throws {
        // The prose and the overview table name options by hand; each must be one some command's
        // help lists (but the one `shake` refuses with an explanation).
        var text = try String(contentsOfFile: packageRoot + "/docs/commands.md", encoding: .utf8)
        for (arguments, block) in Self.helpBlocks(in: text) {
            text = text.replacingOccurrences(of: block, with: "(\(arguments.joined(separator: " ")))")
        }
        var helps = ""
        for command in [[]] + (try Self.allCommands()) {
            helps += try CLIRunner.run(command + ["--help"], environment: ["COLUMNS": "80"]).stdout
        }
        let option = try NSRegularExpression(pattern: #"(?<![\w-])--[a-z][a-z0-9-]*"#)
        func options(_ text: String) -> Set<String> {
            Set(option.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) })
        }
        let named = options(text)
        XCTAssertGreaterThan(named.count, 40, "the reference names the options")
        XCTAssertEqual(named.subtracting(options(helps)).sorted(), ["--min-duration"],
                       "options docs/commands.md names that no command has")
    }

    func testEveryRelativeLinkLeadsToAFileAndHeadingThatExist() throws {
        XCTAssertTrue(Self.pages.contains("docs/commands.md"), "\(Self.pages)")
        var checked = 0
        for page in Self.pages {
            let text = try String(contentsOfFile: packageRoot + "/" + page, encoding: .utf8)
            let folder = (page as NSString).deletingLastPathComponent
            for target in Self.links(in: text) {
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? page : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: packageRoot + "/" + file, isDirectory: &isFolder) else {
                    XCTFail("\(page): the link \(target) leads to \(file), which does not exist"); continue
                }
                guard parts.count == 2 else { continue }
                XCTAssertTrue(file.hasSuffix(".md") && !isFolder.boolValue, "\(page): \(target): an anchor into a file that is not a page")
                let anchors = Self.anchors(in: try String(contentsOfFile: packageRoot + "/" + file, encoding: .utf8))
                XCTAssertTrue(anchors.contains(parts[1]), "\(page): \(target): \(file) has no heading #\(parts[1])")
            }
        }
        XCTAssertGreaterThan(checked, 40, "the pages link to each other")
    }

    func testEveryPathThePagesNameInBackticksExists() throws {
        // A script, board file or source a page tells the reader to open or run.
        let pattern = try NSRegularExpression(pattern: #"`(?:bash |python3 )?((?:Tests|Boards|Sources|packaging|udev|docs)/[A-Za-z0-9_./-]*[A-Za-z0-9_])"#)
        var checked = 0
        for page in Self.pages {
            let text = try String(contentsOfFile: packageRoot + "/" + page, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let path = String(text[Range(match.range(at: 1), in: text)!])
                if path.contains("*") || path.contains("…") { continue }
                checked += 1
                XCTAssertTrue(FileManager.default.fileExists(atPath: packageRoot + "/" + path), "\(page) names \(path), which does not exist")
            }
        }
        XCTAssertGreaterThan(checked, 30)
    }

    func testTheREADMEFitsOnAScreenAndKeepsItsMarkedBlocks() throws {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        XCTAssertLessThanOrEqual(readme.split(separator: "\n", omittingEmptySubsequences: false).count, 300)
        // CI runs the test command from between its markers; the library example sits between its own.
        for name in ["run-command", "test-command"] {
            XCTAssertTrue(readme.contains("<!-- \(name) -->\n```sh\n"), name)
            XCTAssertTrue(readme.contains("\n```\n<!-- /\(name) -->\n"), name)
        }
        XCTAssertTrue(readme.contains("<!-- library-example -->\n```swift\n"))
        XCTAssertTrue(readme.contains("\n```\n<!-- /library-example -->\n"))
    }

    func testEveryBoardFileIsListedInBoardsREADME() throws {
        let text = try String(contentsOfFile: packageRoot + "/Boards/README.md", encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Boards").filter { $0.hasSuffix(".json") }
        XCTAssertFalse(files.isEmpty)
        for file in files { XCTAssertTrue(text.contains("`\(file)`"), "Boards/README.md does not list \(file)") }
    }

    func testEveryBuiltInMotionScriptIsInTheBoardFilesTable() throws {
        let text = try String(contentsOfFile: packageRoot + "/docs/board-files.md", encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }
        for name in MotionScript.builtInNames {
            XCTAssertTrue(rows.contains { $0.split(separator: "|").first?.contains("`\(name)`") == true },
                          "docs/board-files.md's table of motion scripts has no `\(name)`")
        }
    }

    func testEveryRegisteredChipIsInTheChipsTableAndTheBoardFileKeys() throws {
        let chips = try String(contentsOfFile: packageRoot + "/docs/chips.md", encoding: .utf8)
        let boardFiles = try String(contentsOfFile: packageRoot + "/docs/board-files.md", encoding: .utf8)
        let chipKey = try XCTUnwrap(boardFiles.split(separator: "\n").first { $0.hasPrefix("| `sensor.chip` |") })
        XCTAssertGreaterThanOrEqual(ChipKind.allCases.count, 5)
        for kind in ChipKind.allCases {
            XCTAssertTrue(chips.contains("| `\(kind.rawValue)` |"), "docs/chips.md's table has no `\(kind.rawValue)`")
            XCTAssertTrue(chipKey.contains("`\(kind.rawValue)`"), "docs/board-files.md's sensor.chip has no `\(kind.rawValue)`")
        }
    }

    func testThePagesElementIdsAreThePagesOwn() throws {
        // The ids docs/serve.md promises to tests and scripts.
        let text = try String(contentsOfFile: packageRoot + "/docs/serve.md", encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "the element ids "))
        let end = try XCTUnwrap(text.range(of: " stay\nas they are", range: start.upperBound..<text.endIndex))
        let ids = text[start.upperBound..<end.lowerBound].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map(\.element).filter { !$0.contains(" ") && !["live", "reconnecting"].contains($0) }  // those two: #status's texts
        XCTAssertEqual(ids.count, 10, "\(ids)")
        XCTAssertTrue(WebPage.html.contains(">reconnecting</span>"))
        for id in ids { XCTAssertTrue(WebPage.html.contains("id=\"\(id)\""), "the page has no element #\(id)") }
    }

    func testEveryCIStagesScriptIsInTheTestingPage() throws {
        let ci = try String(contentsOfFile: packageRoot + "/.ci/run", encoding: .utf8)
        let testing = try String(contentsOfFile: packageRoot + "/docs/testing.md", encoding: .utf8)
        let script = try NSRegularExpression(pattern: #"^\s*(?:[a-z_0-9]+=\$\()?bash ((?:Tests|packaging)/[A-Za-z0-9_./-]+\.sh)"#, options: .anchorsMatchLines)
        let scripts = Set(script.matches(in: ci, range: NSRange(ci.startIndex..., in: ci)).map { String(ci[Range($0.range(at: 1), in: ci)!]) })
        XCTAssertGreaterThanOrEqual(scripts.count, 8, "\(scripts)")
        for path in scripts { XCTAssertTrue(testing.contains("`\(path)"), "docs/testing.md does not name \(path), a stage of .ci/run") }
    }

    func testEverySectionOfTheProfileIsInTheProfilesPage() throws {
        let text = try String(contentsOfFile: packageRoot + "/docs/profiles.md", encoding: .utf8)
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: packageRoot + "/docs/schema/profile.schema.json")))
        let keys = try XCTUnwrap(((schema as? [String: Any])?["properties"] as? [String: Any])?.keys)
        XCTAssertGreaterThan(keys.count, 8)
        for key in keys { XCTAssertTrue(text.contains("`\(key)`"), "docs/profiles.md does not name the profile's `\(key)`") }
    }

    func testEverySchemaIsNamedInTheInterfacesPage() throws {
        let text = try String(contentsOfFile: packageRoot + "/docs/interfaces.md", encoding: .utf8)
        let schemas = try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/docs/schema").filter { $0.hasSuffix(".schema.json") }
        XCTAssertGreaterThan(schemas.count, 5)
        for schema in schemas where schema != "common.schema.json" {
            XCTAssertTrue(text.contains("`\(schema)"), "docs/interfaces.md does not name \(schema)")
        }
    }

    /// The targets of Markdown links `[text](target)` and of `<img src="target">`, outside code.
    static func links(in text: String) -> [String] {
        var targets: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            if fenced { continue }
            // Inline code spans are not links.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            var rest = prose[...]
            while let open = rest.range(of: "]("), let close = rest[open.upperBound...].firstIndex(of: ")") {
                targets.append(String(rest[open.upperBound..<close]))
                rest = rest[close...]
            }
            rest = prose[...]
            while let open = rest.range(of: "src=\""), let close = rest[open.upperBound...].firstIndex(of: "\"") {
                targets.append(String(rest[open.upperBound..<close]))
                rest = rest[rest.index(after: close)...]
            }
        }
        return targets
    }

    /// The anchors GitHub gives a page's headings: lower case, letters, digits, `-` and `_` kept,
    /// spaces made `-`, everything else dropped; a repeated one gets `-1`, `-2`, ….
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        var fenced = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            var slug = ""
            for character in title.lowercased() {
                if character.isLetter || character.isNumber || character == "-" || character == "_" { slug.append(character) }
                else if character == " " { slug.append("-") }
            }
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }
}
