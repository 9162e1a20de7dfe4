extension APIError {
    /// The stable codes of the server's errors: what a client may branch on (the message may change).
    ///
    /// The raw value is the code in the JSON body. `docs/http.md` lists them all ("Error codes"), and
    /// a test keeps that list and this one equal.
    public enum Code: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        // 400: the request or a document in it.
        /// 400 (or another 4xx): the request cannot be answered as it is, and no code below says why.
        case badRequest = "bad-request"
        /// 400: a body or a file is not valid JSON.
        case jsonSyntax = "json-syntax"
        /// 400: a JSON member is missing, unknown, of the wrong type or out of range.
        case jsonSchema = "json-schema"
        /// 400: a break's fields do not make a break (such as a resumption without a duration).
        case invalidBreak = "invalid-break"
        /// 400: a break's interstitial fields cannot be written as a date range.
        case invalidInterstitial = "invalid-interstitial"
        /// 400: a break or a schedule names an ad that is not in the inventory.
        case unknownAd = "unknown-ad"
        /// 400: a path or an ID in the URL is not allowed.
        case badPath = "bad-path"
        /// 400: an early notice's time (`in` or `at`) is not after now, or is more than 6 hours ahead.
        case noticeTime = "notice-time"
        /// 400: a hand-off name is not an identifier.
        case badName = "bad-name"
        /// 400: a hand-off `wait` is not 0 to 60 seconds.
        case badWait = "bad-wait"
        /// 400: a looped segment's `shift` is not whole ticks, or the segment cannot be shifted.
        case badShift = "bad-shift"
        /// 400: a stitched playlist's `session` is too long or has characters other than letters,
        /// digits and `-._~`.
        case badSession = "bad-session"
        /// 400: an asset-list request's query (`_HLS_interstitial_id`, `_HLS_start_offset`, `_HLS_primary_id`).
        case assetListRequest = "asset-list-request"
        /// 400: a hand-off body is not valid JSON.
        case sessionJSON = "session-json"
        /// 400: a hand-off body is not a playback session.
        case sessionSchema = "session-schema"
        /// The configuration file (`hlsi serve --config`): a value that cannot be served.
        case config = "config"

        // 400, 408, 414, 431, 503: the request head, refused before any route (the request guard).
        /// 400: the request line is not `METHOD SP target SP HTTP/1.x`.
        case badRequestLine = "bad-request-line"
        /// 400: a header or trailer field is not `name: value`.
        case badHeader = "bad-header"
        /// 400: a line of the request head does not end with CRLF.
        case badLineEnding = "bad-line-ending"
        /// 400: the body's framing (`Content-Length`, `Transfer-Encoding`, chunks) is ambiguous or malformed.
        case badFraming = "bad-framing"
        /// 408: the request head did not arrive in time.
        case headerTimeout = "header-timeout"
        /// 408: the request body did not arrive in time.
        case bodyTimeout = "body-timeout"
        /// 414: the request line is too long.
        case requestLineTooLong = "request-line-too-long"
        /// 431: the header fields are too large or too many.
        case headersTooLarge = "headers-too-large"
        /// 503: the server or this peer has as many connections as it may.
        case tooManyConnections = "too-many-connections"

        // 401 to 429: who asks, what is there, and when.
        /// 401: the admin API (or `/metrics`) needs `Authorization: Bearer <admin token>`.
        case unauthorized = "unauthorized"
        /// 403: the server may not answer this (such as `/metrics` without a token off loopback).
        case forbidden = "forbidden"
        /// 404: nothing is at this path, or the break, ad or schedule named does not exist.
        case notFound = "not-found"
        /// 405: the method is not one the path answers (the `Allow` field lists those it does).
        case methodNotAllowed = "method-not-allowed"
        /// 409: it exists already; `PUT` it to replace it.
        case exists = "exists"
        /// 409: the ad fills a break or a schedule.
        case adInUse = "ad-in-use"
        /// 409: the break has been served: it may not change or be removed (RFC 8216bis §6.2.1).
        case servedBreak = "served-break"
        /// 409: another break of the channel overlaps the one asked for.
        case breakInProgress = "break-in-progress"
        /// 409: the break has already returned early.
        case alreadyReturned = "already-returned"
        /// 409: no break has started to return from.
        case noBreak = "no-break"
        /// 409: the break has already ended.
        case breakOver = "break-over"
        /// 409: the live channel does not convert signalled breaks (`signals`), so no cue can take an
        /// early notice.
        case notSignalled = "not-signalled"
        /// 409: a limit of the store is reached (breaks per target, ads in the inventory).
        case limitReached = "limit-reached"
        /// 410: a relayed beacon's URL has expired.
        case beaconExpired = "beacon-expired"
        /// 413: the request body is larger than the route takes.
        case bodyTooLarge = "body-too-large"
        /// 416: the byte range starts past the end of the file.
        case rangeNotSatisfiable = "range-not-satisfiable"
        /// 429: too many beacons from this address or viewer this minute.
        case beaconBudget = "beacon-budget"

        // 500 to 504: the server or what is behind it.
        /// 500: the server failed to answer (an error it has no code for).
        case internalError = "internal-error"
        /// 500: the database failed.
        case store = "store"
        /// 500: a live channel's playlist cannot be looped.
        case liveLoop = "live-loop"
        /// 500: the demo media is missing from the build.
        case demoMedia = "demo-media"
        /// 500: a file cannot be read.
        case fileUnreadable = "file-unreadable"
        /// 502: a content's playlist cannot be served (not a media playlist, no segments, interstitials
        /// that cannot be added).
        case playlist = "playlist"
        /// 502: an upstream URL is not on an allowed origin.
        case upstreamOrigin = "upstream-origin"
        /// 502: an upstream origin answered with a status other than 200.
        case upstreamStatus = "upstream-status"
        /// 502: an upstream request failed.
        case upstreamFailed = "upstream-failed"
        /// 502: an upstream answer is larger than the server takes.
        case upstreamTooLarge = "upstream-too-large"
        /// 502: an upstream playlist is not a usable playlist.
        case upstreamNotPlaylist = "upstream-not-playlist"
        /// 503: the database cannot be reached; nothing was changed.
        case storeUnavailable = "store-unavailable"
        /// 503: a segment cannot be read now.
        case segmentRead = "segment-read"
        /// 503: the server cannot open a file now (out of file descriptors or memory).
        case serverBusy = "server-busy"
        /// 503: as many hand-off sessions wait as the mailbox holds.
        case mailboxFull = "mailbox-full"
        /// 503: as many requests to the upstream origin are in progress as allowed.
        case upstreamBusy = "upstream-busy"
        /// 504: an upstream origin did not answer in time.
        case upstreamTimeout = "upstream-timeout"

        /// The code as it is written in the JSON body.
        public var description: String { rawValue }
    }
}
