import ArgumentParser
import HLSInterstitials
import HLSPlaylist

/// `hlsi rules`: the catalog of validation rules.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List every validation rule: its ID, severity and the spec text it enforces.",
        discussion: "docs/rules.md is the output of `hlsi rules --markdown`."
    )

    @Flag(name: .long, help: "Print the catalog as Markdown.")
    var markdown = false

    func run() throws {
        if markdown {
            Output.standardOutput(RuleCatalog.markdown())
            return
        }
        let width = Rule.allRules.map(\.id.rawValue.count).max() ?? 0
        var text = ""
        for rule in Rule.allRules {
            let id = rule.id.rawValue
            text += id + String(repeating: " ", count: width - id.count + 2)
            text += rule.severity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + rule.summary + "\n"
        }
        Output.standardOutput(text)
    }
}
