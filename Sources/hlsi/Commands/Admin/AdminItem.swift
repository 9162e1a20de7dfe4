import ArgumentParser

/// The item `hlsi admin get`, `update` and `delete` name: `schedule TARGET`, `break ID` or `ad ID`.
struct AdminItem: ParsableArguments {
    @Argument(help: "schedule, break or ad.")
    var resource: String

    @Argument(help: "The schedule's target (vod/ID or live/ID), or the break's or ad's ID.")
    var key: String

    func validate() throws { _ = try path() }

    /// `RESOURCES/KEY` under /admin/v1/.
    func path() throws -> String { try AdminResource.path(resource) + "/" + AdminResource.key(key) }
}
